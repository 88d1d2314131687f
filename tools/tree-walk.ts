/**
 * `walkTree`: the one recursive walk of the tools (list, grep), over the namespace's mounts.
 *
 * Like Go's `fs.WalkDir` with its fast path found by type check: inside one mount the walk uses
 * the layer's recursive fast path when it has one (`walkLayer`, vfs/layer.ts: the host layer
 * keeps each parent's handle open instead of re-walking from the root per folder), else
 * `readdir`. A mount point inside a folder (or a folder leading to one) is shown as a folder
 * and leads into its mount, as `Namespace.readdir` shows it. A symlink is reported as `symlink`
 * and never descended. Nothing is stat'ed: the walk costs one directory listing per folder.
 *
 * The caller's `select` decides, per folder, which entries to report and which sub-folders to
 * enter (grep reads `.gitignore` there). Each entry can be read or stat'ed (`TreeEntry.read`,
 * `stat`); from inside `select` that goes through the folder the walk holds, where the layer
 * has one (tools/walk-folder.ts keeps that detail). A `KeptFileReader` gets the kept files'
 * bytes while the walk is in their folder. Entries come back in tree order (each folder's
 * entries sorted by name, depth-first), the order ripgrep's `--sort path` gives.
 *
 * Fairness: the walk yields to the event loop every 512 entries, so a huge tree over a
 * synchronous layer never holds the loop for other conversations, and every pass over one
 * folder's entries (hiding `.git` names, merging mount points, making the entries, choosing what
 * to enter, assembling the result) runs in slices of `SLICE_ENTRIES` with a yield between them
 * (tools/sliced-work.ts), so one folder of 300,000 entries does not hold it either; a folder of
 * fewer entries is handled without a pause, as before. A sub-folder that vanishes
 * or turns into a link mid-walk is skipped. Limits: `maxEntries` entries seen (default
 * 500,000), past it the walk stops with `truncated`; a folder with entries deeper than any path
 * can name (vfs/path.ts `MAX_PATH_SEGMENTS` segments, `MAX_PATH_BYTES` bytes) ends it with
 * `TOO_DEEP`. Errors: the start folder's codes (at namespace paths), `TOO_DEEP`, `BUSY`.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { VfsError, isVfsError } from '../vfs/index.js';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_PATH_SEGMENTS, utf8Length } from '../vfs/index.js';
import type { DirEntry, FolderAccess } from '../vfs/index.js';
import { compareNames, walkLayer } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import { WalkFolder, type KeptFileReader, type ReadPace, type TreeEntry } from './walk-folder.js';
import { filterSliced, mergeSliced, runSliced, sliceEnds, someSliced, type SlicedWork } from './sliced-work.js';

export type { KeptFileReader, TreeEntry } from './walk-folder.js';

const YIELD_EVERY_ENTRIES = 512;

/** Some of a folder's entries: a `Set`, or a `ShardedSet` for a folder with very many (tools/sharded-map.ts). */
interface EntrySet {
  has(e: TreeEntry): boolean;
  [Symbol.iterator](): Iterator<TreeEntry>;
}

/** What `select` decides for one folder's entries. */
export interface Selection {
  /** Entries to report (reported in the folder's order). */
  keep: EntrySet | 'all' | 'none';
  /** Sub-folders to enter (entries of type `directory`). */
  enter: EntrySet | 'all' | 'none';
}

/** How `walkTree` chooses what to report and where to go. */
export interface WalkOptions {
  /** Called once per folder (`dir` undefined for the start folder) with its entries. May be async. */
  select(dir: TreeEntry | undefined, entries: readonly TreeEntry[]): Selection | Promise<Selection>;
  /** Gets the kept files of each folder the walk holds open (see `KeptFileReader`). */
  readKept?: KeptFileReader;
  /**
   * Asked before a folder is listed (`rel`: its path below the start, '' for the start): the only
   * names `select` can keep or enter there, when known (vfs/layer.ts `WalkOptions.only`: they are
   * looked up instead of listing the folder). Undefined: the whole listing.
   */
  only?(rel: string): readonly string[] | undefined;
  /** Entries seen before the walk stops with `truncated` (default 500,000). */
  maxEntries?: number;
}

/** The reported entries in tree order, and whether the entry limit cut the walk. */
export interface WalkResult {
  entries: TreeEntry[];
  truncated: boolean;
}

/** Walks the folder `start` (resolved in `ns`). Throws the VfsError of listing `start` itself. */
export async function walkTree(ns: Namespace, start: Resolved, options: WalkOptions): Promise<WalkResult> {
  ns.checkVisible(start, 'walk');
  const walk = new TreeWalk(ns, options);
  let entries: TreeEntry[];
  try {
    entries = await walk.mount(start, '', undefined, true);
  } catch (e) {
    await walk.settleReads().catch(() => undefined); // the walk's own error is the answer
    throw e;
  }
  // Reads still under way in other threads (tools/walk-folder.ts) deliver before the walk answers.
  await walk.settleReads();
  return { entries, truncated: walk.truncated };
}

/** One folder's part of the result: its entries, those reported, and the sub-folders entered. */
interface Folder {
  entries: TreeEntry[];
  keep: Selection['keep'];
  /** Sub-folders entered: the layer path of one in the same walk, or the walk of another mount. */
  entered: Map<TreeEntry, string | Promise<TreeEntry[]>>;
}

/** The walk of one mount: the folders to enter (by layer path) and the folders met. */
interface MountPart {
  readonly at: Resolved;
  /** Layer path → the entry leading there (undefined for where the part starts) and its path below the start. */
  readonly toEnter: Map<string, { self: TreeEntry | undefined; rel: string }>;
  readonly folders: Map<string, Folder>;
}

/** The state of one `walkTree` call: the entry count and limit, and the pace of synchronous reads. */
class TreeWalk {
  truncated = false;
  private seen = 0;
  private sinceYield = 0;
  private readonly max: number;
  private readonly pace: ReadPace = { files: 0, bytes: 0, pending: [] };

  constructor(
    private readonly ns: Namespace,
    private readonly options: WalkOptions,
  ) {
    this.max = options.maxEntries ?? 500_000;
  }

  /** Waits for the kept files' reads still under way in other threads; throws the first failure. */
  async settleReads(): Promise<void> {
    await Promise.all(this.pace.pending.splice(0));
  }

  /**
   * The reported entries below `at` (in the mount `at` resolves to), in tree order; entries
   * `rel` below the start. A start folder that is gone or turned into a link is an error; any
   * other is skipped (`[]`).
   */
  async mount(at: Resolved, rel: string, self: TreeEntry | undefined, isStart: boolean): Promise<TreeEntry[]> {
    const part: MountPart = { at, toEnter: new Map([[at.rel, { self, rel }]]), folders: new Map() };
    let first: Folder | undefined;
    try {
      const only = this.options.only;
      const walkOptions = {
        descend: (p: string) => part.toEnter.has(p),
        only: only && ((p: string) => (part.toEnter.has(p) ? only(part.toEnter.get(p)!.rel) : undefined)),
      };
      for await (const { path, entries, files } of walkLayer(at.mount.layer, at.rel, walkOptions)) {
        const folder = await this.visit(part, path, entries, files);
        first ??= folder;
        if (this.truncated) break;
      }
    } catch (e) {
      if (!isVfsError(e)) throw e;
      if (e.code === 'NOT_FOUND' && this.ns.table.entriesBelow(at.path).length > 0) {
        // A folder that exists only because a mount lies below it: its entries are the mounts.
        const only = await this.visit(part, at.rel, []);
        return runSliced(assemble(only, part.folders, await otherMounts([only])));
      }
      if (!isStart && SKIPPED_CODES.has(e.code)) return [];
      throw e.withPath(e.path === '' ? at.mount.path : `${at.mount.path}/${e.path}`);
    }
    return first ? runSliced(assemble(first, part.folders, await otherMounts(part.folders.values()))) : [];
  }

  /** Builds one folder's entries (mount points merged in), asks `select` about them, enters the chosen. */
  private async visit(part: MountPart, layerPath: string, listed: DirEntry[], access?: FolderAccess): Promise<Folder> {
    const { at } = part;
    const { self, rel } = part.toEnter.get(layerPath)!;
    const nsPath = layerPath === at.rel ? at.path : `${at.mount.path}/${layerPath}`;
    checkNameable(nsPath, listed, at.rel);
    const mounted = this.ns.mountPointsIn(nsPath);
    const merged = runSliced(withMounts(this.ns, listed, mounted));
    const shown = this.admit(merged instanceof Promise ? await merged : merged);
    if (this.sinceYield >= YIELD_EVERY_ENTRIES) {
      this.sinceYield = 0;
      await yieldToLoop();
    }
    const folder = new WalkFolder(this.ns, nsPath, at.mount, layerPath, access);
    const made = runSliced(folder.entries(shown, rel, mounted));
    const entries = made instanceof Promise ? await made : made;
    let selection: Selection;
    try {
      const selected = this.options.select(self, entries);
      selection = selected instanceof Promise ? await selected : selected;
      if (this.options.readKept && selection.keep !== 'none') {
        await folder.readKept(selection.keep === 'all' ? entries : selection.keep, this.options.readKept, this.pace);
      }
    } finally {
      folder.leave();
    }
    const entered = runSliced(this.enter(part, entries, selection.enter));
    const result: Folder = { entries, keep: selection.keep, entered: entered instanceof Promise ? await entered : entered };
    part.folders.set(layerPath, result);
    return result;
  }

  /** Counts the entries against the limit (cutting them there) and since the last yield. */
  private admit(listed: DirEntry[]): DirEntry[] {
    if (this.seen + listed.length > this.max) {
      this.truncated = true;
      listed = listed.slice(0, Math.max(0, this.max - this.seen));
    }
    this.seen += listed.length;
    this.sinceYield += listed.length;
    return listed;
  }

  /**
   * Enters the chosen sub-folders: one of the same layer is walked by the layer's walk of this
   * mount (`part.toEnter`), one that leads to another mount by a walk of its own, started now.
   */
  private *enter(part: MountPart, entries: readonly TreeEntry[], chosen: Selection['enter']): SlicedWork<Folder['entered']> {
    const entered: Folder['entered'] = new Map();
    if (chosen === 'none') return entered;
    for (let i = 0; i < entries.length; i++) {
      if (sliceEnds(i)) yield;
      const e = entries[i];
      if (e.type !== 'directory' || (chosen !== 'all' && !chosen.has(e))) continue;
      const leavesLayer = e.resolved.mount !== part.at.mount || this.ns.table.entriesBelow(e.resolved.path).length > 0;
      if (leavesLayer) {
        const below = this.mount(e.resolved, e.rel, e, false);
        below.catch(() => undefined); // awaited (and thrown) in otherMounts
        entered.set(e, below);
      } else {
        part.toEnter.set(e.resolved.rel, { self: e, rel: e.rel });
        entered.set(e, e.resolved.rel);
      }
    }
    return entered;
  }
}

/** Sub-folder errors that mean "vanished or turned into something else mid-walk": skipped. */
const SKIPPED_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'NOT_DIRECTORY', 'SYMLINK_ESCAPE', 'NOT_DISCLOSED', 'NOT_REGULAR_FILE']);

/**
 * The listing as `Namespace.readdir` shows it: names git treats as `.git` left out (never shown
 * nor entered, vfs/namespace.ts), the mount points in the folder merged in (in place of an entry
 * of the same name), sorted by name. `listed` is sorted (vfs/layer.ts `DirEntry`), so merging the
 * few mount points in gives what sorting the whole gave.
 */
function* withMounts(ns: Namespace, listed: DirEntry[], mounted: readonly DirEntry[]): SlicedWork<DirEntry[]> {
  const hidden = (e: DirEntry) => ns.isHiddenName(e.name);
  if (yield* someSliced(listed, hidden)) listed = yield* filterSliced(listed, (e) => !hidden(e));
  if (mounted.length === 0) return listed;
  const names = new Set(mounted.map((m) => m.name));
  const own = yield* filterSliced(listed, (e) => !names.has(e.name));
  return yield* mergeSliced(own, [...mounted].sort(byName), byName);
}

const byName = (a: DirEntry, b: DirEntry) => compareNames(a.name, b.name);

/**
 * `TOO_DEEP` (at `startRel`, the layer path the caller anchors) when the folder `nsPath` has
 * entries no path could name: past `MAX_PATH_SEGMENTS` segments or `MAX_PATH_BYTES` bytes.
 */
function checkNameable(nsPath: string, listed: readonly DirEntry[], startRel: string): void {
  if (listed.length === 0 || (segmentCount(nsPath) < MAX_PATH_SEGMENTS && allNameable(nsPath, listed))) return;
  throw new VfsError(
    'TOO_DEEP',
    'walk',
    startRel,
    `a folder below is nested deeper than any path can name (${MAX_PATH_SEGMENTS} levels, ${MAX_PATH_BYTES} bytes)`,
  );
}

/**
 * The folder's reported entries in tree order, sub-folders' entries after their folder (depth
 * first, with a stack of its own: a chain of folders as deep as a path can name is no deeper a
 * call stack), pausing every `SLICE_ENTRIES` entries looked at.
 */
function* assemble(
  first: Folder,
  folders: ReadonlyMap<string, Folder>,
  other: ReadonlyMap<TreeEntry, TreeEntry[]>,
): SlicedWork<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const stack: { folder: Folder; next: number }[] = [{ folder: first, next: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const { entries, keep, entered } = top.folder;
    if (top.next >= entries.length) {
      stack.pop();
      continue;
    }
    const e = entries[top.next++];
    if (sliceEnds(++seen)) yield;
    if (keep === 'all' || (keep !== 'none' && keep.has(e))) out.push(e);
    const below = entered.get(e);
    if (below === undefined) continue;
    if (typeof below === 'string') {
      const sub = folders.get(below);
      if (sub) stack.push({ folder: sub, next: 0 });
    } else {
      for (const b of other.get(e) ?? []) {
        out.push(b);
        if (sliceEnds(++seen)) yield;
      }
    }
  }
  return out;
}

/** Waits for the walks of other mounts met in these folders. */
async function otherMounts(folders: Iterable<Folder>): Promise<Map<TreeEntry, TreeEntry[]>> {
  const pending: [TreeEntry, Promise<TreeEntry[]>][] = [];
  for (const f of folders) for (const [e, below] of f.entered) if (typeof below !== 'string') pending.push([e, below]);
  const done = await Promise.all(pending.map(([, p]) => p));
  return new Map(pending.map(([e], i) => [e, done[i]]));
}

/** True when every entry's namespace path fits in `MAX_PATH_BYTES` (the grammar's limit). */
function allNameable(folder: string, entries: readonly DirEntry[]): boolean {
  const room = MAX_PATH_BYTES - (folder === '/' ? 0 : utf8Length(folder)) - 1;
  if (room >= MAX_NAME_BYTES) return true; // names are at most 255 bytes: every entry fits
  return entries.every((e) => utf8Length(e.name) <= room);
}

/** Segments of an absolute namespace path ('/' has none). */
function segmentCount(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return path === '/' ? 0 : n;
}
