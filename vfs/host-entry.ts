/**
 * The one place a name is joined to a held folder's host path, and the one confined open of a
 * file for reading: used by the host layer (vfs/host-walk.ts `at`, vfs/host-layer.ts reads) and
 * by the pool's read program in other threads (vfs/host-read-program.ts), so both open and check
 * a file the same way.
 *
 * `entryPath` itself refuses a name that is not one safe component (empty, `.`, `..`, a `/`, a
 * NUL) with `BAD_NAME`: no caller can hand the kernel a joined path or a climb out of the held
 * folder, whatever checks it made (or forgot) before. The folder's part, `base`, is the walk's
 * (`/proc/self/fd/<fd>` under the procfs guarantee), never a caller's.
 */
import { constants, fstatSync, openSync } from 'node:fs';
import { VfsError } from './errors.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** A held folder as a name is joined to it: the host prefix of its children and its layer path (for errors). */
interface EntryFolder {
  /** Host path prefix of the children (vfs/host-walk.ts `HeldDir.base`). */
  readonly base: string;
  /** Layer-relative path of the folder ('' for the root). */
  readonly rel: string;
}

/** True when `name` is one entry name: a non-empty string without '/' or NUL that is not '.' or '..'. */
export function isEntryName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

/**
 * The host path of the entry `name` of `dir`: `<base>/<name>`. `BAD_NAME` (at the folder's
 * layer path, under `op`) when `name` is not one entry name (`isEntryName`).
 */
export function entryPath(dir: EntryFolder, name: string, op = 'open'): string {
  if (!isEntryName(name)) throw new VfsError('BAD_NAME', op, dir.rel, 'not the name of an entry of the folder');
  return `${dir.base}/${name}`;
}

/**
 * Opens the entry `name` of `dir` for reading with `O_RDONLY | O_NOFOLLOW | O_NONBLOCK`: a link
 * fails the open (`ELOOP`), a FIFO never blocks it. Throws `BAD_NAME` (`entryPath`) or the
 * system call's own error (the caller turns it into a `VfsError` at its layer path). The caller
 * owns the returned handle.
 */
export function openEntryForReading(dir: EntryFolder, name: string): number {
  return openSync(entryPath(dir, name, 'read'), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
}

/**
 * The size of the open handle `fd`, checked on the handle to be a regular file: `IS_DIRECTORY`,
 * `NOT_REGULAR_FILE` (FIFO, socket, device) at the layer path `path`. Never reads.
 */
export function regularFileSize(fd: number, path: string): number {
  const st = fstatSync(fd);
  if (st.isDirectory()) throw new VfsError('IS_DIRECTORY', 'read', path);
  if (!st.isFile()) throw new VfsError('NOT_REGULAR_FILE', 'read', path);
  return st.size;
}
