/**
 * The refusal every trust check of the state directory throws — `WorkspaceError`
 * `STATE_UNTRUSTED` with data.stateDir, data.reason, what was found and a hint naming the way
 * out — and the names of what gatefs keeps there.
 */
import { lstatSync, type Stats } from 'node:fs';
import { foreignCodeOf } from '../../../vfs/index.js';
import { WorkspaceError, type WorkspaceErrorReason } from '../../workspace-error.js';

/** The database file inside the state directory. */
export const DATABASE_FILE = 'gatefs.db';
/** The proof-of-origin file inside the state directory. */
export const ORIGIN_FILE = 'gatefs.origin';

/** `STATE_UNTRUSTED` for `stateDir`: `found` and `hint` make the message (see the file comment). */
export function untrustedState(
  stateDir: string,
  reason: WorkspaceErrorReason,
  found: string,
  hint: string,
  extra: Record<string, unknown> = {},
): WorkspaceError {
  return new WorkspaceError('STATE_UNTRUSTED', `${found}. To go on: ${hint}`, { stateDir, reason, found, hint, ...extra });
}

/** The hint for a state directory that must be set aside for a fresh one. */
export function moveAsideHint(stateDir: string): string {
  return `move it aside (mv '${stateDir}' '${stateDir}.old'), run 'git worktree prune', and run gatefs again: it creates a fresh state directory; prepare conversations again (their branches, with every commit, are kept; files in the old worktrees stay in '${stateDir}.old')`;
}

/** `lstat` of `path`, or null when nothing is there (`ENOENT`); any other failure is thrown. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if (foreignCodeOf(e) === 'ENOENT') return null;
    throw e;
  }
}
