/**
 * `WalkFolder`: one folder met by `walkTree` (tools/tree-walk.ts), the `TreeEntry`s it holds,
 * and the two routes to their bytes and metadata.
 *
 * While the walk is in the folder and the layer's walk holds it open (the host layer's fast
 * path, vfs/layer.ts `FolderAccess`), an entry of the layer's own is read or stat'ed through
 * that folder: one open or `lstat` by name inside it, no walk from the mount root. Everywhere
 * else — after the walk moved on, for a mount point, on a layer without the fast path (memory,
 * overlay, sparse) — the same call goes through the `Namespace`. Both routes give the same
 * answer and the same errors, at namespace paths. This is the one tools/ module that knows
 * the fast path exists: list and grep call `TreeEntry.stat` / `read`, and hand `walkTree` an
 * optional `KeptFileReader`; the reused read buffer, the yields between synchronous reads and
 * which route is taken stay here.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { isVfsError } from '../vfs/index.js';
import type { DirEntry, EntryType, FolderAccess, ReadOptions, Stat } from '../vfs/index.js';
import { childPath } from '../vfs/index.js';
import type { Mount, Resolved } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import { SLICE_ENTRIES, sliceEnds, type SlicedWork } from './sliced-work.js';

/** One entry met by the walk. `rel` is relative to the start folder ('a/b.ts'). */
export interface TreeEntry {
  readonly resolved: Resolved;
  readonly rel: string;
  readonly name: string;
  readonly type: EntryType;
  /**
   * Its metadata, as `Namespace.stat` (a link is reported, not followed): through the folder the
   * walk holds while the walk is in it (call it from `select`), through the namespace otherwise.
   */
  stat(): Promise<Stat>;
  /** Its bytes, as `Namespace.readFile`, by the same route as `stat`. */
  read(options?: ReadOptions): Promise<Uint8Array>;
}

/**
 * What a caller does with the kept files of each folder the walk holds open (grep starts its
 * search there): `walkTree` reads them through that folder, one at a time, and hands over
 * their bytes. A kept file not handed over (the folder is not held, the file is larger than
 * `maxBytes`, or reading it failed) is the caller's to read after the walk, where it meets the
 * same refusal; only `BUSY` (out of descriptors) ends the walk at once.
 */
export interface KeptFileReader {
  /** Largest file handed over; larger ones are left to the caller. */
  readonly maxBytes: number;
  /**
   * Called with the bytes of one kept file, valid only until it returns (or its promise
   * settles: the walk waits for it, so a caller can hold the walk back while it catches up).
   * Its errors end the walk.
   */
  take(e: TreeEntry, bytes: Uint8Array): void | Promise<void>;
  /**
   * Optional: bytes every file of interest holds (a search's literal). Where the layer reads in
   * other threads, files up to `find.maxBytes` are looked through in place, whatever their size;
   * one without them is never handed over (`scanned` is told instead), and one with them only
   * with `handOver`.
   */
  readonly find?: { bytes: Uint8Array; sniffBytes: number; maxBytes: number; handOver: boolean };
  /**
   * True to have the files read in other threads where the layer offers it (`readFiles`). It
   * pays for a byte search, whose work stays there; a regex search has worker threads of its own
   * to feed, which reads in yet more threads only slow down on a machine with few cores.
   */
  readonly beside?: boolean;
  /** With `find`: a kept file looked through in place (`holds` the bytes; `nul`: a NUL in its first `sniffBytes`). */
  scanned?(e: TreeEntry, holds: boolean, nul: boolean): void;
  /**
   * Told about a kept file larger than `maxBytes`, while the walk is still in its folder: a
   * `TreeEntry.read` started now opens it through that folder (and reads it on after the walk
   * moved on). Its errors end the walk.
   */
  large?(e: TreeEntry): void;
}

/** Kept files read through a held folder in a row, and their bytes, before yielding to the event loop. */
const YIELD_EVERY_FILES = 32;
const YIELD_EVERY_BYTES = 4 * 1024 * 1024;

/**
 * Reads still under way in other threads (one per folder, or per slice of `SLICE_ENTRIES` files
 * of a large folder), before the walk waits for the oldest.
 */
const MAX_PENDING_READS = 32;

/**
 * Counts the synchronous reads of one walk between yields (shared by its folders), and the reads
 * in other threads still under way (`pending`, settled before the walk returns).
 */
export interface ReadPace {
  files: number;
  bytes: number;
  pending: Promise<void>[];
}

/** One folder of the walk (see the file comment). */
export class WalkFolder {
  /** The folder's namespace path, '' for '/' (a child's path is `${base}/${name}`). */
  readonly base: string;
  /** The folder's path below the walk's start ('' for the start), set by `entries`. */
  rel = '';
  #access: FolderAccess | undefined;

  /** `nsPath`: the folder's namespace path; `access`: the layer's held folder while the walk is in it. */
  constructor(
    readonly ns: Namespace,
    nsPath: string,
    readonly mount: Mount,
    readonly layerPath: string,
    access?: FolderAccess,
  ) {
    this.base = nsPath === '/' ? '' : nsPath;
    this.#access = access;
  }

  /** Called when the walk moves on: later reads and stats of its entries go through the namespace. */
  leave(): void {
    this.#access = undefined;
  }

  /**
   * The `TreeEntry`s of the listing `listed` (`rel`: the folder's path below the start).
   * `mounted` are the mount points (and folders leading to mounts) merged into it: those
   * resolve through the namespace and are never reached through the held folder. Made in slices
   * (tools/sliced-work.ts: run it with `runSliced`).
   */
  *entries(listed: readonly DirEntry[], rel: string, mounted: readonly DirEntry[]): SlicedWork<TreeEntry[]> {
    this.rel = rel;
    const out: TreeEntry[] = new Array(listed.length);
    for (let i = 0; i < listed.length; i++) {
      if (sliceEnds(i)) yield;
      const d = listed[i];
      if (mounted.length === 0) {
        out[i] = new WalkEntry(this, undefined, d.name, d.type, undefined, true);
        continue;
      }
      const path = `${this.base}/${d.name}`;
      const isMountPoint = mounted.some((m) => m.name === d.name);
      if (isMountPoint || this.ns.table.entriesBelow(path).length > 0) {
        const resolved = this.ns.resolve(path);
        const own = resolved.mount === this.mount && resolved.path === path && !isMountPoint;
        out[i] = new WalkEntry(this, undefined, d.name, d.type, resolved, own);
      } else {
        out[i] = new WalkEntry(this, undefined, d.name, d.type, undefined, true);
      }
    }
    return out;
  }

  /**
   * Reads the kept files of this folder through the held folder and hands them to `reader`
   * (see `KeptFileReader`); does nothing where the folder is not held. Yields to the event loop
   * every 32 files or 4 MiB, since these reads (and a literal search of them) are synchronous.
   */
  async readKept(kept: Iterable<TreeEntry>, reader: KeptFileReader, pace: ReadPace): Promise<void> {
    const access = this.#access;
    if (access?.readFiles && reader.beside) return this.#readKeptBeside(access.readFiles.bind(access), kept, reader, pace);
    for (const e of kept) {
      const access = this.#access;
      if (!access) return;
      if (e.type !== 'file' || !(e instanceof WalkEntry) || e.folder !== this || !e.own) continue;
      let bytes: Uint8Array;
      try {
        // `transient`: the layer may hand the bytes in a buffer it reuses for the next read.
        const read = access.readFile(e.name, { maxBytes: reader.maxBytes, transient: true });
        bytes = read instanceof Promise ? await read : read;
      } catch (err) {
        if (isVfsError(err, 'TOO_LARGE')) reader.large?.(e);
        if (isVfsError(err) && err.code !== 'BUSY') continue; // left to the caller's own read
        throw this.#anchor(err);
      }
      const taken = reader.take(e, bytes);
      if (taken) await taken;
      pace.files++;
      pace.bytes += bytes.byteLength;
      if (pace.files >= YIELD_EVERY_FILES || pace.bytes >= YIELD_EVERY_BYTES) {
        pace.files = 0;
        pace.bytes = 0;
        await yieldToLoop();
      }
    }
  }

  /**
   * `readKept` where the layer reads in other threads (`FolderAccess.readFiles`): the reads start
   * now and the walk goes on; their bytes reach `reader` as they arrive, a file too large
   * goes to `reader.large`, any other refusal is left to the caller's own read, `BUSY` or a
   * failed read ends the walk (when `walkTree` settles the pending reads). A large folder's files
   * are asked for in slices of `SLICE_ENTRIES`, yielding between them (sending 300,000 names in
   * one message held the loop ~130 ms). At most `MAX_PENDING_READS` reads are under way: past
   * that the walk waits for the oldest.
   */
  async #readKeptBeside(
    readFiles: NonNullable<FolderAccess['readFiles']>,
    kept: Iterable<TreeEntry>,
    reader: KeptFileReader,
    pace: ReadPace,
  ): Promise<void> {
    const files: WalkEntry[] = [];
    let looked = 0;
    for (const e of kept) {
      if (e.type === 'file' && e instanceof WalkEntry && e.folder === this && e.own) files.push(e);
      if (sliceEnds(++looked)) await yieldToLoop();
    }
    const options = { maxBytes: reader.find?.maxBytes ?? reader.maxBytes, ...(reader.find ? { find: reader.find } : {}) };
    for (let from = 0; from < files.length; from += SLICE_ENTRIES) {
      if (from > 0) await yieldToLoop();
      const slice = files.length <= SLICE_ENTRIES ? files : files.slice(from, from + SLICE_ENTRIES);
      const done = readFiles(
        slice.map((e) => e.name),
        options,
        (i, r) => {
          if (r instanceof Uint8Array) return reader.take(slice[i], r);
          if (r === undefined) return;
          if ('holds' in r) return reader.scanned?.(slice[i], r.holds, r.nul);
          if (r.code === 'TOO_LARGE') reader.large?.(slice[i]);
          else if (r.code === 'BUSY') throw this.#anchor(r);
        },
      );
      done.catch(() => undefined); // settled (and thrown) by walkTree
      pace.pending.push(done);
      while (pace.pending.length > MAX_PENDING_READS) await pace.pending.shift();
    }
  }

  /** `TreeEntry.stat` of an entry of this folder (see there for the route). */
  async stat(e: WalkEntry): Promise<Stat> {
    const access = e.own ? this.#access : undefined;
    if (!access) return this.ns.stat(e.resolved);
    try {
      return access.stat(e.name);
    } catch (err) {
      throw this.#anchor(err);
    }
  }

  /** `TreeEntry.read` of an entry of this folder (see there for the route). */
  async read(e: WalkEntry, options?: ReadOptions): Promise<Uint8Array> {
    const access = e.own ? this.#access : undefined;
    if (!access) return this.ns.readFile(e.resolved, options);
    try {
      return await access.readFile(e.name, { maxBytes: options?.maxBytes });
    } catch (err) {
      throw this.#anchor(err);
    }
  }

  /** A layer error re-anchored at its namespace path (as `Namespace` does). */
  #anchor(err: unknown): unknown {
    if (!isVfsError(err)) return err;
    return err.withPath(err.path === '' ? this.mount.path : `${this.mount.path}/${err.path}`);
  }
}

/**
 * A `TreeEntry` built by the walk. `resolved` is made on first use and kept: most of a big
 * walk's entries are neither kept nor entered, and building three strings and an object for
 * each showed up as a large share of a `**` list's time. `rel` is made from the folder's on each
 * use and not kept (a glob asks for it once or twice while the walk judges the entry; keeping
 * 300,000 of them made each collection of the old generation longer). `own` is true for an
 * entry of the folder's own layer (not a mount point): only those may go through the held folder.
 */
class WalkEntry implements TreeEntry {
  #resolved: Resolved | undefined;
  readonly #rel: string | undefined;

  /** `rel`: given for an entry no walk met (`entryAt`), else made from the folder's. */
  constructor(
    readonly folder: WalkFolder,
    rel: string | undefined,
    readonly name: string,
    readonly type: EntryType,
    resolved: Resolved | undefined,
    readonly own: boolean,
  ) {
    this.#rel = rel;
    this.#resolved = resolved;
  }

  get rel(): string {
    if (this.#rel !== undefined) return this.#rel;
    const base = this.folder.rel;
    return base === '' ? this.name : `${base}/${this.name}`;
  }

  get resolved(): Resolved {
    const f = this.folder;
    return (this.#resolved ??= { path: `${f.base}/${this.name}`, mount: f.mount, rel: childPath(f.layerPath, this.name) });
  }

  stat(): Promise<Stat> {
    return this.folder.stat(this);
  }

  read(options?: ReadOptions): Promise<Uint8Array> {
    return this.folder.read(this, options);
  }
}

/**
 * A `TreeEntry` for a path no walk met (grep given a file as its `path`): `rel` as the caller
 * shows it below its start; reads and stats go through the namespace.
 */
export function entryAt(ns: Namespace, resolved: Resolved, rel: string, type: EntryType): TreeEntry {
  const parent = resolved.path.slice(0, resolved.path.lastIndexOf('/')) || '/';
  const layerParent = resolved.rel.slice(0, Math.max(0, resolved.rel.lastIndexOf('/')));
  const name = resolved.path.slice(resolved.path.lastIndexOf('/') + 1);
  return new WalkEntry(new WalkFolder(ns, parent, resolved.mount, layerParent), rel, name, type, resolved, false);
}
