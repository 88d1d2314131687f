/**
 * Refs of a memfs repository read and swapped synchronously, so a compare-and-swap is atomic
 * with respect to every other async task sharing the volume (JavaScript runs one synchronous
 * stretch at a time). Layout as git's: a loose ref is the file `<gitdir>/<ref>` holding the SHA
 * and a newline (isomorphic-git writes loose refs only, and nothing in the memory host packs
 * them). A symbolic ref (`ref: refs/heads/x`) is followed up to five levels; a ref file that
 * holds neither is read as absent, as git reads a broken ref (with a warning).
 */
import type { Volume } from 'memfs';
import { isMissingPath } from '../ports/index.js';
import { GitError } from './git-port.js';

type Vol = InstanceType<typeof Volume>;

const SHA = /^[0-9a-f]{40}$/;

/** The SHA a ref (or a HEAD file's ref) names in the repository at `gitdir`, or null when absent. */
export function readRefSync(volume: Vol, gitdir: string, ref: string, depth = 0): string | null {
  // A folder at the ref's name holds other refs (`refs/heads/gatefs/` of `gatefs/x`): no ref here.
  if (isFolder(volume, `${gitdir}/${ref}`)) return null;
  const value = readText(volume, `${gitdir}/${ref}`);
  if (value === null) return null;
  if (value.startsWith('ref: ')) return depth >= 5 ? null : readRefSync(volume, gitdir, value.slice(5), depth + 1);
  return SHA.test(value) ? value : null;
}

/**
 * Moves `ref` from `expected` (null: the ref must not exist) to `next` (null: delete it), or
 * changes nothing and returns where the ref is. Result: null on success, else `{ head }`, the
 * SHA the ref names now (null when absent). The read and the write happen in one synchronous
 * stretch. `COMMAND_FAILED` as `writeRefSync`.
 */
export function swapRefSync(
  volume: Vol,
  gitdir: string,
  ref: string,
  expected: string | null,
  next: string | null,
): { head: string | null } | null {
  const current = readRefSync(volume, gitdir, ref);
  if (current !== expected) return { head: current };
  if (next === null) volume.unlinkSync(`${gitdir}/${ref}`);
  else writeRefSync(volume, gitdir, ref, next);
  return null;
}

/**
 * Creates or moves `ref` (a full `refs/…` name) to `sha`, no compare. `COMMAND_FAILED` for a
 * name outside `refs/`, with `..`, or a value that is not a full SHA.
 */
export function writeRefSync(volume: Vol, gitdir: string, ref: string, sha: string): void {
  if (!ref.startsWith('refs/') || ref.includes('..') || ref.endsWith('/') || !SHA.test(sha)) {
    throw new GitError('COMMAND_FAILED', 'update-ref', `refusing to write '${ref}' = '${sha}'`);
  }
  const path = `${gitdir}/${ref}`;
  volume.mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
  volume.writeFileSync(path, `${sha}\n`);
}

/**
 * The trimmed content of a small text file, or null when nothing is there (`isMissingPath`).
 * Any other failure to read (a folder at the path, …) throws: it is not an absent file.
 */
export function readText(volume: Vol, path: string): string | null {
  try {
    return String(volume.readFileSync(path, 'utf8')).trim();
  } catch (e) {
    if (isMissingPath(e)) return null;
    throw e;
  }
}

function isFolder(volume: Vol, path: string): boolean {
  try {
    return volume.lstatSync(path).isDirectory();
  } catch (e) {
    if (isMissingPath(e)) return false;
    throw e;
  }
}
