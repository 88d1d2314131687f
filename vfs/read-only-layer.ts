/**
 * `readOnly(inner)`: the inner layer's reads, and every write refused with `READ_ONLY`.
 * Never a silent no-op: a write through this wrapper always throws (`BAD_NAME` /
 * `NAME_TOO_LONG` for a path that is not a layer path, else `READ_ONLY`).
 */
import { VfsError } from './errors.js';
import { checkLayerPath } from './layer-path.js';
import type { Layer, WritableLayer, WriteResult } from './layer.js';
import { lockKeyOf, type LockKey, type LockableLayer } from './lock-key.js';

export class ReadOnlyLayer implements WritableLayer, LockableLayer {
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
}

/** Wraps a layer so that every write is refused with `READ_ONLY`. */
export function readOnly(inner: Layer): ReadOnlyLayer {
  return new ReadOnlyLayer(inner);
}
