/**
 * `walkTree`: the recursive walk under list and grep, over the namespace's mounts.
 *
 * Entries come in tree order (each folder's entries sorted by name, depth-first), which is the
 * order ripgrep's `--sort path` gives. Inside one mount the walk uses the layer's recursive
 * fast path when it has one (`walkLayer`, vfs/layer.ts: the host layer keeps each parent's
 * handle open instead of re-walking from the root per folder); a mount point inside a folder
 * (or a folder leading to one) is shown as a folder and leads into its mount, as
 * `Namespace.readdir` shows it. A symlink is reported as `symlink` and never descended.
 * Nothing is stat'ed: the walk costs one directory listing per folder entered.
 *
 * The caller's `select` decides, per folder, which entries to report and which sub-folders to
 * enter (grep reads `.gitignore` there). It also gets `FolderFiles`, to read or stat the
 * folder's entries while the walk is in it: on a layer whose walk holds each folder open (the
 * host layer), that is one open per file through the held folder instead of a walk from the
 * mount root per file. Layers that filter what they show (sparse, overlay) offer no such
 * access, so it never reaches an entry they hide; their entries go through the namespace. The walk yields to the event loop every few hundred
 * entries, so a huge tree over a synchronous layer never holds the loop for other
 * conversations. A sub-folder that vanishes or turns into a link mid-walk is skipped; errors of
 * the start folder are thrown with namespace paths.
 *
 * Limits: `maxEntries` entries seen (default 500,000); past it the walk stops and reports
 * `truncated`. A folder with entries deeper than any path can name (vfs/path.ts
 * `MAX_PATH_SEGMENTS` segments or `MAX_PATH_BYTES` bytes of namespace path) ends the walk with
 * `TOO_DEEP`; the host
 * layer's walk holds a bounded number of descriptors up to there (vfs/held-folder-stack.ts).
 */
import { VfsError, isVfsError } from '../vfs/errors.js';
import { MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_PATH_SEGMENTS, utf8Length } from '../vfs/path.js';
import type { DirEntry, EntryType, FolderAccess, FolderReadOptions, Stat } from '../vfs/layer.js';
import { childPath, compareNames, walkLayer } from '../vfs/layer.js';
import type { Resolved } from '../vfs/mount-table.js';
import type { Namespace } from '../vfs/namespace.js';

const YIELD_EVERY_ENTRIES = 512;

/** One entry met by the walk. `rel` is relative to the start folder ('a/b.ts'). */
export interface TreeEntry {
  readonly resolved: Resolved;
  readonly rel: string;
  readonly name: string;
  readonly type: EntryType;
}

/** What `select` decides for one folder's entries. */
export interface Selection {
  /** Entries to report (reported in the folder's order). */
  keep: ReadonlySet<TreeEntry> | 'all' | 'none';
  /** Sub-folders to enter (entries of type `directory`). */
  enter: ReadonlySet<TreeEntry> | 'all' | 'none';
}

/**
 * Reads and stats of one folder's entries while the walk is in that folder (the second argument
 * of `select`). Where the layer's walk offers `FolderAccess` (the host layer) they go through the
 * folder it holds open, one open per file; elsewhere through `Namespace.readFile` / `stat`. Valid
 * only during that `select` call (including while it awaits). Errors carry namespace paths.
 */
export interface FolderFiles {
  /** True when reads go through the held folder (cheap enough to read every file in `select`). */
  readonly held: boolean;
  /** The bytes of the entry `e` of this folder (`transient`: see vfs/layer.ts `FolderReadOptions`). */
  readFile(e: TreeEntry, options?: FolderReadOptions): Uint8Array | Promise<Uint8Array>;
  /** The metadata of the entry `e` of this folder (a link is reported, not followed). */
  stat(e: TreeEntry): Stat | Promise<Stat>;
}

/** How `walkTree` chooses what to report and where to go. */
export interface WalkOptions {
  /**
   * Called once per folder (`dir` undefined for the start folder) with its entries and access to
   * them (`FolderFiles`). May be async.
   */
  select(dir: TreeEntry | undefined, entries: readonly TreeEntry[], files: FolderFiles): Selection | Promise<Selection>;
  maxEntries?: number;
}

/** The reported entries in tree order, and whether the entry limit cut the walk. */
export interface WalkResult {
  entries: TreeEntry[];
  truncated: boolean;
}

interface Folder {
  entries: TreeEntry[];
  keep: Selection['keep'];
  /** Sub-folders entered: the layer path of one in the same walk, or the walk of another mount. */
  entered: Map<TreeEntry, string | Promise<TreeEntry[]>>;
}

/** Walks the folder `start` (resolved in `ns`). Throws the VfsError of listing `start` itself. */
export async function walkTree(ns: Namespace, start: Resolved, options: WalkOptions): Promise<WalkResult> {
  const state = { seen: 0, sinceYield: 0, truncated: false, max: options.maxEntries ?? 500_000 };

  const walkMount = async (at: Resolved, rel: string, self: TreeEntry | undefined, isStart: boolean): Promise<TreeEntry[]> => {
    const layer = at.mount.layer;
    const folders = new Map<string, Folder>();
    const selves = new Map<string, TreeEntry | undefined>([[at.rel, self]]);
    const relOf = new Map<string, string>([[at.rel, rel]]);
    const descend = new Set<string>();
    let rootFolder: Folder | undefined;
    try {
      for await (const { path, entries: listed, files } of walkLayer(layer, at.rel, { descend: (p) => descend.has(p) })) {
        const folder = await visit(at, path, listed, relOf.get(path)!, selves.get(path), descend, selves, relOf, files);
        folders.set(path, folder);
        rootFolder ??= folder;
        if (state.truncated) break;
      }
    } catch (e) {
      if (!isVfsError(e)) throw e;
      if (e.code === 'NOT_FOUND' && ns.table.entriesBelow(at.path).length > 0) {
        // A folder that exists only because a mount lies below it: its entries are the mounts.
        const only = await visit(at, at.rel, [], rel, self, descend, selves, relOf);
        return assemble(only, folders, await otherMounts([only]));
      }
      if (!isStart && SKIPPED_CODES.has(e.code)) return [];
      throw e.withPath(e.path === '' ? at.mount.path : `${at.mount.path}/${e.path}`);
    }
    return rootFolder ? assemble(rootFolder, folders, await otherMounts(folders.values())) : [];
  };

  /** Builds one folder's entries (mount points merged in) and asks `select` about them. */
  const visit = async (
    at: Resolved, layerPath: string, listed: DirEntry[], rel: string, self: TreeEntry | undefined,
    descend: Set<string>, selves: Map<string, TreeEntry | undefined>, relOf: Map<string, string>, access?: FolderAccess,
  ): Promise<Folder> => {
    const nsPath = layerPath === at.rel ? at.path : `${at.mount.path}/${layerPath}`;
    if (listed.length > 0 && (segmentCount(nsPath) >= MAX_PATH_SEGMENTS || !allNameable(nsPath, listed))) {
      // Its entries could not be named by any path: the layer-relative start, anchored by the caller.
      throw new VfsError('TOO_DEEP', 'walk', at.rel, `a folder below is nested deeper than any path can name (${MAX_PATH_SEGMENTS} levels, ${MAX_PATH_BYTES} bytes)`);
    }
    const mounted = ns.mountPointsIn(nsPath);
    // Names git treats as `.git` are never shown nor entered (vfs/namespace.ts).
    if (listed.some((e) => ns.isHiddenName(e.name))) listed = listed.filter((e) => !ns.isHiddenName(e.name));
    if (mounted.length > 0) {
      const names = new Set(mounted.map((m) => m.name));
      listed = [...listed.filter((e) => !names.has(e.name)), ...mounted].sort((a, b) => compareNames(a.name, b.name));
    }
    if (state.seen + listed.length > state.max) {
      state.truncated = true;
      listed = listed.slice(0, Math.max(0, state.max - state.seen));
    }
    state.seen += listed.length;
    state.sinceYield += listed.length;
    if (state.sinceYield >= YIELD_EVERY_ENTRIES) {
      state.sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Entries get their `Resolved` lazily (`WalkEntry`): most of a big walk's entries are
    // neither kept nor entered, and building three strings and an object for each showed up as
    // a large share of a `**` list's time.
    const scope: FolderScope = { base: nsPath === '/' ? '' : nsPath, mount: at.mount, layerPath };
    const entries: TreeEntry[] = new Array(listed.length);
    for (let i = 0; i < listed.length; i++) {
      const d = listed[i];
      const entryRel = rel === '' ? d.name : `${rel}/${d.name}`;
      if (mounted.length === 0) {
        entries[i] = new WalkEntry(entryRel, d.name, d.type, scope, undefined, true);
        continue;
      }
      const path = `${scope.base}/${d.name}`;
      const isMountPoint = mounted.some((m) => m.name === d.name);
      if (isMountPoint || ns.table.entriesBelow(path).length > 0) {
        const resolved = ns.resolve(path);
        const own = resolved.mount === at.mount && resolved.path === path && !isMountPoint;
        entries[i] = new WalkEntry(entryRel, d.name, d.type, scope, resolved, own);
      } else {
        entries[i] = new WalkEntry(entryRel, d.name, d.type, scope, undefined, true);
      }
    }
    const selected = options.select(self, entries, folderFiles(ns, scope, mounted, access));
    const { keep, enter } = selected instanceof Promise ? await selected : selected;
    const entered = new Map<TreeEntry, string | Promise<TreeEntry[]>>();
    for (const e of entries) {
      if (e.type !== 'directory' || !(enter === 'all' || (enter !== 'none' && enter.has(e)))) continue;
      const leavesLayer = e.resolved.mount !== at.mount || ns.table.entriesBelow(e.resolved.path).length > 0;
      if (leavesLayer) {
        const below = walkMount(e.resolved, e.rel, e, false);
        below.catch(() => undefined); // awaited (and thrown) in otherMounts
        entered.set(e, below);
      } else {
        descend.add(e.resolved.rel);
        selves.set(e.resolved.rel, e);
        relOf.set(e.resolved.rel, e.rel);
        entered.set(e, e.resolved.rel);
      }
    }
    return { entries, keep, entered };
  };

  ns.checkVisible(start, 'walk');
  const entries = await walkMount(start, '', undefined, true);
  return { entries, truncated: state.truncated };
}

/**
 * `FolderFiles` for one folder: through `access` for the layer's own entries of the folder,
 * through the namespace for anything else (mount points, layers without the fast path).
 */
function folderFiles(ns: Namespace, scope: FolderScope, mounted: readonly DirEntry[], access?: FolderAccess): FolderFiles {
  if (!access) return { held: false, readFile: (e, o) => ns.readFile(e.resolved, o), stat: (e) => ns.stat(e.resolved) };
  const base = `${scope.base}/`;
  // An entry this folder's walk built knows whether it is the layer's own (`WalkEntry.own`);
  // any other entry is compared by its resolved path.
  const isOwn = (e: TreeEntry) =>
    e instanceof WalkEntry && e.scope === scope
      ? e.own
      : e.resolved.mount === scope.mount && e.resolved.path === base + e.name && !mounted.some((m) => m.name === e.name);
  const anchored = <T>(e: TreeEntry, fn: () => T): T => {
    try {
      const out = fn();
      return out instanceof Promise ? (out.catch((err: unknown) => Promise.reject(anchor(err, e))) as T) : out;
    } catch (err) {
      throw anchor(err, e);
    }
  };
  return {
    held: true,
    readFile: (e, o) => (isOwn(e) ? anchored(e, () => access.readFile(e.name, o)) : ns.readFile(e.resolved, o)),
    stat: (e) => (isOwn(e) ? anchored(e, () => access.stat(e.name)) : ns.stat(e.resolved)),
  };
}

/** A layer error re-anchored at the entry's namespace path (as `Namespace` does). */
function anchor(err: unknown, e: TreeEntry): unknown {
  if (!isVfsError(err)) return err;
  const mountPath = e.resolved.mount.path;
  return err.withPath(err.path === '' ? mountPath : `${mountPath}/${err.path}`);
}

/** Where one folder's entries live: the prefix of their namespace paths, the mount, the layer path. */
interface FolderScope {
  /** The folder's namespace path, '' for '/' (a child's path is `${base}/${name}`). */
  readonly base: string;
  readonly mount: Resolved['mount'];
  readonly layerPath: string;
}

/**
 * A `TreeEntry` built by the walk. `resolved` is made on first use (and kept); `own` is true for
 * an entry of the folder's own layer (not a mount point), which `FolderFiles` may reach through
 * the held folder.
 */
class WalkEntry implements TreeEntry {
  #resolved: Resolved | undefined;

  constructor(
    readonly rel: string,
    readonly name: string,
    readonly type: EntryType,
    readonly scope: FolderScope,
    resolved: Resolved | undefined,
    readonly own: boolean,
  ) {
    this.#resolved = resolved;
  }

  get resolved(): Resolved {
    return (this.#resolved ??= { path: `${this.scope.base}/${this.name}`, mount: this.scope.mount, rel: childPath(this.scope.layerPath, this.name) });
  }
}

const SKIPPED_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'NOT_DIRECTORY', 'SYMLINK_ESCAPE', 'NOT_DISCLOSED', 'NOT_REGULAR_FILE']);

/** The folder's reported entries in tree order, sub-folders' entries after their folder. */
function assemble(folder: Folder, folders: ReadonlyMap<string, Folder>, other: ReadonlyMap<TreeEntry, TreeEntry[]>, out: TreeEntry[] = []): TreeEntry[] {
  const keep = folder.keep;
  for (const e of folder.entries) {
    if (keep === 'all' || (keep !== 'none' && keep.has(e))) out.push(e);
    const below = folder.entered.get(e);
    if (below === undefined) continue;
    if (typeof below === 'string') {
      const sub = folders.get(below);
      if (sub) assemble(sub, folders, other, out);
    } else {
      for (const b of other.get(e) ?? []) out.push(b);
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
