/**
 * The branch step of a release (release-workspace.ts): the workspace's branch is deleted only when
 * asked and only when git proves it merged into the workspace's base ref; `discard` never deletes
 * a branch or its commits. The branch is `gatefs/<id>`, derived from the id, or the explicit branch
 * of the record, checked again (`branchOfRecord`); an explicit branch is deleted only when gatefs
 * made it (`data.branchMade`: a branch the user had before is theirs) and no worktree has it
 * checked out (the source checkout's branch is never deleted, even by a forged record).
 */
import type { GitContext, GitPort } from '../../git/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { branchOfRecord, isConversationBranch } from '../platform/index.js';
import { workspaceData } from './workspace-data.js';
import type { ReleaseOptions, ReleaseResult } from './workspace-types.js';

/**
 * Deletes `record`'s branch when `options.deleteBranch` asks and git proves it merged into the
 * base ref (compare-and-delete); otherwise says why it was kept. Throws what git throws for the deletion.
 */
export async function branchStep(
  git: GitPort,
  record: WorkspaceRecord,
  options: ReleaseOptions,
  context: GitContext,
): Promise<Pick<ReleaseResult, 'branchDeleted' | 'branchKeptReason'>> {
  if (record.backend !== 'worktree') return { branchDeleted: false };
  if (!options.deleteBranch) return { branchDeleted: false, branchKeptReason: 'deleteBranch was not asked for' };
  const branch = branchOfRecord(record)!;
  const head = await git.branchHead(branch, context);
  if (head === null) return { branchDeleted: false, branchKeptReason: `branch ${branch} does not exist` };
  const foreign = await foreignBranchReason(git, record, branch, context);
  if (foreign !== null) return { branchDeleted: false, branchKeptReason: foreign };
  const baseRef = record.baseRef ?? 'HEAD';
  let base: string;
  try {
    base = await git.resolveCommit(baseRef, context);
  } catch {
    return { branchDeleted: false, branchKeptReason: `the base ref '${baseRef}' no longer names a commit` };
  }
  if (!(await git.isAncestor(head, base, context))) {
    return {
      branchDeleted: false,
      branchKeptReason: `branch ${branch} (${head.slice(0, 12)}) is not merged into ${baseRef} (${base.slice(0, 12)})`,
    };
  }
  await git.deleteBranch(branch, head, context);
  return { branchDeleted: true };
}

/**
 * Why an explicit branch must be kept, or null when it may go: gatefs did not make it, or a
 * worktree (the source checkout, another conversation's) has it checked out. Null for `gatefs/<id>`.
 */
export async function foreignBranchReason(
  git: Pick<GitPort, 'listWorktrees'>,
  record: WorkspaceRecord,
  branch: string,
  context: GitContext,
): Promise<string | null> {
  if (isConversationBranch(record.conversation, branch)) return null;
  if (workspaceData(record).branchMade !== true)
    return `branch ${branch} was not made by gatefs (it existed before): gatefs never deletes it`;
  const held = (await git.listWorktrees(context)).some((w) => w.branch === `refs/heads/${branch}`);
  return held ? `branch ${branch} is checked out in a worktree` : null;
}
