/**
 * `readOnly(inner)`: the inner layer's reads, and every write refused with `READ_ONLY`.
 * Never a silent no-op: a write through this wrapper always throws (`BAD_NAME` /
 * `NAME_TOO_LONG` for a path that is not a layer path, else `READ_ONLY`).
 *
 * Reads include the inner layer's recursive-walk fast path (`walkTree`): a read-only host
 * mount is walked, read and stat'ed through the folders its walk holds, like a writable one.
 */
import { VfsError } from './errors.js';
import { checkLayerPath } from './layer-path.js';
import type {
  FolderAccess,
  Layer,
  LinkReadingLayer,
  WalkEntries,
  WalkOptions,
  WalkableLayer,
  WritableLayer,
  WriteResult,
} from './layer.js';
import { isLinkReadingLayer, walkLayer } from './layer.js';
import { lockKeyOf, type LockKey, type LockableLayer } from './lock-key.js';

class ReadOnlyLayer implements WritableLayer, WalkableLayer, LinkReadingLayer, LockableLayer {
  readonly kind: string;

  constructor(private readonly inner: Layer) {
    this.kind = `readonly(${inner.kind})`;
  }

  async stat(path: string) {
    checkLayerPath(path, 'stat');
    return this.inner.stat(path);
  }

  async readFile(path: string, options?: { maxBytes?: number }) {
    checkLayerPath(path, 'read');
    return this.inner.readFile(path, options);
  }

  async readdir(path: string) {
    checkLayerPath(path, 'readdir');
    return this.inner.readdir(path);
  }

  /** The inner layer's link target; `NOT_SYMLINK` when the inner layer reads no links (it then has none to follow). */
  async readLink(path: string): Promise<string> {
    checkLayerPath(path, 'readlink');
    if (!isLinkReadingLayer(this.inner)) throw new VfsError('NOT_SYMLINK', 'readlink', path, 'this layer reads no link targets');
    return this.inner.readLink(path);
  }

  /**
   * The inner layer's walk (vfs/layer.ts `walkLayer`: its fast path when it has one). Each
   * folder's `files` is handed on as a new object holding only its reads (`readFile`, `stat`,
   * `readFiles`), so whatever else the inner layer's accessor holds never leaves this wrapper:
   * the walk gives reads, never a way to write.
   */
  async *walkTree(path: string, options?: WalkOptions): AsyncGenerator<WalkEntries> {
    checkLayerPath(path, 'walk');
    for await (const folder of walkLayer(this.inner, path, options)) {
      yield folder.files ? { path: folder.path, entries: folder.entries, files: readsOnly(folder.files) } : folder;
    }
  }

  /** The inner layer's lock key (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return lockKeyOf(this.inner, path);
  }

  async writeFile(path: string): Promise<WriteResult> {
    checkLayerPath(path, 'write');
    throw new VfsError('READ_ONLY', 'write', path);
  }

  async mkdir(path: string): Promise<void> {
    checkLayerPath(path, 'mkdir');
    throw new VfsError('READ_ONLY', 'mkdir', path);
  }

  async remove(path: string): Promise<void> {
    checkLayerPath(path, 'remove');
    throw new VfsError('READ_ONLY', 'remove', path);
  }

  /** Always `READ_ONLY` (at `from`), after both paths are checked. */
  async rename(from: string, to: string): Promise<void> {
    checkLayerPath(from, 'rename');
    checkLayerPath(to, 'rename');
    throw new VfsError('READ_ONLY', 'rename', from);
  }
}

/** The reads of a walk's `FolderAccess`, and nothing else of the object behind it. */
function readsOnly(files: FolderAccess): FolderAccess {
  const reads: FolderAccess = { readFile: (name, options) => files.readFile(name, options), stat: (name) => files.stat(name) };
  if (files.readFiles) reads.readFiles = (names, options, each) => files.readFiles!(names, options, each);
  return reads;
}

/** Wraps a layer so that every write is refused with `READ_ONLY`. */
export function readOnly(inner: Layer): ReadOnlyLayer {
  return new ReadOnlyLayer(inner);
}
