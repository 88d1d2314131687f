/**
 * `hostLockKey`: the lock key (vfs/lock-key.ts) of a host file — the `(dev, ino)` of the folder
 * that holds it plus its name. Any route to the file (another layer object over the same root,
 * a mount of a sub-folder, another process) walks to the same folder inode, so all of them get
 * one key; keys stay right when a root folder is renamed or reached through a bind mount.
 *
 * The walk goes through `ConfinedWalk` like every other operation (no link followed). When a
 * folder on the way does not exist yet (a write that will create parents), the key is the
 * deepest existing folder plus the rest of the path; when the way is blocked by a file or a
 * link, the same (the write will fail there anyway). Limits: on a case-insensitive file system
 * two spellings of one name get two keys; a file hard-linked under two names gets two keys
 * (writes replace the name, never the shared inode, so neither loses the other's update); a
 * folder on the way swapped by another program between the key and the write puts two writers
 * under two keys (the compare-and-swap of tools/swap-file.ts still catches that for edits).
 */
import { isVfsError } from './errors.js';
import type { ConfinedWalk, HeldDir } from './host-walk.js';
import { layerSegments } from './host-names.js';
import { HOST_FILES, type LockKey } from './lock-key.js';

/** The key of `path` below the walk's root. `INTERNAL` when the layer is closed; `BUSY` without descriptors. */
export function hostLockKey(walk: ConfinedWalk, path: string): LockKey {
  const segments = layerSegments(path, 'lock');
  walk.checkOpen('lock', path);
  let held: HeldDir = walk.root;
  let depth = 0;
  try {
    // The name itself is never opened: only the folders leading to it.
    for (; depth < segments.length - 1; depth++) {
      let next: HeldDir;
      try {
        next = walk.openDir(held, segments[depth], 'lock', false);
      } catch (e) {
        if (isVfsError(e, 'NOT_FOUND') || isVfsError(e, 'NOT_DIRECTORY') || isVfsError(e, 'SYMLINK_ESCAPE')) break;
        throw e;
      }
      if (held !== walk.root) walk.release([held]);
      held = next;
    }
    const folder = walk.identity(held, 'lock');
    return { scope: HOST_FILES, id: `${folder.dev}:${folder.ino}/${segments.slice(depth).join('/')}` };
  } finally {
    if (held !== walk.root) walk.release([held]);
  }
}
