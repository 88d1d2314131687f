/**
 * `walkHostTree`: the host layer's recursive-walk fast path (vfs/layer.ts `WalkableLayer`), and
 * `HeldFolderAccess`, the reads and stats it offers inside each folder it holds.
 *
 * Every folder under the start, depth first in listing order, each with its sorted entries (or,
 * where the caller names the only entries it needs, `WalkOptions.only`, those looked up by
 * `lstat` through the folder's handle instead of listing it).
 * Each folder is opened through its parent's handle without following links (vfs/host-walk.ts
 * `ConfinedWalk.openDir`); links are listed, never descended. A bounded number of handles stay
 * open whatever the depth (vfs/held-folder-stack.ts: at most 33, plus the folders whose files
 * reads in other threads still use, `readFiles`); an ancestor closed meanwhile
 * is reopened and checked by `(dev, ino)`, and skipped with everything below it if it changed.
 * The walk yields to the event loop every 64 folders, and every `SLICE_ENTRIES` entries while it
 * picks the sub-folders of one large folder. Breaking out of the loop closes every handle.
 *
 * The entries of the folder being visited can be read and stat'ed through its handle (one
 * `open` or `lstat` by name, no walk from the root), with the layer's own checks: the layer
 * supplies them (`HostFolderOps`) and this module only holds the handle, the buffer reused by
 * `transient` reads, and the rule that the access dies when the walk moves on. Reads started in
 * other threads (`readFiles`, where the layer offers them) hold the handle until they end.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { VfsError } from './errors.js';
import type {
  DirEntry,
  EntryType,
  FileScanned,
  FolderAccess,
  FolderReadManyOptions,
  FolderReadOptions,
  Stat,
  WalkEntries,
  WalkOptions,
} from './layer.js';
import { childPath, lookupNames } from './layer.js';
import { holdDir, type ConfinedWalk, type HeldDir } from './host-walk.js';
import { CHECKPOINT_EVERY, HeldFolderStack, WINDOW, type Frame } from './held-folder-stack.js';
import { layerSegments } from './host-names.js';
import { isEntryName } from './host-entry.js';
import { MAX_PATH_SEGMENTS } from './path.js';

/** How often a recursive walk yields to the event loop (in folders listed). */
const WALK_SLICE_DIRS = 64;
/** How often it yields while it picks the sub-folders of one folder (in entries looked at). */
const SLICE_ENTRIES = 2048;

/** The buffer one walk reuses for `transient` reads (files up to this size, minus one byte). */
const SCRATCH_BYTES = 256 * 1024;

/**
 * What the host layer does inside a held folder, with its own checks (vfs/host-layer.ts):
 * list it, read an entry (`O_NOFOLLOW | O_NONBLOCK`, `fstat`, regular files only, I/O through
 * that handle), `lstat` an entry. Errors are `VfsError`s at the layer path given.
 */
export interface HostFolderOps {
  /** The folder's entries, sorted; a promise for a folder large enough to be listed in slices. */
  list(dir: HeldDir): DirEntry[] | Promise<DirEntry[]>;
  read(
    dir: HeldDir,
    name: string,
    path: string,
    options: FolderReadOptions | undefined,
    scratch: Buffer | undefined,
  ): Uint8Array | Promise<Uint8Array>;
  stat(dir: HeldDir, name: string, path: string): Stat;
  /** The type of the entry `name` (lstat semantics), undefined when there is none. */
  lookUp(dir: HeldDir, name: string, path: string): EntryType | undefined;
  /** Reads several entries in other threads (vfs/host-read-many.ts); absent where that is not offered. */
  readMany?(
    dir: HeldDir,
    names: readonly string[],
    paths: readonly string[],
    options: FolderReadManyOptions,
    each: (index: number, read: Uint8Array | VfsError | FileScanned | undefined) => void | Promise<void>,
  ): Promise<void>;
}

/** Handles a walk keeps (vfs/held-folder-stack.ts); each at least 1. */
export interface WalkHandles {
  window?: number;
  checkpointEvery?: number;
}

/**
 * Walks the folder `path` of the layer behind `walk` (see the file comment). `SYMLINK_ESCAPE`,
 * `NOT_FOUND`, `NOT_DIRECTORY` for the start; `TOO_DEEP` (at `path`) for a folder whose entries
 * would be deeper than `MAX_PATH_SEGMENTS` below the layer root; `BUSY` out of descriptors.
 */
export async function* walkHostTree(
  walk: ConfinedWalk,
  ops: HostFolderOps,
  path: string,
  options: WalkOptions = {},
  handles: WalkHandles = {},
): AsyncGenerator<WalkEntries> {
  const segments = layerSegments(path, 'walk');
  const chain = walk.openChain(segments, 'walk');
  const start = chain.pop()!;
  walk.release(chain);
  const stack = new HeldFolderStack(walk, Math.max(1, handles.window ?? WINDOW), Math.max(1, handles.checkpointEvery ?? CHECKPOINT_EVERY));
  stack.push(start, '');
  const scratch: Scratch = {};
  let listed = 0;
  try {
    for (let frame = stack.top(); frame; frame = nextFolder(walk, stack)) {
      if (segments.length + stack.depth > MAX_PATH_SEGMENTS) {
        throw new VfsError(
          'TOO_DEEP',
          'walk',
          path,
          `a folder below is nested deeper than ${MAX_PATH_SEGMENTS} levels, the most a path can name`,
        );
      }
      const dir = frame.dir!;
      const only = options.only?.(dir.rel);
      const found = only === undefined ? ops.list(dir) : lookUpIn(ops, dir, only);
      const entries = found instanceof Promise ? await found : found;
      const files = new HeldFolderAccess(ops, dir, scratch);
      try {
        yield { path: dir.rel, entries, files };
      } finally {
        files.end();
      }
      if (++listed % WALK_SLICE_DIRS === 0) await yieldToLoop();
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        if (e.type === 'directory' && (options.descend?.(childPath(dir.rel, e.name)) ?? true)) frame.names.push(e.name);
        if (i % SLICE_ENTRIES === SLICE_ENTRIES - 1) await yieldToLoop();
      }
    }
  } finally {
    stack.closeAll();
  }
}

/**
 * Moves the walk to the next folder to list: the next sub-folder of the deepest frame that has
 * one left (reopening that frame when its handle was closed), popping finished frames.
 * Undefined when the walk is done.
 */
function nextFolder(walk: ConfinedWalk, stack: HeldFolderStack): Frame | undefined {
  for (let top = stack.top(); top; top = stack.top()) {
    if (top.next < top.names.length) {
      const parent = stack.open();
      if (!parent) continue; // it changed under the walk: marked done, popped next round
      const name = top.names[top.next++];
      const child = openSubdir(walk, parent, name);
      if (child) return stack.push(child, name);
    } else {
      stack.pop();
    }
  }
  return undefined;
}

/** The entries `names` of the held folder `dir`, each an `lstat` through its handle; missing ones left out. */
function lookUpIn(ops: HostFolderOps, dir: HeldDir, names: readonly string[]): DirEntry[] {
  const out: DirEntry[] = [];
  for (const name of lookupNames(names)) {
    const type = ops.lookUp(dir, name, childPath(dir.rel, name));
    if (type !== undefined) out.push({ name, type });
  }
  return out;
}

/** A child folder for the walk, or undefined when it vanished or became something else. */
function openSubdir(walk: ConfinedWalk, parent: HeldDir, name: string): HeldDir | undefined {
  try {
    return walk.openDir(parent, name, 'walk', false);
  } catch (e) {
    if (e instanceof VfsError && (e.code === 'NOT_FOUND' || e.code === 'NOT_DIRECTORY' || e.code === 'SYMLINK_ESCAPE')) return undefined;
    throw e;
  }
}

/** The read buffer one walk reuses for `transient` reads. */
interface Scratch {
  buf?: Buffer;
}

/**
 * The `files` of one folder yielded by `walkHostTree` (vfs/layer.ts `FolderAccess`): reads and
 * stats of its entries through the held folder's handle. `end()` is called when the walk moves
 * on; later calls throw `INTERNAL`.
 */
class HeldFolderAccess implements FolderAccess {
  // Private (#) fields: serializing or inspecting the accessor never shows a handle or host path.
  readonly #ops: HostFolderOps;
  readonly #dir: HeldDir;
  readonly #scratch: Scratch;
  #live = true;

  constructor(ops: HostFolderOps, dir: HeldDir, scratch: Scratch) {
    this.#ops = ops;
    this.#dir = dir;
    this.#scratch = scratch;
    if (ops.readMany) this.readFiles = (names, options, each) => this.#readFiles(names, options, each);
  }

  readFile(name: string, options?: FolderReadOptions): Uint8Array | Promise<Uint8Array> {
    const path = this.#entry(name, 'read');
    const scratch = options?.transient ? (this.#scratch.buf ??= Buffer.allocUnsafe(SCRATCH_BYTES)) : undefined;
    return this.#ops.read(this.#dir, name, path, options, scratch);
  }

  stat(name: string): Stat {
    return this.#ops.stat(this.#dir, name, this.#entry(name, 'stat'));
  }

  /** Set only where the layer offers it (see the constructor). */
  readFiles?: FolderAccess['readFiles'];

  /** `FolderAccess.readFiles`: the folder's handle is held until the reads end, even after the walk moved on. */
  #readFiles(
    names: readonly string[],
    options: FolderReadManyOptions,
    each: (index: number, read: Uint8Array | VfsError | FileScanned | undefined) => void | Promise<void>,
  ): Promise<void> {
    const paths = names.map((n) => this.#entry(n, 'read'));
    const release = holdDir(this.#dir);
    const reads = this.#ops.readMany!(this.#dir, names, paths, options, each);
    reads.then(release, release);
    return reads;
  }

  /** Called by the walk when it moves on: every later call throws `INTERNAL`. */
  end(): void {
    this.#live = false;
  }

  /** The layer path of the entry `name`; `INTERNAL` once the walk moved on, `BAD_NAME` for a non-name. */
  #entry(name: string, op: string): string {
    const path = childPath(this.#dir.rel, name);
    if (!this.#live) throw new VfsError('INTERNAL', op, path, 'the walk has moved past this folder');
    if (!isEntryName(name)) {
      throw new VfsError('BAD_NAME', op, this.#dir.rel, 'not the name of an entry of the folder');
    }
    return path;
  }
}
