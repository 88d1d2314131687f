/**
 * Step 3 of a release (release-workspace.ts): the checkout removed. A clean worktree with `git
 * worktree remove` (no force: git checks once more); a discarded one by the confined removal of
 * `<stateDir>/worktrees/<id>` and `git worktree prune`; a copy's lower folder
 * `<stateDir>/lowers/<id>` (no work; a build of it is stopped first) and its upper folder
 * `<stateDir>/copies/<id>` the confined way (only empty folders unless `discard`); an empty
 * backend's scratch folder `<stateDir>/scratch/<id>` the same way. `shared`:
 * nothing is removed. Paths are derived, never read from the record.
 */
import { isGitError, type GitContext } from '../../git/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { checkoutOf } from '../platform/index.js';
import { dirtyRefusal } from './dirty-refusal.js';
import type { RegistrationParts } from './registration.js';
import { removeScratchFolder, removeWorktreeOf } from './rollback-preparation.js';
import { worktreeWorkFiles } from './worktree-work-files.js';

/**
 * Removes `record`'s checkout (see the file comment). Result: true when a folder was removed.
 * Throws `DIRTY_WORKTREE` when git finds work that appeared after the check, `STATE_UNTRUSTED`
 * for a link, and what git throws.
 */
export async function removeCheckout(
  parts: Pick<RegistrationParts, 'platform' | 'lowers' | 'store'>,
  record: WorkspaceRecord,
  discard: boolean,
  context: GitContext,
): Promise<boolean> {
  const { platform } = parts;
  const { conversation } = record;
  if (record.backend === 'shared') return false;
  if (record.backend === 'empty') return removeScratchFolder(platform, conversation, !discard);
  if (record.backend === 'copy') {
    // The lower folder holds no work (the pinned commit, checked out): it goes first, always;
    // so do the scratch folders of its commands (their changes were kept when each ended).
    await parts.lowers?.remove(conversation);
    if (platform.folderState(platform.join(platform.stateDir, 'exec')) === 'folder') platform.removeWorkspaceFolder('exec', conversation);
    return platform.removeWorkspaceFolder('copies', conversation, { onlyIfEmpty: !discard });
  }
  const path = checkoutOf(platform, conversation, 'worktree');
  if (platform.folderState(path) === 'missing') {
    await platform.git.pruneWorktrees(context);
    return false;
  }
  if (discard) {
    await removeWorktreeOf(platform, conversation, context);
    return true;
  }
  const known = (await platform.git.listWorktrees(context)).some((w) => platform.relativeInside(w.path, path) === '');
  if (!known) return platform.removeWorkspaceFolder('worktrees', conversation, { onlyIfEmpty: true });
  try {
    await platform.git.removeWorktree(path, context);
  } catch (e) {
    if (platform.folderState(path) === 'missing') {
      // The folder went and only git's bookkeeping failed: the release is done; git forgets it.
      await platform.git.pruneWorktrees(context).catch(() => undefined);
      return true;
    }
    // git looked once more and found work that appeared after the check: name it.
    if (isGitError(e)) {
      const now = await worktreeWorkFiles(platform, path, context).catch(() => []);
      if (now.length > 0) throw dirtyRefusal(parts, record, now);
    }
    throw e;
  }
  return true;
}
