/**
 * `checkRequestedPath`: the request-time check of one `request_files` path, done before the
 * workspace changes and without spawning anything (the pinned commit is read through the git
 * object reader). In order:
 *
 * 1. the VFS path grammar, in the conversation's namespace (relative to the workspace or a
 *    `/worktrees/<id>/…` path): `BAD_NAME`, `NAME_TOO_LONG`, `PATH_ESCAPE`, `OUTSIDE_MOUNTS`;
 * 2. it must name something inside the workspace root: the root itself is `IS_DIRECTORY`,
 *    another mount (`/data/out/x`) is `NOT_FOUND`; `.git` is `PROTECTED_PATH`; a name holding
 *    a line break is `BAD_NAME` (git's sparse patterns cannot express it);
 * 3. the policy: outside every `allowed_paths` root is `NOT_FOUND`, whether or not the file
 *    exists (no existence oracle);
 * 4. the pinned commit: a folder is `IS_DIRECTORY` (a request names exact files, never a
 *    tree); absent is `NOT_FOUND`, a symlink or submodule `NOT_REGULAR_FILE`, an unreadable
 *    object store `INTERNAL` (`BUSY` when out of descriptors), never `NOT_FOUND`, with what
 *    failed in the problem's `detail` for the run log.
 * Steps 1–3 and a folder are `denied` (the request itself is wrong); the rest of step 4 is
 * `unavailable` (the request was fine, the snapshot cannot serve it).
 */
import { isDescriptorShortage, isVfsError } from '../../vfs/index.js';
import type { Namespace } from '../../vfs/index.js';
import { isSparseExpressible } from '../git/index.js';
import { isRequestable } from './disclosure-policy.js';
import type { DisclosureProblem } from '../../tools/index.js';
import { isToolErrorCode } from '../../tools/index.js';
import { errorDetail, shorten, type RecordedProblem } from './disclosure-record.js';
import type { PinnedSnapshot } from './pinned-snapshot.js';

/** A path that passed: its repository-relative form. */
interface CheckedPath {
  ok: true;
  path: string;
}

/** A path that failed, and whether that denies the request or makes it unavailable. */
interface RefusedPath {
  ok: false;
  verdict: 'denied' | 'unavailable';
  problem: RecordedProblem;
}

/** Checks one requested path (see the module comment). Never throws for a bad path. */
export async function checkRequestedPath(
  raw: string,
  namespace: Namespace,
  allowedPaths: readonly string[],
  snapshot: PinnedSnapshot,
): Promise<CheckedPath | RefusedPath> {
  const shown = shorten(raw);
  const deny = (code: DisclosureProblem['code'], message: string): RefusedPath => ({
    ok: false,
    verdict: 'denied',
    problem: { path: shown, code, message },
  });
  const unavailable = (code: DisclosureProblem['code'], message: string): RefusedPath => ({
    ok: false,
    verdict: 'unavailable',
    problem: { path: shown, code, message },
  });
  let resolved;
  try {
    resolved = namespace.resolve(raw, 'request_files');
  } catch (e) {
    if (isVfsError(e)) return deny(isToolErrorCode(e.code) ? e.code : 'INTERNAL', e.detail);
    throw e;
  }
  const root = namespace.root;
  if (resolved.path === root) return deny('IS_DIRECTORY', 'the workspace root is a folder; request exact files');
  if (!resolved.path.startsWith(`${root}/`)) return deny('NOT_FOUND', 'request_files discloses files of the workspace only');
  const path = resolved.path.slice(root.length + 1);
  if (namespace.isProtected(resolved)) return deny('PROTECTED_PATH', 'protected paths (.git) are never disclosed');
  if (!isSparseExpressible(path)) return deny('BAD_NAME', 'a file name holding a line break cannot be disclosed');
  if (!isRequestable(path, allowedPaths)) return deny('NOT_FOUND', "no such file under the role's allowed paths");
  let type;
  try {
    type = await snapshot.entryType(path);
  } catch (e) {
    const refused = unavailable(isDescriptorShortage(e) ? 'BUSY' : 'INTERNAL', 'the pinned commit could not be read');
    return { ...refused, problem: { ...refused.problem, detail: errorDetail(e) } };
  }
  if (type === null) return unavailable('NOT_FOUND', 'the pinned commit has no such file');
  if (type === 'directory') return deny('IS_DIRECTORY', 'this is a folder; request the exact files you need');
  if (type !== 'file')
    return unavailable('NOT_REGULAR_FILE', 'in the pinned commit this is a symbolic link or submodule, not a regular file');
  return { ok: true, path };
}
