/**
 * `readOnlyPaths(inner, paths)`: `inner` with writes refused (`READ_ONLY`) at or below some
 * layer paths — the places where a read-only mount's folder lies inside a writable workspace
 * folder (a read-only `/repo/docs` mount under a `shared` checkout of `/repo`). Reads pass
 * through. On disk the identity guard of the host layer already refuses these writes; this
 * name-based rule also covers layers without identities (memory) and is checked first.
 */
import { VfsError } from '../../vfs/errors.js';
import type { DirEntry, Layer, ReadOptions, Stat, WritableLayer, WriteOptions, WriteResult } from '../../vfs/layer.js';
import { isWritableLayer } from '../../vfs/layer.js';

/** A pass-through layer refusing writes below some paths (see the file comment). */
export class ReadOnlyPathsLayer implements WritableLayer {
  readonly kind: string;

  constructor(private readonly inner: Layer, private readonly paths: readonly string[]) {
    this.kind = inner.kind;
  }

  stat(path: string): Promise<Stat> {
    return this.inner.stat(path);
  }

  readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    return this.inner.readFile(path, options);
  }

  readdir(path: string): Promise<DirEntry[]> {
    return this.inner.readdir(path);
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

  /** True when `path` is at or below one of the read-only paths. */
  isReadOnly(path: string): boolean {
    return this.paths.some((p) => p === '' || path === p || path.startsWith(`${p}/`));
  }

  private writable(path: string, op: string): WritableLayer {
    if (this.isReadOnly(path) || !isWritableLayer(this.inner)) throw new VfsError('READ_ONLY', op, path);
    return this.inner;
  }
}

/** `inner` with writes refused at or below `paths`; `inner` itself when `paths` is empty. */
export function readOnlyPaths(inner: WritableLayer, paths: readonly string[]): WritableLayer {
  return paths.length === 0 ? inner : new ReadOnlyPathsLayer(inner, paths);
}
