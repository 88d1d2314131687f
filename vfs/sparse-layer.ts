/**
 * `sparse(inner, visible)`: a projection of `inner` that shows only the given paths (normally
 * files) and the folders leading to them. Everything else answers exactly as an absent entry
 * would: `NOT_FOUND` from stat, readFile and readdir alike, and missing from listings, so a
 * hidden file cannot be told from one that does not exist by reading.
 *
 * Like a git sparse checkout seen through a keyhole, with one difference: the hidden files are
 * still on disk, so writes must neither reveal nor clobber them. When `inner` is writable:
 * - a visible file may be replaced and removed as usual;
 * - a NEW name (absent from `inner`) may be created in any visible folder, and becomes visible;
 * - mkdir of a hidden existing folder succeeds and shows it empty (only what is created or
 *   disclosed inside it appears), exactly as if it had just been created;
 * - a write or mkdir onto a hidden existing non-folder (or a write onto a hidden
 *   folder) is refused with `ALREADY_EXISTS` and changes nothing. This is the one place a hidden
 *   name shows through: refusing is the price of not clobbering. Callers that hold a disclosure
 *   policy turn it into a `NOT_DISCLOSED` hint with `isHidden`;
 * - remove of a hidden entry answers `NOT_FOUND`, as for an absent one; removing a
 *   visible folder that still holds hidden entries answers `NOT_EMPTY`;
 * - rename moves a visible entry to a visible folder, and the visible set follows it; a hidden
 *   entry at the destination is never replaced (`ALREADY_EXISTS`, even with `overwrite`), and a
 *   folder that holds hidden entries never moves (`NOT_DISCLOSED`: they would move unseen).
 * New names are created exclusively (O_EXCL), so a hidden file appearing concurrently is never
 * overwritten. When `inner` cannot write, every write is `READ_ONLY`.
 *
 * Disclosing a folder shows the folder itself, never what it holds: only listed paths show.
 *
 * Paths are layer-relative; every operation checks them first (vfs/layer-path.ts: `BAD_NAME`,
 * `NAME_TOO_LONG`), and `disclose` and the constructor also refuse '' and a backslash.
 * Only the inner layer's `NOT_FOUND` (or a path through a non-folder) counts as absent: any
 * other inner error fails the operation before anything changes.
 */
import { VfsError, isVfsError } from './errors.js';
import type {
  DirEntry,
  Layer,
  LinkReadingLayer,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from './layer.js';
import { childPath, isLinkReadingLayer, isWritableLayer, parentPath, walkLayer } from './layer.js';
import { checkRenamePaths, isAtOrBelow } from './rename-rules.js';
import { lockKeyOf, type LockKey, type LockableLayer } from './lock-key.js';
import { checkName } from './path.js';
import { checkLayerPath } from './layer-path.js';

/**
 * The projection built by `sparse()`; see the file comment for what is shown and what writes
 * may do. The visible set lives in memory and grows with `disclose` and with created names.
 */
export class SparseProjection implements WritableLayer, LinkReadingLayer, LockableLayer {
  readonly kind: string;
  /** Disclosed or created paths (visible with nothing implied below them). */
  private readonly leaves = new Set<string>();
  /** Folders leading to a leaf (visible, listing only visible children). */
  private readonly folders = new Set<string>(['']);

  constructor(
    private readonly inner: Layer,
    visible: Iterable<string>,
  ) {
    this.kind = `sparse(${inner.kind})`;
    this.disclose(visible);
  }

  /**
   * Widens the visible set (idempotent). Returns the paths that were not visible before.
   * `BAD_NAME` for a path that is not a layer-relative path; nothing is added then.
   */
  disclose(paths: Iterable<string>): string[] {
    const list = [...paths];
    for (const p of list) checkRelative(p);
    const added: string[] = [];
    for (const p of list) {
      if (!this.isVisible(p)) added.push(p);
      this.reveal(p);
    }
    return added;
  }

  /** True when `path` is shown: a disclosed/created path, a folder leading to one, or the root. */
  isVisible(path: string): boolean {
    return this.leaves.has(path) || this.folders.has(path);
  }

  /**
   * True when `inner` has an entry at `path` that this projection hides. Only the inner
   * layer's `NOT_FOUND` (or `NOT_DIRECTORY` / `SYMLINK_ESCAPE` for a path through a non-folder,
   * where no entry can be) answers false; any other error (`INTERNAL`, `BUSY`) is thrown.
   */
  async isHidden(path: string): Promise<boolean> {
    checkLayerPath(path, 'stat');
    if (this.isVisible(path)) return false;
    return (await this.innerStat(path)) !== undefined;
  }

  /** The visible leaves (disclosed or created paths), sorted. */
  visiblePaths(): string[] {
    return [...this.leaves].sort();
  }

  async stat(path: string): Promise<Stat> {
    checkLayerPath(path, 'stat');
    await this.requireVisible(path, 'stat');
    return this.inner.stat(path);
  }

  async readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    checkLayerPath(path, 'read');
    await this.requireVisible(path, 'read');
    return this.inner.readFile(path, options);
  }

  /** The inner layer's link target, for a visible link (`NOT_FOUND` for a hidden one). */
  async readLink(path: string): Promise<string> {
    checkLayerPath(path, 'readlink');
    await this.requireVisible(path, 'readlink');
    if (!isLinkReadingLayer(this.inner)) throw new VfsError('NOT_SYMLINK', 'readlink', path, 'this layer reads no link targets');
    return this.inner.readLink(path);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    checkLayerPath(path, 'readdir');
    await this.requireVisible(path, 'readdir');
    const entries = await this.inner.readdir(path);
    return entries.filter((e) => this.isVisible(childPath(path, e.name)));
  }

  async writeFile(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<WriteResult> {
    checkLayerPath(path, 'write');
    const inner = this.writable(path, 'write');
    if (this.isVisible(path)) return inner.writeFile(path, data, options);
    // Compare-and-swap of a file that is no longer shown: it cannot hold what was read here.
    if (options.ifMatch && !options.exclusive)
      throw new VfsError('STALE_CONTENT', 'write', path, 'the file changed after it was read; nothing was written');
    await this.requireVisible(parentPath(path), 'write');
    if (await this.isHidden(path)) throw hiddenTaken('write', path);
    try {
      const result = await inner.writeFile(path, data, { ...options, exclusive: true });
      this.reveal(path);
      return result;
    } catch (e) {
      throw isVfsError(e, 'ALREADY_EXISTS') && !options.exclusive ? hiddenTaken('write', path) : e;
    }
  }

  /** The inner layer's lock key: a projection writes at the same paths (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return lockKeyOf(this.inner, path);
  }

  async mkdir(path: string): Promise<void> {
    checkLayerPath(path, 'mkdir');
    const inner = this.writable(path, 'mkdir');
    if (this.isVisible(path)) return inner.mkdir(path);
    await this.requireVisible(parentPath(path), 'mkdir');
    const existing = await this.innerStat(path);
    if (existing?.type === 'directory') return this.reveal(path);
    if (existing) throw hiddenTaken('mkdir', path);
    await inner.mkdir(path);
    this.reveal(path);
  }

  async remove(path: string, options?: RemoveOptions): Promise<void> {
    checkLayerPath(path, 'remove');
    const inner = this.writable(path, 'remove');
    await this.requireVisible(path, 'remove');
    await inner.remove(path, options);
    this.forget(path);
  }

  /** Moves a visible entry (see the file comment); the visible paths below `from` move with it. */
  async rename(from: string, to: string, options: RenameOptions = {}): Promise<void> {
    checkLayerPath(from, 'rename');
    checkLayerPath(to, 'rename');
    checkRenamePaths(from, to);
    const inner = this.writable(from, 'rename');
    await this.requireVisible(from, 'rename');
    await this.requireVisible(parentPath(to), 'rename');
    const toVisible = this.isVisible(to);
    if (!toVisible && (await this.isHidden(to))) throw hiddenTaken('rename', to);
    if ((await inner.stat(from)).type === 'directory') {
      if (isAtOrBelow(to, from)) throw new VfsError('INVALID_INPUT', 'rename', to, 'a folder cannot be moved inside itself');
      await this.refuseHiddenInside(from);
    }
    // A destination not shown is taken only while free, as a created name is (never replacing).
    await inner.rename(from, to, toVisible ? options : { ...options, overwrite: false });
    const moved = [...this.leaves].filter((p) => isAtOrBelow(p, from)).map((p) => to + p.slice(from.length));
    this.forget(from);
    if (toVisible) this.forget(to);
    for (const p of moved.length > 0 ? moved : [to]) this.reveal(p);
  }

  /**
   * Throws unless `path` is visible: `NOT_FOUND`, as for an absent entry. When the path runs
   * through a visible non-folder (`README.md/x`, a disclosed link), the inner layer's own answer
   * (`NOT_DIRECTORY`, `SYMLINK_ESCAPE`) is given instead, as every other layer would: no hidden
   * entry can live there, so nothing is revealed.
   */
  private async requireVisible(path: string, op: string): Promise<void> {
    if (this.isVisible(path)) return;
    let dir = parentPath(path);
    while (dir !== '' && !this.leaves.has(dir) && !this.folders.has(dir)) dir = parentPath(dir);
    if (this.leaves.has(dir) && (await this.innerStat(dir))?.type !== 'directory') {
      await this.inner.stat(path).catch((e: unknown) => {
        if (isVfsError(e) && e.code !== 'NOT_FOUND') throw new VfsError(e.code, op, e.path, e.detail, { cause: e.cause });
        if (!isVfsError(e)) throw e;
      });
    }
    throw new VfsError('NOT_FOUND', op, path);
  }

  /**
   * The inner layer's stat of `path`, or undefined when it has no entry there: `NOT_FOUND`, or
   * `NOT_DIRECTORY` / `SYMLINK_ESCAPE` for a path running through a non-folder. Every other
   * error is thrown: a failing inner layer is never taken for an empty one.
   */
  private async innerStat(path: string): Promise<Stat | undefined> {
    try {
      return await this.inner.stat(path);
    } catch (e) {
      if (isVfsError(e, 'NOT_FOUND') || isVfsError(e, 'NOT_DIRECTORY') || isVfsError(e, 'SYMLINK_ESCAPE')) return undefined;
      throw e;
    }
  }

  /** `NOT_DISCLOSED` when the folder `dir` holds an entry this projection hides (it would move unseen). */
  private async refuseHiddenInside(dir: string): Promise<void> {
    for await (const folder of walkLayer(this.inner, dir)) {
      for (const e of folder.entries) {
        if (!this.isVisible(childPath(folder.path, e.name))) {
          throw new VfsError('NOT_DISCLOSED', 'rename', dir, 'the folder holds entries that are not disclosed; it cannot be moved');
        }
      }
    }
  }

  private writable(path: string, op: string): WritableLayer {
    if (!isWritableLayer(this.inner)) throw new VfsError('READ_ONLY', op, path);
    return this.inner;
  }

  private reveal(path: string): void {
    if (path === '') return;
    this.leaves.add(path);
    for (let dir = parentPath(path); dir !== '' && !this.folders.has(dir); dir = parentPath(dir)) this.folders.add(dir);
  }

  /**
   * Drops `path` and everything below it from the visible set; its folder stays visible (it
   * still exists, and a user who deletes a file expects to keep seeing the folder).
   */
  private forget(path: string): void {
    for (const p of [...this.leaves]) if (p === path || p.startsWith(`${path}/`)) this.leaves.delete(p);
    this.folders.clear();
    this.folders.add('');
    for (const p of this.leaves) this.reveal(p);
    this.reveal(parentPath(path));
  }
}

/** Projects `inner` so that only `visible` (layer-relative paths) and their folders show. */
export function sparse(inner: Layer, visible: Iterable<string>): SparseProjection {
  return new SparseProjection(inner, visible);
}

function checkRelative(path: string): void {
  if (typeof path !== 'string' || path === '' || path.startsWith('/')) {
    throw new VfsError('BAD_NAME', 'disclose', String(path), 'expected a layer-relative path');
  }
  for (const seg of path.split('/')) checkName(seg, 'disclose', path);
}

function hiddenTaken(op: string, path: string): VfsError {
  return new VfsError('ALREADY_EXISTS', op, path, 'the name is taken by an entry that is not disclosed; it was left unchanged');
}
