/**
 * `overlay(upper, lower)`: a copy-on-write layer. Reads fall through to `lower` unless `upper`
 * holds the name or a whiteout hides it; every change lands in `upper`; `lower` is never
 * modified (it may be a read-only layer).
 *
 * Mirrors Linux overlayfs, with one difference: whiteouts are not marker files next to the
 * deleted name but one durable list in a reserved folder of the upper (see `WhiteoutSet`), so no
 * name an agent can write is ever taken or misread as a whiteout.
 *
 * - write: copies the parent folders up (creating them in the upper) and writes the file in the
 *   upper; a lower file that is replaced keeps its mode. With `ifMatch`, an upper file is checked
 *   by the upper; a lower file must still hold those bytes and the upper must still lack the
 *   name (an exclusive upper write), else `STALE_CONTENT`.
 * - remove: removes the upper's entry, and whites out a lower entry so it stays hidden; with
 *   `ifMatch`, an upper file is compared by the upper, a lower one by reading the lower.
 * - rename: upper renames, copy-ups and whiteouts (vfs/overlay-rename.ts), folders included.
 * - readLink: the link the merged view shows (the upper's, else the lower's).
 * - a folder removed and re-created is opaque: the whiteout stays, so the lower's old entries
 *   under it stay hidden beneath the new upper folder.
 * - readdir: the union of both listings, minus whiteouts, sorted.
 * - walkTree: both sides walked side by side and merged (vfs/overlay-walk.ts), so a walk of a
 *   host upper over a host lower reads and stats through the folders both walks hold.
 *
 * Nothing is cached but the whiteout list: a file put into the upper folder behind the overlay's
 * back (the agent's shell in a `copy` workspace, a build) is seen at the next call, as is every
 * change to the lower.
 * Open one overlay per upper at a time: two would each keep their own whiteout list and the
 * last to save would win.
 *
 * Paths: checked by `checkLayerPath` before anything is read (`BAD_NAME`, `NAME_TOO_LONG`).
 * Reserved name: `.gatefs-overlay` as the first segment of a path is refused for every operation
 * with `BAD_NAME` (and never listed): it holds the whiteout record. Durability: with a host
 * directory as upper, reopening `overlay(sameUpperDir, sameLower)` shows the same tree.
 *
 * Errors: the codes of the layers below (`NOT_FOUND`, `NOT_DIRECTORY`, `IS_DIRECTORY`,
 * `ALREADY_EXISTS`, `NOT_EMPTY`, `SYMLINK_ESCAPE`, `TOO_LARGE`, …) with layer-relative paths,
 * `BAD_NAME` for the reserved name, `READ_ONLY` for removing the root. A lower error other than
 * `NOT_FOUND` is never taken for an absent entry: the operation fails with it, unchanged.
 */
import { VfsError, isVfsError } from './errors.js';
import { checkLayerPath } from './layer-path.js';
import type {
  DirEntry,
  Layer,
  LinkReadingLayer,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WalkEntries,
  WalkOptions,
  WalkableLayer,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from './layer.js';
import { childPath, compareNames, isLinkReadingLayer, isProbingLayer, parentPath } from './layer.js';
import { lockKeyOf, type LockKey, type LockableLayer } from './lock-key.js';
import { OVERLAY_META, WhiteoutSet } from './whiteout-set.js';
import { overlayRename, type OverlayFound, type OverlayParts } from './overlay-rename.js';
import { overlayWalk } from './overlay-walk.js';

/** Where a merged entry lives and what it is. */
type Found = OverlayFound;

/**
 * The copy-on-write layer built by `overlay()`; see the file comment for the rules. `upper` and
 * `lower` are exposed for status and patch building; change them only through the overlay.
 */
export class OverlayLayer implements WritableLayer, WalkableLayer, LinkReadingLayer, LockableLayer {
  readonly kind: string;
  private loading?: Promise<WhiteoutSet>;

  constructor(
    readonly upper: WritableLayer,
    readonly lower: Layer,
  ) {
    this.kind = `overlay(${upper.kind}/${lower.kind})`;
  }

  /** The whited-out lower paths, sorted (for status, patches and tests). */
  async whiteouts(): Promise<string[]> {
    return (await this.whiteoutSet()).list();
  }

  async stat(path: string): Promise<Stat> {
    refuseReserved(path, 'stat');
    const found = await this.find(path);
    if (!found) throw new VfsError('NOT_FOUND', 'stat', path);
    return found.stat;
  }

  async readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    refuseReserved(path, 'read');
    if (await this.upperMayHold(path)) {
      try {
        return await this.upper.readFile(path, options);
      } catch (e) {
        if (!isVfsError(e, 'NOT_FOUND')) throw e;
      }
    }
    if ((await this.whiteoutSet()).hides(path)) throw new VfsError('NOT_FOUND', 'read', path);
    return this.lower.readFile(path, options);
  }

  /** The target of the link the merged view shows at `path`. `NOT_FOUND`, `NOT_SYMLINK`. */
  async readLink(path: string): Promise<string> {
    refuseReserved(path, 'readlink');
    const found = await this.find(path);
    if (!found) throw new VfsError('NOT_FOUND', 'readlink', path);
    const layer = found.in === 'upper' ? this.upper : this.lower;
    if (found.stat.type !== 'symlink' || !isLinkReadingLayer(layer)) throw new VfsError('NOT_SYMLINK', 'readlink', path);
    return layer.readLink(path);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    refuseReserved(path, 'readdir');
    const upper = (await this.upperMayHold(path)) ? await orUndefined(this.upper.readdir(path), false) : undefined;
    const whiteouts = await this.whiteoutSet();
    const lower = whiteouts.hides(path) ? undefined : await orUndefined(this.lower.readdir(path), upper !== undefined);
    if (!upper && !lower) throw new VfsError('NOT_FOUND', 'readdir', path);
    const merged = new Map<string, DirEntry>();
    for (const e of lower ?? []) if (!whiteouts.has(childPath(path, e.name))) merged.set(e.name, e);
    for (const e of upper ?? []) merged.set(e.name, e);
    if (path === '') merged.delete(OVERLAY_META);
    return [...merged.values()].sort((a, b) => compareNames(a.name, b.name));
  }

  /**
   * The merged tree from `path`, as recursive `readdir` calls would give it (vfs/overlay-walk.ts).
   * `NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE` for the start, and what the sides' walks throw.
   */
  async *walkTree(path: string, options?: WalkOptions): AsyncGenerator<WalkEntries> {
    refuseReserved(path, 'walk');
    const found = await this.find(path);
    if (!found) throw new VfsError('NOT_FOUND', 'walk', path);
    if (found.stat.type === 'symlink') throw new VfsError('SYMLINK_ESCAPE', 'walk', path);
    if (found.stat.type !== 'directory') throw new VfsError('NOT_DIRECTORY', 'walk', path);
    const whiteouts = await this.whiteoutSet();
    const lowerStat =
      found.in === 'lower' ? found.stat : whiteouts.hides(path) ? undefined : await orUndefined(this.lower.stat(path), true);
    const parts = {
      upper: this.upper,
      lower: this.lower,
      whiteouts,
      upperHasStart: found.in === 'upper',
      lowerHasStart: lowerStat?.type === 'directory',
    };
    yield* overlayWalk(parts, path, options);
  }

  async writeFile(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<WriteResult> {
    refuseReserved(path, 'write');
    if (path === '') throw new VfsError('IS_DIRECTORY', 'write', path);
    const existing = await this.find(path);
    const ifMatch = options.exclusive ? undefined : options.ifMatch;
    if (existing) {
      if (options.exclusive) throw new VfsError('ALREADY_EXISTS', 'write', path);
      if (existing.stat.type === 'directory') throw new VfsError('IS_DIRECTORY', 'write', path);
      if (existing.stat.type === 'other') throw new VfsError('NOT_REGULAR_FILE', 'write', path);
      if (existing.in === 'upper') return this.upper.writeFile(path, data, options);
    }
    if (ifMatch) return this.copyUpIfMatch(path, data, ifMatch, existing);
    const mode = existing?.stat.type === 'file' ? existing.stat.mode : options.mode;
    await this.withParents(path, 'write', () => this.upper.writeFile(path, data, { exclusive: options.exclusive, mode }));
    return { created: !existing };
  }

  /**
   * A compare-and-swap write of a file the lower shows: the lower must still hold `ifMatch`,
   * and the upper must still lack the name, which the exclusive upper write checks atomically
   * (another writer of the same upper that got there first makes it `STALE_CONTENT`).
   */
  private async copyUpIfMatch(path: string, data: Uint8Array, ifMatch: Uint8Array, existing: Found | undefined): Promise<WriteResult> {
    const stale = () => new VfsError('STALE_CONTENT', 'write', path, 'the file changed after it was read; nothing was written');
    if (existing?.stat.type !== 'file') throw stale();
    const lower = await this.lower.readFile(path).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
    if (!lower || !sameBytes(lower, ifMatch)) throw stale();
    try {
      await this.withParents(path, 'write', () => this.upper.writeFile(path, data, { exclusive: true, mode: existing.stat.mode }));
    } catch (e) {
      throw isVfsError(e, 'ALREADY_EXISTS') ? stale() : e;
    }
    return { created: false };
  }

  /** The upper's lock key: every change of the overlay lands there (vfs/lock-key.ts). */
  lockKey(path: string): LockKey {
    return lockKeyOf(this.upper, path);
  }

  async mkdir(path: string): Promise<void> {
    refuseReserved(path, 'mkdir');
    if (path === '' || (await this.find(path))) throw new VfsError('ALREADY_EXISTS', 'mkdir', path);
    await this.withParents(path, 'mkdir', () => this.upper.mkdir(path));
  }

  async remove(path: string, options: RemoveOptions = {}): Promise<void> {
    refuseReserved(path, 'remove');
    if (path === '') throw new VfsError('READ_ONLY', 'remove', path, 'cannot remove the root of a mount');
    const found = await this.find(path);
    if (!found) throw new VfsError('NOT_FOUND', 'remove', path);
    if (options.fileOnly && found.stat.type === 'directory') throw new VfsError('IS_DIRECTORY', 'remove', path);
    if (found.stat.type === 'directory' && (await this.readdir(path)).length > 0) {
      throw new VfsError('NOT_EMPTY', 'remove', path);
    }
    if (options.ifMatch && (found.stat.type !== 'file' || (found.in === 'lower' && !(await this.lowerHolds(path, options.ifMatch))))) {
      throw new VfsError('STALE_CONTENT', 'remove', path, 'the file changed after it was read; nothing was removed');
    }
    // The whiteout is saved first, so the lower entry can never show through for a moment;
    // if the upper removal then fails, the whiteout is taken out again.
    const undo = (await this.lowerShows(path, found)) ? await (await this.whiteoutSet()).add(path) : undefined;
    if (found.in !== 'upper') return;
    try {
      await this.upper.remove(path, options);
    } catch (e) {
      // The removal's own error is what the caller gets. Should taking the whiteout out fail
      // too, it stays under the upper entry, which still shows: the view is unchanged.
      await undo?.().catch(() => undefined);
      throw e;
    }
  }

  /** Renames inside the merged view (vfs/overlay-rename.ts: copy-ups and whiteouts, folders included). */
  async rename(from: string, to: string, options: RenameOptions = {}): Promise<void> {
    refuseReserved(from, 'rename');
    refuseReserved(to, 'rename');
    return overlayRename(this.parts, from, to, options);
  }

  /** What overlayRename may use of this overlay (its own private steps). */
  private get parts(): OverlayParts {
    return {
      upper: this.upper,
      lower: this.lower,
      find: (path) => this.find(path),
      lowerShows: (path, found) => this.lowerShows(path, found),
      whiteouts: () => this.whiteoutSet(),
      withParents: (path, op, change) => this.withParents(path, op, change),
      readdir: (path) => this.readdir(path),
    };
  }

  /** True when the lower holds exactly `expected` at `path` (the lower never changes through the overlay). */
  private async lowerHolds(path: string, expected: Uint8Array): Promise<boolean> {
    const bytes = await this.lower.readFile(path).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
    return bytes !== undefined && sameBytes(bytes, expected);
  }

  /**
   * False only when the upper surely has no entry at `path` (its `statIfPresent` fast path, so
   * the common miss makes no error); true means "ask it". Errors are the upper's `stat`'s.
   */
  private async upperMayHold(path: string): Promise<boolean> {
    return isProbingLayer(this.upper) ? (await this.upper.statIfPresent(path)) !== undefined : true;
  }

  /** The merged entry at `path`: the upper's, else the lower's unless whited out. */
  private async find(path: string): Promise<Found | undefined> {
    if (isProbingLayer(this.upper)) {
      const stat = await this.upper.statIfPresent(path);
      if (stat) return { in: 'upper', stat };
    } else {
      try {
        return { in: 'upper', stat: await this.upper.stat(path) };
      } catch (e) {
        if (!isVfsError(e, 'NOT_FOUND')) throw e;
      }
    }
    if ((await this.whiteoutSet()).hides(path)) return undefined;
    const stat = await orUndefined(this.lower.stat(path), false);
    return stat && { in: 'lower', stat };
  }

  /**
   * True when the lower has a visible entry at `path` (shadowed or not by the upper). Only the
   * lower's `NOT_FOUND` means it has none: any other error (`INTERNAL`, `BUSY`) is thrown, since
   * taking it for "absent" would let a removed upper file uncover the lower's bytes.
   */
  private async lowerShows(path: string, found: Found): Promise<boolean> {
    if (found.in === 'lower') return true;
    if ((await this.whiteoutSet()).hides(path)) return false;
    return (await orUndefined(this.lower.stat(path), false)) !== undefined;
  }

  /**
   * Runs `change` on the upper once every folder above `path` exists there (`copyUpParents`);
   * when `change` fails, the folders this call created are removed again, so a failed write
   * leaves the upper as it was.
   */
  private async withParents<T>(path: string, op: string, change: () => Promise<T>): Promise<T> {
    const made: string[] = [];
    try {
      await this.copyUpParents(path, op, made);
      return await change();
    } catch (e) {
      await this.undoCopyUp(made);
      throw e;
    }
  }

  /**
   * Makes every folder above `path` exist in the upper, after checking it is a merged folder;
   * each folder it creates is pushed on `made`.
   */
  private async copyUpParents(path: string, op: string, made: string[]): Promise<void> {
    const parent = parentPath(path);
    if (parent === '') return;
    let dir = '';
    for (const seg of parent.split('/')) {
      dir = childPath(dir, seg);
      const found = await this.find(dir);
      if (!found) throw new VfsError('NOT_FOUND', op, dir);
      if (found.stat.type === 'symlink') throw new VfsError('SYMLINK_ESCAPE', op, dir);
      if (found.stat.type !== 'directory') throw new VfsError('NOT_DIRECTORY', op, dir);
      if (found.in === 'lower') {
        try {
          await this.upper.mkdir(dir);
          made.push(dir);
        } catch (e) {
          if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
        }
      }
    }
  }

  /**
   * Removes the copied-up folders of a failed change, deepest first. The change's own error is
   * what the caller gets: an undo step that fails too (a concurrent write put a file there
   * meanwhile: `NOT_EMPTY`, or the upper fails again) leaves an empty upper folder over a lower
   * folder, which shows exactly what the lower shows, so it is left and not reported.
   */
  private async undoCopyUp(made: readonly string[]): Promise<void> {
    for (const dir of [...made].reverse()) {
      await this.upper.remove(dir).catch(() => undefined);
    }
  }

  private whiteoutSet(): Promise<WhiteoutSet> {
    this.loading ??= WhiteoutSet.load(this.upper).catch((e) => {
      this.loading = undefined;
      throw e;
    });
    return this.loading;
  }
}

/** Creates a copy-on-write overlay of `upper` (receives every change) over `lower` (never changed). */
export function overlay(upper: WritableLayer, lower: Layer): OverlayLayer {
  return new OverlayLayer(upper, lower);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

/** The layer-path check, then `BAD_NAME` for the reserved record folder. */
function refuseReserved(path: string, op: string): void {
  checkLayerPath(path, op);
  if (path === OVERLAY_META || path.startsWith(`${OVERLAY_META}/`)) {
    throw new VfsError('BAD_NAME', op, path, `'${OVERLAY_META}' is reserved for the overlay's own records`);
  }
}

/** The promise's value, or undefined on NOT_FOUND (and on NOT_DIRECTORY when `notDirIsAbsent`). */
async function orUndefined<T>(p: Promise<T>, notDirIsAbsent: boolean): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isVfsError(e, 'NOT_FOUND') || (notDirIsAbsent && isVfsError(e, 'NOT_DIRECTORY'))) return undefined;
    throw e;
  }
}
