/**
 * `readOnly(inner)`: the inner layer's reads, and every write refused with `READ_ONLY`.
 * Never a silent no-op: a write through this wrapper always throws.
 */
import { VfsError } from './errors.js';
import type { Layer, WritableLayer, WriteResult } from './layer.js';
import { lockKeyOf, type LockKey, type LockableLayer } from './lock-key.js';

export class ReadOnlyLayer implements WritableLayer, LockableLayer {
  readonly kind: string;

  constructor(private readonly inner: Layer) {
    this.kind = `readonly(${inner.kind})`;
  }

  stat(path: string) {
    return this.inner.stat(path);
  }

  readFile(path: string, options?: { maxBytes?: number }) {
    return this.inner.readFile(path, options);
  }

  readdir(path: string) {
    return this.inner.readdir(path);
  }

  /** The inner layer's lock key (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return lockKeyOf(this.inner, path);
  }

  async writeFile(path: string): Promise<WriteResult> {
    throw new VfsError('READ_ONLY', 'write', path);
  }

  async mkdir(path: string): Promise<void> {
    throw new VfsError('READ_ONLY', 'mkdir', path);
  }

  async remove(path: string): Promise<void> {
    throw new VfsError('READ_ONLY', 'remove', path);
  }

  async rename(from: string): Promise<void> {
    throw new VfsError('READ_ONLY', 'rename', from);
  }
}

/** Wraps a layer so that every write is refused with `READ_ONLY`. */
export function readOnly(inner: Layer): ReadOnlyLayer {
  return new ReadOnlyLayer(inner);
}
