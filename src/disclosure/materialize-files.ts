/**
 * `materializeFiles`: puts approved files into a sparse worktree — the preparation-side step
 * of an approved `request_files`.
 *
 * 1. Each file's bytes (and executable bit) are read from the pinned commit through the git
 *    object reader and written through the worktree's confined root layer (the same handle
 *    walk every tool write uses: no symlink is followed, parents are created inside the
 *    worktree only). A file already on disk there is replaced. Like git's checkout, the
 *    bytes are not fsynced: the object store can always produce them again.
 * 2. The exact-path patterns are recorded through the git port (`addSparsePatterns`), so git
 *    keeps the files checked out; git 2.37+ then treats them as ordinary tracked files.
 * Files are written before patterns are recorded: a crash in between leaves files a reapply
 * would remove, never patterns a reapply would check out. On a failure the files this call
 * wrote are removed again (best effort) and the error is rethrown.
 */
import type { GitContext, GitPort } from '../git/index.js';
import { isVfsError } from '../../vfs/index.js';
import { parentPath, type WritableLayer } from '../../vfs/index.js';
import type { PinnedSnapshot } from './pinned-snapshot.js';

/** What `materializeFiles` works on. */
interface MaterializeTarget {
  /** The worktree's root layer (confined, writable), not the projection. */
  root: WritableLayer;
  snapshot: PinnedSnapshot;
  git: Pick<GitPort, 'addSparsePatterns'>;
  /** The worktree folder (a host path, for the git port only). */
  checkoutPath: string;
  context: GitContext;
}

/** Writes `paths` from the pinned commit and records them as checked out (see the module comment). */
export async function materializeFiles(target: MaterializeTarget, paths: readonly string[]): Promise<void> {
  const written: string[] = [];
  const folders = new Set<string>();
  try {
    // Reads overlap well (object-store I/O); a request names at most 64 files.
    const blobs = await Promise.all(paths.map((p) => target.snapshot.readBlob(p)));
    for (const [i, path] of paths.entries()) {
      const { bytes, executable } = blobs[i];
      await makeParents(target.root, path, folders);
      await target.root.writeFile(path, bytes, { mode: executable ? 0o755 : 0o644, durable: false });
      written.push(path);
    }
    await target.git.addSparsePatterns(target.checkoutPath, paths, target.context);
  } catch (e) {
    for (const path of written) await target.root.remove(path).catch(() => undefined);
    throw e;
  }
}

/** Creates the folders leading to `path`, skipping those this call already made or met. */
async function makeParents(root: WritableLayer, path: string, known: Set<string>): Promise<void> {
  const parent = parentPath(path);
  if (parent === '' || known.has(parent)) return;
  let dir = '';
  for (const seg of parent.split('/')) {
    dir = dir === '' ? seg : `${dir}/${seg}`;
    if (known.has(dir)) continue;
    try {
      await root.mkdir(dir);
    } catch (e) {
      if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
    }
    known.add(dir);
  }
}
