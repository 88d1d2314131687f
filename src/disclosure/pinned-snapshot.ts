/**
 * `PinnedSnapshot`: what the disclosure check asks of the pinned commit — the type of the
 * entry at a path, the files below a folder, and a file's bytes — answered from git objects
 * through a `GitObjectReader` (a read-only `GitTreeLayer`). It never spawns a process and
 * never looks at the integration checkout's current files, so a file changed there after
 * pinning is still answered from the commit.
 *
 * Looking up a path reads only the trees on its way (cached by the reader); no blob is read
 * to classify a path.
 */
import type { GitObjectReader } from '../../vfs/index.js';
import { isVfsError } from '../../vfs/index.js';
import { gitTreeLayer, type GitTreeLayer } from '../../vfs/index.js';
import { baseName, childPath, parentPath, type EntryType } from '../../vfs/index.js';

/** Folder lookups that mean "no entry here" rather than a broken object store. */
const ABSENT = new Set(['NOT_FOUND', 'NOT_DIRECTORY', 'SYMLINK_ESCAPE']);

export class PinnedSnapshot {
  private readonly tree: GitTreeLayer;

  /** @param objects the object store  @param commit the pinned commit (full SHA) */
  constructor(
    objects: GitObjectReader,
    readonly commit: string,
  ) {
    this.tree = gitTreeLayer(objects, commit);
  }

  /**
   * The type of the entry at a repository-relative path (`file` for 100644/100755 blobs,
   * `symlink`, `directory`, `other` for submodules), or null when the commit has none.
   * Throws `VfsError` `INTERNAL` when the object store cannot be read.
   */
  async entryType(path: string): Promise<EntryType | null> {
    if (path === '') return 'directory';
    try {
      const entries = await this.tree.readdir(parentPath(path));
      return entries.find((e) => e.name === baseName(path))?.type ?? null;
    } catch (e) {
      if (isVfsError(e) && ABSENT.has(e.code)) return null;
      throw e;
    }
  }

  /** Every file and symlink below a folder of the commit (repository-relative), sorted. */
  async filesBelow(folder: string): Promise<string[]> {
    const out: string[] = [];
    const pending = [folder];
    while (pending.length > 0) {
      const dir = pending.pop()!;
      for (const e of await this.tree.readdir(dir)) {
        const path = childPath(dir, e.name);
        if (e.type === 'directory') pending.push(path);
        else if (e.type === 'file' || e.type === 'symlink') out.push(path);
      }
    }
    return out.sort();
  }

  /**
   * The bytes of a regular file of the commit and whether git records it executable (100755).
   * Throws `VfsError` `NOT_FOUND` or `NOT_REGULAR_FILE` for anything else, `INTERNAL` when
   * the object store cannot be read.
   */
  async readBlob(path: string): Promise<{ bytes: Uint8Array; executable: boolean }> {
    const bytes = await this.tree.readFile(path);
    // After the read, stat finds the size cached and reads no blob again.
    const stat = await this.tree.stat(path);
    return { bytes, executable: (stat.mode & 0o111) !== 0 };
  }
}
