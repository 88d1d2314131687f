/**
 * `SnapshotFolderLayer`: a read-only view of a folder that holds one commit's tree checked out
 * byte for byte (a `copy` workspace's lower folder), showing exactly what `GitTreeLayer` shows
 * for that commit: the same names, types, bytes, link targets and sizes, and the same metadata —
 * mode 0o644 or 0o755 for a file (its executable bit), 0o755 for a folder, 0o777 for a link,
 * 0o644 for anything else, mtime 0 — whatever the folder's own modes and times are. So a
 * `SwitchableLayer` can move from the git-tree layer to this one between two calls without any
 * caller seeing a difference (only the speed: the inner layer is a host folder).
 *
 * Everything else is the inner layer's (it should be `readOnly(host folder)`): its confined
 * walk, its refusal of links on the way, of special files (a submodule is checked out as a FIFO,
 * which both layers report as `other`). The walk's `files` hand on the inner layer's reads and
 * its stats with the metadata above. Offers no writing extension, like `GitTreeLayer`.
 */
import { VfsError } from './errors.js';
import type {
  DirEntry,
  FolderAccess,
  Layer,
  LinkReadingLayer,
  ReadOptions,
  Stat,
  WalkEntries,
  WalkOptions,
  WalkableLayer,
} from './layer.js';
import { isLinkReadingLayer, walkLayer } from './layer.js';

/** A read-only view of a checked-out commit with git-tree metadata (see the file comment). */
class SnapshotFolderLayer implements LinkReadingLayer, WalkableLayer {
  readonly kind: string;

  constructor(private readonly inner: Layer) {
    this.kind = `snapshot-folder(${inner.kind})`;
  }

  async stat(path: string): Promise<Stat> {
    return snapshotStat(await this.inner.stat(path));
  }

  readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    return this.inner.readFile(path, options);
  }

  readdir(path: string): Promise<DirEntry[]> {
    return this.inner.readdir(path);
  }

  async readLink(path: string): Promise<string> {
    if (!isLinkReadingLayer(this.inner)) throw new VfsError('NOT_SYMLINK', 'readlink', path, 'this layer reads no link targets');
    return this.inner.readLink(path);
  }

  /** The inner layer's walk, each folder's `files` stating with the snapshot's metadata. */
  async *walkTree(path: string, options?: WalkOptions): AsyncGenerator<WalkEntries> {
    for await (const folder of walkLayer(this.inner, path, options)) {
      yield folder.files ? { path: folder.path, entries: folder.entries, files: snapshotAccess(folder.files) } : folder;
    }
  }
}

/** The metadata `GitTreeLayer` reports for an entry of this type (and, for a file, executable bit). */
function snapshotStat(st: Stat): Stat {
  const mode =
    st.type === 'file' ? (st.mode & 0o100 ? 0o755 : 0o644) : st.type === 'directory' ? 0o755 : st.type === 'symlink' ? 0o777 : 0o644;
  const size = st.type === 'file' || st.type === 'symlink' ? st.size : 0;
  return { type: st.type, size, mode, mtimeMs: 0 };
}

function snapshotAccess(files: FolderAccess): FolderAccess {
  return { readFile: (name, options) => files.readFile(name, options), stat: (name) => snapshotStat(files.stat(name)) };
}

/** A read-only view of a checked-out commit (see the file comment). */
export function snapshotFolder(inner: Layer): SnapshotFolderLayer {
  return new SnapshotFolderLayer(inner);
}
