/**
 * Checks of the names the landing port hands to git: full refs, commit SHAs, remote and branch
 * names. Each throws `GitError('BAD_REF')` before any process runs, so nothing a caller passes
 * can be read by git as an option or as a revision expression (`main~1`, `@{-1}`, `:/text`).
 */
import { GitError } from './git-port.js';
import type { GitIdentity } from './landing-git.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
// check-ref-format: no control characters, space, ~ ^ : ? * [ \ and no DEL.
const FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]/;

/** Throws `BAD_REF` unless `sha` is a full lowercase object name (40 hex, or 64 for SHA-256). */
export function assertSha(sha: string, operation: string): void {
  if (!SHA.test(sha)) throw new GitError('BAD_REF', operation, `'${sha.slice(0, 80)}' is not a full commit SHA`);
}

/**
 * True when `ref` is a full ref name (`refs/…`) that `git check-ref-format` accepts: components
 * non-empty, none starting with `.` or ending with `.lock`, no `..`, no `@{`, not ending with `.`,
 * none of the forbidden characters, at most 1,024 bytes.
 */
function isFullRefName(ref: string): boolean {
  if (!ref.startsWith('refs/') || ref.length > 1024) return false;
  if (FORBIDDEN.test(ref) || ref.includes('..') || ref.includes('@{') || ref.endsWith('.')) return false;
  return ref.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** Throws `BAD_REF` unless `ref` is a full ref name (see `isFullRefName`). */
export function assertFullRef(ref: string, operation: string): void {
  if (!isFullRefName(ref)) throw new GitError('BAD_REF', operation, `'${ref.slice(0, 80)}' is not a full ref name`);
}

/**
 * Throws `BAD_REF` unless `remote` is a configured-remote name (not a URL or a path: it must
 * not start with `-` and `refs/remotes/<remote>/<branch>` must be a valid ref) and `branch` a
 * short branch name (`refs/heads/<branch>` valid). Result: the remote-tracking ref.
 */
export function remoteTrackingRef(remote: string, branch: string, operation: string): string {
  const tracking = `refs/remotes/${remote}/${branch}`;
  if (remote.startsWith('-') || remote === '' || branch === '' || !isFullRefName(tracking) || !isFullRefName(`refs/heads/${branch}`)) {
    throw new GitError('BAD_REF', operation, `'${remote.slice(0, 80)}' '${branch.slice(0, 80)}' is not a remote name and a branch name`);
  }
  return tracking;
}

/**
 * Throws `COMMAND_FAILED` (operation `commit`) for an identity git would rewrite or refuse — a
 * name or email that is blank or holds NUL, a newline, `<` or `>` — or a time that is not a
 * number. `role` names which one in the message.
 */
export function assertSignature(who: GitIdentity, role: 'author' | 'committer', timeMs: number): void {
  for (const part of [who.name, who.email]) {
    if (part.trim() === '' || /[\0\n<>]/.test(part))
      throw new GitError('COMMAND_FAILED', 'commit', `'${part.slice(0, 80)}' is not a usable ${role} name or email`);
  }
  if (!Number.isFinite(timeMs)) throw new GitError('COMMAND_FAILED', 'commit', 'the commit time is not a number');
}
