/**
 * `withDisclosureHints(projection, hints)`: a sparse projection that tells an agent when a
 * path it cannot see could be disclosed. Where the projection answers `NOT_FOUND` (stat, read,
 * readdir) for a path that `hints.isUndisclosed` vouches for, the answer becomes
 * `NOT_DISCLOSED` ("ask for it with request_files"); everywhere else the projection's answer
 * stands, so a path the policy does not cover looks exactly like one that does not exist.
 *
 * Writes: replacing an undisclosed file the policy covers is refused with `NOT_DISCLOSED`
 * before anything is touched (the agent must see the pinned bytes before it may change
 * them), and so is moving a file onto one; every other write goes to the projection. When a
 * write, mkdir, remove or rename changes the set of visible paths, `hints.onVisibleChange` is
 * told (to persist it).
 *
 * Paths are checked first (vfs/layer-path.ts: `BAD_NAME`, `NAME_TOO_LONG`). When the hints
 * cannot answer (`isUndisclosed` throws: the pinned commit cannot be read), the operation fails
 * with that error: an unreadable snapshot is never taken for "absent" (`NOT_FOUND`).
 *
 * Listings are the projection's: undisclosed entries never appear in readdir.
 */
import { VfsError, isVfsError } from './errors.js';
import { checkLayerPath } from './layer-path.js';
import type {
  DirEntry,
  LinkReadingLayer,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from './layer.js';
import type { LockKey, LockableLayer } from './lock-key.js';
import type { SparseProjection } from './sparse-layer.js';

/** What the hint layer asks its owner (the disclosure service). */
export interface DisclosureHints {
  /**
   * True when `path` (layer-relative, not visible) names an entry the policy lets the agent
   * request: `forWrite` narrows it to files (a folder may be created freely).
   */
  isUndisclosed(path: string, forWrite: boolean): Promise<boolean>;
  /** Called after an operation changed which paths are visible. */
  onVisibleChange?(projection: SparseProjection): void;
}

export class DisclosureHintLayer implements WritableLayer, LinkReadingLayer, LockableLayer {
  readonly kind: string;

  constructor(
    readonly projection: SparseProjection,
    private readonly hints: DisclosureHints,
  ) {
    this.kind = `hinted(${projection.kind})`;
  }

  stat(path: string): Promise<Stat> {
    checkLayerPath(path, 'stat');
    return this.hinted(path, 'stat', () => this.projection.stat(path));
  }

  readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    checkLayerPath(path, 'read');
    return this.hinted(path, 'read', () => this.projection.readFile(path, options));
  }

  readLink(path: string): Promise<string> {
    checkLayerPath(path, 'readlink');
    return this.hinted(path, 'readlink', () => this.projection.readLink(path));
  }

  readdir(path: string): Promise<DirEntry[]> {
    checkLayerPath(path, 'readdir');
    return this.hinted(path, 'readdir', () => this.projection.readdir(path));
  }

  async writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    checkLayerPath(path, 'write');
    const before = this.projection.isVisible(path);
    if (!before && (await this.hints.isUndisclosed(path, true))) throw notDisclosed('write', path);
    const result = await this.projection.writeFile(path, data, options);
    if (!before) this.changed();
    return result;
  }

  /** The projection's lock key (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return this.projection.lockKey(path);
  }

  async mkdir(path: string): Promise<void> {
    checkLayerPath(path, 'mkdir');
    const before = this.projection.isVisible(path);
    await this.projection.mkdir(path);
    if (!before) this.changed();
  }

  async remove(path: string, options?: RemoveOptions): Promise<void> {
    checkLayerPath(path, 'remove');
    await this.projection.remove(path, options);
    this.changed();
  }

  async rename(from: string, to: string, options?: RenameOptions): Promise<void> {
    checkLayerPath(from, 'rename');
    checkLayerPath(to, 'rename');
    if (!this.projection.isVisible(to) && (await this.hints.isUndisclosed(to, true))) throw notDisclosed('rename', to);
    await this.projection.rename(from, to, options);
    this.changed();
  }

  private async hinted<T>(path: string, op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (isVfsError(e, 'NOT_FOUND') && !this.projection.isVisible(path) && (await this.hints.isUndisclosed(path, false))) {
        throw notDisclosed(op, path);
      }
      throw e;
    }
  }

  private changed(): void {
    this.hints.onVisibleChange?.(this.projection);
  }
}

/** Wraps a sparse projection with `NOT_DISCLOSED` hints (see `DisclosureHintLayer`). */
export function withDisclosureHints(projection: SparseProjection, hints: DisclosureHints): DisclosureHintLayer {
  return new DisclosureHintLayer(projection, hints);
}

function notDisclosed(op: string, path: string): VfsError {
  return new VfsError('NOT_DISCLOSED', op, path);
}
