/**
 * `recoverRelease`: finishes or undoes a release that stopped half-way — its process crashed
 * or was killed — as its durable record says (`release-record.ts`), never guessing:
 *
 * - step `checking` (nothing removed yet): undone — the pending release is cleared, its
 *   occupancy ended, and the workspace registered `ready` again;
 * - step `removing` (the check had passed, or `discard` was asked): finished — the rest of the
 *   checkout is removed the confined way (`<stateDir>/worktrees/<id>`; a copy's lower folder,
 *   and its upper folder only if it holds no file unless `discard`; an empty backend's scratch folder
 *   the same way), git forgets the worktree, the record becomes
 *   `released`. Gatefs writes were held off since the check, but another program may have
 *   written: without `discard`, work found in what is left (changed, untracked or ignored
 *   files still present) undoes the release instead, as do a check that fails and a failed
 *   removal; the workspace then serves what is left.
 *
 * The caller holds the conversation's preparation lock (the lock the interrupted release held,
 * taken over from its dead process). Each outcome is a run-log event (`release.undone`,
 * `release.finished`). Result: the record afterwards. Never throws for the removal; the
 * record and registry updates may throw what the store throws.
 */
import type { GitContext } from '../../git/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { closeView, registerReady, registrationOf, type RegistrationParts } from './registration.js';
import { pendingReleaseOf, withPendingRelease, type PendingRelease } from './release-record.js';
import { removeScratchFolder, removeWorktreeOf } from './rollback-preparation.js';
import type { HostPlatform } from '../platform/index.js';
import { checkoutOf } from '../platform/index.js';
import { worktreeWorkFiles } from './worktree-work-files.js';
import { endBindingsOf } from './end-bindings.js';

/** Finishes or undoes the interrupted release recorded in `record` (see the file comment). */
export async function recoverRelease(parts: RegistrationParts, record: WorkspaceRecord, context: GitContext): Promise<WorkspaceRecord> {
  const pending = pendingReleaseOf(record);
  if (!pending) return record;
  if (record.state !== 'ready' || pending.step === 'checking') return undo(parts, record, pending, null);
  const { conversation } = record;
  let appeared: string[];
  try {
    appeared = pending.discard ? [] : await workThatAppeared(parts.platform, record, context);
  } catch (e) {
    return undo(parts, record, pending, e);
  }
  if (appeared.length > 0)
    return undo(parts, record, pending, new Error(`work appeared after the check: ${appeared.slice(0, 5).join(', ')}`));
  parts.registry.set(registrationOf(record, 'preparing'));
  closeView(parts.views, conversation);
  try {
    if (record.backend === 'worktree') await removeWorktreeOf(parts.platform, conversation, context);
    else if (record.backend === 'copy') {
      await parts.lowers?.remove(conversation);
      parts.platform.removeWorkspaceFolder('copies', conversation, { onlyIfEmpty: !pending.discard });
    } else if (record.backend === 'empty') removeScratchFolder(parts.platform, conversation, !pending.discard);
  } catch (e) {
    return undo(parts, record, pending, e);
  }
  const released = parts.store.transaction(() => {
    const done = parts.store.workspaces.update(conversation, { state: 'released', data: withPendingRelease(record.data, null) });
    parts.store.occupancy.release(conversation, pending.holder);
    return done;
  });
  parts.registry.set(registrationOf(released, 'released'));
  endBindingsOf(parts.store, conversation);
  parts.store.runLog.append({
    type: 'release.finished',
    conversation,
    data: { holder: pending.holder, discard: pending.discard, backend: record.backend },
  });
  return released;
}

/**
 * Files of a half-removed worktree that are work and still there (changed, untracked, ignored
 * — not the tracked files the interrupted removal already deleted): something wrote them after
 * the check, outside gatefs. When git cannot tell because the removal took the `.git` file,
 * none. Any other failure of the check is thrown (the caller undoes the release): a git that
 * could not answer has not said the folder holds no work.
 */
async function workThatAppeared(platform: HostPlatform, record: WorkspaceRecord, context: GitContext): Promise<string[]> {
  if (record.backend !== 'worktree') return [];
  const path = checkoutOf(platform, record.conversation, 'worktree');
  if (platform.folderState(path) !== 'folder') return [];
  if (platform.folderState(platform.join(path, '.git')) === 'missing') return [];
  const dirty = await worktreeWorkFiles(platform, path, context);
  return dirty.filter((f) => platform.folderState(platform.join(path, f.replace(/\/$/, ''))) !== 'missing');
}

function undo(parts: RegistrationParts, record: WorkspaceRecord, pending: PendingRelease, failure: unknown): WorkspaceRecord {
  const { conversation } = record;
  const cleared = parts.store.transaction(() => {
    const now = parts.store.workspaces.update(conversation, { data: withPendingRelease(record.data, null) });
    parts.store.occupancy.release(conversation, pending.holder);
    return now;
  });
  const problem = failure ? { problem: (failure as Error).message ?? String(failure) } : {};
  parts.store.runLog.append({ type: 'release.undone', conversation, data: { holder: pending.holder, step: pending.step, ...problem } });
  if (cleared.state === 'ready') {
    try {
      registerReady(parts, cleared);
    } catch (e) {
      parts.registry.delete(conversation);
      parts.store.runLog.append({ type: 'recover.unavailable', conversation, data: { message: (e as Error).message } });
    }
  }
  return cleared;
}
