/**
 * `materializeFiles`: puts approved files into a sparse worktree — the preparation-side step
 * of an approved `request_files`.
 *
 * 1. Each file's bytes (and executable bit) are read from the pinned commit through the git
 *    object reader and written through the worktree's confined root layer (the same handle
 *    walk every tool write uses: no symlink is followed, parents are created inside the
 *    worktree only). A file already on disk there is replaced.
 * 2. The exact-path patterns are recorded through the git port (`addSparsePatterns`), so git
 *    keeps the files checked out; git 2.37+ then treats them as ordinary tracked files.
 * Files are written before patterns are recorded: a crash in between leaves files a reapply
 * would remove, never patterns a reapply would check out. On a failure the files this call
 * wrote are removed again (best effort) and the error is rethrown.
 */
import type { GitContext, GitPort } from '../git/git-port.js';
import { isVfsError } from '../../vfs/errors.js';
import { parentPath, type WritableLayer } from '../../vfs/layer.js';
import type { PinnedSnapshot } from './pinned-snapshot.js';

/** What `materializeFiles` works on. */
export interface MaterializeTarget {
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
  try {
    for (const path of paths) {
      const { bytes, executable } = await target.snapshot.readBlob(path);
      await makeParents(target.root, path);
      await target.root.writeFile(path, bytes, { mode: executable ? 0o755 : 0o644 });
      written.push(path);
    }
    await target.git.addSparsePatterns(target.checkoutPath, paths, target.context);
  } catch (e) {
    for (const path of written) await target.root.remove(path).catch(() => undefined);
    throw e;
  }
}

async function makeParents(root: WritableLayer, path: string): Promise<void> {
  const parent = parentPath(path);
  if (parent === '') return;
  let dir = '';
  for (const seg of parent.split('/')) {
    dir = dir === '' ? seg : `${dir}/${seg}`;
    try {
      await root.mkdir(dir);
    } catch (e) {
      if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
    }
  }
}
