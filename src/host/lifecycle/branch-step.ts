/**
 * The branch step of a release (release-workspace.ts): `gatefs/<id>` is deleted only when asked
 * and only when git proves it merged into the workspace's base ref; `discard` never deletes a
 * branch or its commits. The branch name is derived from the id, never read from the record.
 */
import type { GitContext, GitPort } from '../../git/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { branchOf } from '../platform/index.js';
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
  const branch = branchOf(record.conversation, record.backend);
  if (!branch) return { branchDeleted: false };
  if (!options.deleteBranch) return { branchDeleted: false, branchKeptReason: 'deleteBranch was not asked for' };
  const head = await git.branchHead(branch, context);
  if (head === null) return { branchDeleted: false, branchKeptReason: `branch ${branch} does not exist` };
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
