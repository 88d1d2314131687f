/**
 * `hidePath(inner, hidden)`: a layer that shows `inner` without one folder — the state
 * directory when it lies inside the checkout a `shared` or plain-folder `copy` workspace
 * serves. The hidden folder is absent from listings and `NOT_FOUND` to reads; any change at or
 * below it is `PROTECTED_PATH`. Everything else passes through unchanged.
 *
 * Limit: this hides a name, not an inode; the platform's identity guard is what stops a write
 * that reaches the same folder by another route (a bind mount, a hard-linked folder).
 */
import { VfsError } from '../../vfs/errors.js';
import type { DirEntry, Layer, ReadOptions, Stat, WritableLayer, WriteOptions, WriteResult } from '../../vfs/layer.js';
import { baseName, isWritableLayer, parentPath } from '../../vfs/layer.js';

/** A pass-through layer that hides one folder (see the file comment). */
export class HiddenPathLayer implements WritableLayer {
  readonly kind: string;
  private readonly parent: string;
  private readonly name: string;

  constructor(private readonly inner: Layer, private readonly hidden: string) {
    this.kind = inner.kind;
    this.parent = parentPath(hidden);
    this.name = baseName(hidden);
  }

  stat(path: string): Promise<Stat> {
    this.checkVisible(path, 'stat');
    return this.inner.stat(path);
  }

  readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    this.checkVisible(path, 'read');
    return this.inner.readFile(path, options);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    this.checkVisible(path, 'readdir');
    const entries = await this.inner.readdir(path);
    return path === this.parent ? entries.filter((e) => e.name !== this.name) : entries;
  }

  writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    return this.writable(path, 'write').writeFile(path, data, options);
  }

  mkdir(path: string): Promise<void> {
    return this.writable(path, 'mkdir').mkdir(path);
  }

  remove(path: string): Promise<void> {
    return this.writable(path, 'remove').remove(path);
  }

  rename(from: string, to: string): Promise<void> {
    this.writable(to, 'rename');
    return this.writable(from, 'rename').rename(from, to);
  }

  /** True when `path` is the hidden folder or lies below it. */
  isHidden(path: string): boolean {
    return path === this.hidden || path.startsWith(`${this.hidden}/`);
  }

  private checkVisible(path: string, op: string): void {
    if (this.isHidden(path)) throw new VfsError('NOT_FOUND', op, path);
  }

  private writable(path: string, op: string): WritableLayer {
    if (this.isHidden(path)) throw new VfsError('PROTECTED_PATH', op, path);
    if (!isWritableLayer(this.inner)) throw new VfsError('READ_ONLY', op, path);
    return this.inner;
  }
}

/** `inner` without the folder at layer path `hidden` (see `HiddenPathLayer`). */
export function hidePath(inner: Layer, hidden: string): HiddenPathLayer {
  return new HiddenPathLayer(inner, hidden);
}
