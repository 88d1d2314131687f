/**
 * `isMissingPath`: the one test, for the host's own file-system calls (node:fs or memfs), of an
 * error that means "nothing is at this path": `ENOENT`, or `ENOTDIR` (a part of the path is a
 * file, so nothing can be below it). Every other error (`ELOOP`, `EACCES`, `EIO`, `EMFILE`, …)
 * is a failure to look, never an answer that the path is absent: callers rethrow it.
 */
import { foreignCodeOf } from '../../vfs/index.js';

/** True when `e` is a file-system error saying the path does not exist (see the file comment). */
export function isMissingPath(e: unknown): boolean {
  const code = foreignCodeOf(e);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
