/**
 * `rollbackPreparation`: undoes what an unfinished preparation created — and only that, as
 * recorded in `data.created` before each step ran. Used when a preparation fails and, on
 * start, for a preparation a crash interrupted.
 *
 * Paths come from the state directory and the id, never from the record: a worktree gatefs
 * created is `<stateDir>/worktrees/<id>`, removed by the confined removal (no link followed,
 * nothing outside that folder touched), then git forgets it (`worktree prune`, and
 * `worktree remove --force --force` on the now missing path for a lock a killed `worktree add` left).
 * While the record is `preparing` the gate answers `WORKSPACE_NOT_READY`, so no agent can have
 * written there, and a checkout killed half-way looks dirty (missing files) without holding
 * anyone's work. The branch — `gatefs/<id>`, or the record's explicit branch checked again
 * (`branchOfRecord`), and only when this preparation made it — is deleted only while it still
 * points at the pinned commit and no worktree has it checked out; a copy
 * folder `<stateDir>/copies/<id>` is removed the same confined way, and any lower folder
 * `<stateDir>/lowers/<id>` (src/host/lower/lower-folders.ts) with it, and an empty backend's
 * scratch folder `<stateDir>/scratch/<id>` the same way. Each step that fails is
 * reported in the result, never thrown, so the rest still runs.
 */
import type { PreparationRollback } from '../../state/index.js';
import type { GitContext } from '../../git/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import type { HostPlatform } from '../platform/index.js';
import { branchOfRecord, checkoutOf, isConversationBranch } from '../platform/index.js';
import type { RegistrationParts } from './registration.js';
import { workspaceData } from './workspace-data.js';

/** What the rollback did, for the run log (the catalogue's `PreparationRollback`). */
type RollbackReport = PreparationRollback;

/** Removes what `record.data.created` says the preparation made (see the file comment). Never throws. */
export async function rollbackPreparation(
  parts: Pick<RegistrationParts, 'platform' | 'lowers'>,
  record: WorkspaceRecord,
  context: GitContext,
): Promise<RollbackReport> {
  const { platform } = parts;
  const { created } = workspaceData(record);
  const report: RollbackReport = { removedWorktree: false, deletedBranch: false, removedFolder: false, problems: [] };
  if (created.worktree && record.backend === 'worktree') {
    try {
      await removeWorktreeOf(platform, record.conversation, context);
      report.removedWorktree = true;
    } catch (e) {
      report.problems.push(`worktree: ${(e as Error).message}`);
    }
  }
  if (created.branch && record.backend === 'worktree' && record.pinnedSha) {
    await deleteCreatedBranch(platform, record, record.pinnedSha, context, report);
  }
  if (created.folder && (record.backend === 'copy' || record.backend === 'empty')) {
    try {
      if (record.backend === 'copy') platform.removeWorkspaceFolder('copies', record.conversation);
      else removeScratchFolder(platform, record.conversation, false);
      report.removedFolder = true;
    } catch (e) {
      report.problems.push(`folder: ${(e as Error).message}`);
    }
  }
  if (record.backend === 'copy') {
    // A lower folder left by an earlier workspace of this id (a crash before its release ended).
    await parts.lowers?.remove(record.conversation).catch((e: unknown) => report.problems.push(`lower folder: ${(e as Error).message}`));
  }
  return report;
}

/**
 * Removes `<stateDir>/worktrees/<conversation>` with everything in it (confined), then makes git
 * forget the worktree. Throws what the removal or git throws (`STATE_UNTRUSTED` for a link).
 */
export async function removeWorktreeOf(platform: HostPlatform, conversation: string, context: GitContext): Promise<void> {
  const path = checkoutOf(platform, conversation, 'worktree');
  platform.removeWorkspaceFolder('worktrees', conversation);
  await platform.git.pruneWorktrees(context);
  // A lock left by a killed `worktree add` survives prune; remove --force twice drops it.
  const known = (await platform.git.listWorktrees(context)).some((w) => platform.relativeInside(w.path, path) === '');
  if (known) await platform.git.removeWorktree(path, context, { force: true });
}

/**
 * Removes an empty workspace's scratch folder `<stateDir>/scratch/<conversation>` the confined
 * way (`removeWorkspaceFolder`); with `onlyIfEmpty`, only its folders (a file there stops it
 * with `DIRTY_WORKTREE`). Result: true when something was removed; false when there is no
 * scratch area at all (no empty workspace was ever made). Throws `STATE_UNTRUSTED` for a link.
 */
export function removeScratchFolder(platform: HostPlatform, conversation: string, onlyIfEmpty: boolean): boolean {
  if (platform.folderState(platform.join(platform.stateDir, 'scratch')) === 'missing') return false;
  return platform.removeWorkspaceFolder('scratch', conversation, { onlyIfEmpty });
}

/**
 * Deletes the branch the preparation made (`gatefs/<id>` or the record's explicit branch, checked
 * again) while it still points at `pinnedSha` (compare-and-delete) and, for an explicit one, no
 * worktree has it checked out, recording in `report` whether it did, or why not.
 */
async function deleteCreatedBranch(
  platform: HostPlatform,
  record: WorkspaceRecord,
  pinnedSha: string,
  context: GitContext,
  report: RollbackReport,
): Promise<void> {
  try {
    const branch = branchOfRecord(record)!;
    const head = await platform.git.branchHead(branch, context);
    const held =
      !isConversationBranch(record.conversation, branch) &&
      (await platform.git.listWorktrees(context)).some((w) => w.branch === `refs/heads/${branch}`);
    if (held) report.problems.push(`branch ${branch} is checked out in a worktree: kept`);
    else if (head === pinnedSha) {
      await platform.git.deleteBranch(branch, head, context);
      report.deletedBranch = true;
    } else if (head !== null) {
      report.problems.push(`branch ${branch} moved to ${head}: kept`);
    }
  } catch (e) {
    report.problems.push(`branch: ${(e as Error).message}`);
  }
}
