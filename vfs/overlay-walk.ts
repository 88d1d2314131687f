/**
 * `overlayWalk`: the overlay's recursive-walk fast path (vfs/layer.ts `WalkableLayer`). It walks
 * the upper and the lower side by side, each with its own walk (the host layer's held-folder
 * walk where it has one), and merges the two depth-first streams into the merged tree's: every
 * merged folder once, in listing order, with the entries `OverlayLayer.readdir` gives (the union,
 * the upper winning a name, whiteouts and the reserved record folder left out).
 *
 * A lower folder is descended only where the merged view shows it: not below a whiteout (an
 * opaque folder included) and not where the upper holds a file or link of that name. The
 * caller's `descend` is asked once per merged sub-folder, after the caller is done with its
 * parent (as every walk asks), and both sides follow its answer. The caller's `only` goes to
 * both sides: each looks the names up, and the merge keeps what the merged view shows of them.
 *
 * `files` of a merged folder reads and stats through the held folders of both walks: a name the
 * upper holds through the upper's, any other through the lower's, a whited-out name answers
 * `NOT_FOUND`, the reserved record `BAD_NAME`. It is given only when every side present at the
 * folder gives its own (otherwise the caller reads through the overlay), and it dies when the
 * walk moves on (`INTERNAL`), as every walk's does. So the merged view is never widened: the
 * lower's access is never handed out bare.
 */
import { VfsError } from './errors.js';
import type { DirEntry, EntryType, FolderAccess, FolderReadOptions, Layer, Stat, WalkEntries, WalkOptions } from './layer.js';
import { childPath, compareNames, walkLayer } from './layer.js';
import { OVERLAY_META, type WhiteoutSet } from './whiteout-set.js';

/** What the walk needs of the overlay. */
interface OverlayWalkParts {
  upper: Layer;
  lower: Layer;
  whiteouts: WhiteoutSet;
  /** Which sides hold a folder at the start path (the overlay checked the merged entry is one). */
  upperHasStart: boolean;
  lowerHasStart: boolean;
}

/** One side's walk and the folder it is at (undefined once it is done). */
interface Side {
  walk: AsyncGenerator<WalkEntries>;
  head: WalkEntries | undefined;
  /** Sub-folders it may enter, decided when the merged walk left their parent. */
  readonly descend: Map<string, boolean>;
}

/** Walks the merged tree of an overlay from `path` (see the file comment). */
export async function* overlayWalk(parts: OverlayWalkParts, path: string, options: WalkOptions = {}): AsyncGenerator<WalkEntries> {
  const upper = startSide(parts.upper, path, parts.upperHasStart, options.only);
  const lower = startSide(parts.lower, path, parts.lowerHasStart, options.only);
  const { whiteouts } = parts;
  try {
    await Promise.all([advance(upper), advance(lower)]);
    for (;;) {
      const order = upper.head && lower.head ? compareWalkPaths(upper.head.path, lower.head.path) : upper.head ? -1 : 1;
      const fromUpper = upper.head && order <= 0 ? upper.head : undefined;
      const fromLower = lower.head && order >= 0 ? lower.head : undefined;
      if (!fromUpper && !fromLower) return;
      const dir = (fromUpper ?? fromLower)!.path;
      const merged = mergeEntries(dir, fromUpper, fromLower, whiteouts);
      const access = mergedAccess(dir, merged, fromUpper, fromLower, whiteouts);
      try {
        yield access ? { path: dir, entries: merged.entries, files: access } : { path: dir, entries: merged.entries };
      } finally {
        access?.end();
      }
      // Now that the caller is done with `dir`, decide its sub-folders for both sides.
      const lowerDirs = fromLower && merged.upperNames.size > 0 ? directoryNames(fromLower.entries) : undefined;
      for (const e of merged.entries) {
        if (e.type !== 'directory') continue;
        const child = childPath(dir, e.name);
        const wanted = options.descend?.(child) ?? true;
        const upperType = merged.upperNames.get(e.name);
        if (upperType === 'directory') upper.descend.set(child, wanted);
        // The lower's folder shows where the upper holds nothing there, or a folder (merged).
        const lowerHasIt = upperType === undefined || (upperType === 'directory' && lowerDirs?.has(e.name) === true);
        if (fromLower && lowerHasIt && !whiteouts.hides(child)) lower.descend.set(child, wanted);
      }
      await Promise.all([fromUpper ? advance(upper) : undefined, fromLower ? advance(lower) : undefined]);
    }
  } finally {
    await Promise.all([upper.walk.return(undefined), lower.walk.return(undefined)]);
  }
}

/**
 * A side's walk from `path` (an empty one when the side has no folder there). Its sub-folders
 * are entered only as the merged walk decided; a folder it lists that the merged view does not
 * show as its folder (a whiteout, a name the upper took) was never decided and is skipped.
 */
function startSide(layer: Layer, path: string, present: boolean, only: WalkOptions['only']): Side {
  const descend = new Map<string, boolean>();
  const ask = (child: string) => {
    const wanted = descend.get(child) ?? false;
    descend.delete(child);
    return wanted;
  };
  const walk = present ? walkLayer(layer, path, only ? { descend: ask, only } : { descend: ask }) : (async function* () {})();
  return { walk, head: undefined, descend };
}

async function advance(side: Side): Promise<void> {
  const next = await side.walk.next();
  side.head = next.done ? undefined : next.value;
}

/**
 * Orders two layer paths as a depth-first walk in listing order meets them: a folder before
 * everything below it, siblings by `compareNames`.
 */
function compareWalkPaths(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return -1;
  if (b === '') return 1;
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] !== bs[i]) return compareNames(as[i], bs[i]);
  }
  return as.length - bs.length;
}

function directoryNames(entries: readonly DirEntry[]): Set<string> {
  const names = new Set<string>();
  for (const e of entries) if (e.type === 'directory') names.add(e.name);
  return names;
}

/** A merged folder's entries, and the types of the names the upper holds in it. */
interface Merged {
  entries: DirEntry[];
  upperNames: Map<string, EntryType>;
}

/** The entries `OverlayLayer.readdir(dir)` gives, from the two sides' listings of `dir`. */
function mergeEntries(dir: string, upper: WalkEntries | undefined, lower: WalkEntries | undefined, whiteouts: WhiteoutSet): Merged {
  const upperNames = new Map<string, EntryType>();
  for (const e of upper?.entries ?? []) if (!(dir === '' && e.name === OVERLAY_META)) upperNames.set(e.name, e.type);
  if (!lower || whiteouts.hides(dir)) {
    return { entries: (upper?.entries ?? []).filter((e) => upperNames.has(e.name)), upperNames };
  }
  if (upperNames.size === 0 && whiteouts.size === 0) return { entries: lower.entries, upperNames };
  const entries: DirEntry[] = [];
  for (const e of lower.entries) {
    if (!upperNames.has(e.name) && !whiteouts.has(childPath(dir, e.name))) entries.push(e);
  }
  for (const [name, type] of upperNames) entries.push({ name, type });
  entries.sort((a, b) => compareNames(a.name, b.name));
  return { entries, upperNames };
}

/** The `files` of a merged folder, or undefined when a side present there offers none. */
function mergedAccess(
  dir: string,
  merged: Merged,
  upper: WalkEntries | undefined,
  lower: WalkEntries | undefined,
  whiteouts: WhiteoutSet,
): MergedAccess | undefined {
  const lowerShown = lower && !whiteouts.hides(dir) ? lower : undefined;
  if ((upper && !upper.files) || (lowerShown && !lowerShown.files)) return undefined;
  if (!upper && !lowerShown) return undefined;
  return new MergedAccess(dir, merged.upperNames, upper?.files, lowerShown?.files, whiteouts);
}

/** Routes each name of a merged folder to the side that shows it (see the file comment). */
class MergedAccess implements FolderAccess {
  readonly #dir: string;
  readonly #upperNames: ReadonlyMap<string, EntryType>;
  readonly #upper: FolderAccess | undefined;
  readonly #lower: FolderAccess | undefined;
  readonly #whiteouts: WhiteoutSet;
  #live = true;

  constructor(
    dir: string,
    upperNames: ReadonlyMap<string, EntryType>,
    upper: FolderAccess | undefined,
    lower: FolderAccess | undefined,
    whiteouts: WhiteoutSet,
  ) {
    this.#dir = dir;
    this.#upperNames = upperNames;
    this.#upper = upper;
    this.#lower = lower;
    this.#whiteouts = whiteouts;
  }

  readFile(name: string, options?: FolderReadOptions): Uint8Array | Promise<Uint8Array> {
    return this.#side(name, 'read').readFile(name, options);
  }

  stat(name: string): Stat {
    return this.#side(name, 'stat').stat(name);
  }

  end(): void {
    this.#live = false;
  }

  #side(name: string, op: string): FolderAccess {
    const path = childPath(this.#dir, name);
    if (!this.#live) throw new VfsError('INTERNAL', op, path, 'the walk has moved past this folder');
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new VfsError('BAD_NAME', op, this.#dir, 'not the name of an entry of the folder');
    }
    if (this.#dir === '' && name === OVERLAY_META) {
      throw new VfsError('BAD_NAME', op, path, `'${OVERLAY_META}' is reserved for the overlay's own records`);
    }
    if (this.#upper && (this.#upperNames.has(name) || !this.#lower)) return this.#upper;
    if (!this.#lower || this.#whiteouts.hides(path)) throw new VfsError('NOT_FOUND', op, path);
    return this.#lower;
  }
}
