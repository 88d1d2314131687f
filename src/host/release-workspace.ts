/**
 * `releaseWorkspace`: ends a conversation's workspace, keeping a tombstone record (`released`;
 * the gate then answers `WORKSPACE_RELEASED`). Nothing is ever cleaned up automatically.
 *
 * - `worktree`: refused while `git status` shows changes (`DIRTY_WORKTREE`, data.files);
 *   a clean worktree is removed with `git worktree remove` (no force).
 * - `copy`: refused while the copy holds changes (`DIRTY_WORKTREE`); an unchanged copy's folder
 *   is removed.
 * - `shared`: only the registration ends.
 * - `deleteBranch`: the branch is deleted only when `git merge-base --is-ancestor` proves it
 *   is merged into the base ref, and only while it still points where it was checked
 *   (compare-and-delete); otherwise it is kept and `branchKeptReason` says why.
 *
 * Errors: `WorkspaceError` `UNKNOWN_CONVERSATION`, `BUSY` (being prepared), `DIRTY_WORKTREE`,
 * `PREPARATION_FAILED` never. Releasing a released workspace only retries the branch step.
 */
import type { GitContext } from '../git/git-port.js';
import type { WorkspaceRecord } from '../state/workspace-table.js';
import { OVERLAY_META } from '../../vfs/whiteout-set.js';
import { WorkspaceError } from '../workspace-error.js';
import type { ReleaseOptions, ReleaseResult } from './types.js';
import type { HostContext } from './host-context.js';
import { closeView, registrationOf } from './registration.js';

/** Releases one workspace (see the file comment). Result: what was removed and why a branch was kept. */
export async function releaseWorkspace(
  ctx: HostContext,
  conversation: string,
  options: ReleaseOptions,
  chain: readonly string[],
): Promise<ReleaseResult> {
  const record = ctx.store.getWorkspace(conversation);
  if (!record || record.state === 'failed') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
  }
  const token = ctx.ids.next('release');
  if (record.state === 'preparing' || !ctx.store.tryLockPreparation(conversation, { pid: ctx.pid, token })) {
    throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation });
  }
  const context: GitContext = { tag: 'release', chain: [...chain, conversation] };
  try {
    let removed = false;
    if (record.state !== 'released') {
      removed = await removeCheckout(ctx, record, context);
      const released = ctx.store.updateWorkspace(conversation, { state: 'released' });
      ctx.registry.set(registrationOf(released, 'released'));
    }
    const branch = await branchStep(ctx, record, options, context);
    const result: ReleaseResult = { conversation, removed, ...branch };
    ctx.store.appendEvent({ type: 'release', conversation, data: { ...result, backend: record.backend } });
    return result;
  } finally {
    ctx.store.unlockPreparation(conversation, token);
  }
}

async function removeCheckout(ctx: HostContext, record: WorkspaceRecord, context: GitContext): Promise<boolean> {
  const { platform } = ctx;
  const path = record.checkoutPath;
  if (record.backend === 'shared' || !path || !platform.exists(path)) {
    closeView(ctx, record.conversation);
    if (record.backend === 'worktree') await platform.git.pruneWorktrees(context);
    return false;
  }
  const dirty =
    record.backend === 'worktree'
      ? await platform.git.dirtyFiles(path, context)
      : platform.listFiles(path).map((f) => (f.startsWith(`${OVERLAY_META}/`) ? '(deleted files)' : f)).filter((f, i, all) => all.indexOf(f) === i);
  if (dirty.length > 0) {
    const shown = dirty.slice(0, 20).join(', ') + (dirty.length > 20 ? `, … (${dirty.length} in all)` : '');
    ctx.store.appendEvent({ type: 'release.refused', conversation: record.conversation, data: { code: 'DIRTY_WORKTREE', files: dirty } });
    throw new WorkspaceError('DIRTY_WORKTREE', `conversation '${record.conversation}' has uncommitted changes: ${shown}`, {
      conversation: record.conversation,
      files: dirty,
    });
  }
  closeView(ctx, record.conversation);
  if (record.backend === 'worktree') await platform.git.removeWorktree(path, context);
  else platform.removeFolder(path);
  return true;
}

async function branchStep(
  ctx: HostContext,
  record: WorkspaceRecord,
  options: ReleaseOptions,
  context: GitContext,
): Promise<Pick<ReleaseResult, 'branchDeleted' | 'branchKeptReason'>> {
  if (!record.branch) return { branchDeleted: false };
  if (!options.deleteBranch) return { branchDeleted: false, branchKeptReason: 'deleteBranch was not asked for' };
  const { git } = ctx.platform;
  const head = await git.branchHead(record.branch, context);
  if (head === null) return { branchDeleted: false, branchKeptReason: `branch ${record.branch} does not exist` };
  const baseRef = record.baseRef ?? 'HEAD';
  let base: string;
  try {
    base = await git.resolveCommit(baseRef, context);
  } catch {
    return { branchDeleted: false, branchKeptReason: `the base ref '${baseRef}' no longer names a commit` };
  }
  if (!(await git.isAncestor(head, base, context))) {
    return { branchDeleted: false, branchKeptReason: `branch ${record.branch} (${head.slice(0, 12)}) is not merged into ${baseRef} (${base.slice(0, 12)})` };
  }
  await git.deleteBranch(record.branch, head, context);
  return { branchDeleted: true };
}
