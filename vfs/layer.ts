/**
 * The layer interfaces: what every filesystem implementation of the VFS honours.
 *
 * Paths given to a layer are layer-relative: '' is the layer root, otherwise names joined by
 * '/'. The namespace hands over only paths the grammar (`vfs/path.ts`) accepted, and every layer
 * checks again on its own (`vfs/layer-path.ts` `checkLayerPath`: `BAD_NAME` for '.', '..', an
 * empty name or NUL, `NAME_TOO_LONG`) before it touches anything. A layer never follows a symbolic link: a link as an
 * intermediate component is `SYMLINK_ESCAPE` (the error's path names the link); as the last
 * component, `stat` reports it as `symlink`, `readFile` refuses it with `SYMLINK_ESCAPE`, and
 * `readLink` (an extension) returns its target text. Following links that stay beneath a mount
 * is the namespace's job (vfs/link-resolution.ts), which hands layers link-free paths only.
 *
 * Modelled on Go's io/fs: a small read core (`Layer`), writing as an extension
 * (`WritableLayer`), and optional fast paths found by checking for the method.
 */
import { VfsError, isVfsError } from './errors.js';
import { MAX_NAME_BYTES, utf8Length } from './path.js';

/** What a path is, as `stat` and `readdir` report it (a symlink is reported, never followed). */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

/** What `stat` reports (lstat semantics: a final symlink is reported, not followed). */
export interface Stat {
  type: EntryType;
  /** Bytes for files; 0 for folders in layers that do not track it. */
  size: number;
  /** Permission bits (e.g. 0o644). */
  mode: number;
  mtimeMs: number;
}

/** One entry of a folder listing. Listings are sorted by name (UTF-16 code unit order). */
export interface DirEntry {
  name: string;
  type: EntryType;
}

export interface ReadOptions {
  /** Refuse with `TOO_LARGE` instead of reading more than this many bytes. */
  maxBytes?: number;
  /**
   * Streaming, for files too large to hold (read's windows of big files): a layer that can
   * hands the file's bytes to `onChunk` in order, a slice at a time (each valid only during the
   * call), and resolves to an empty array; `onChunk` returning false stops the read there. A
   * layer that cannot stream ignores it and returns the bytes as usual, so the caller treats
   * the bytes returned as one more chunk. `maxBytes` still applies. The host layer streams.
   */
  onChunk?: (chunk: Uint8Array) => boolean | undefined;
}

/** The read core every layer implements. All methods throw `VfsError` only. */
export interface Layer {
  /** A short name of the implementation ('memory', 'host', 'overlay', …) for status and errors. */
  readonly kind: string;
  /** Metadata of a path without following a final symlink. `NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE`. */
  stat(path: string): Promise<Stat>;
  /** All bytes of a regular file. `IS_DIRECTORY`, `NOT_REGULAR_FILE`, `SYMLINK_ESCAPE`, `TOO_LARGE`, `NOT_FOUND`. */
  readFile(path: string, options?: ReadOptions): Promise<Uint8Array>;
  /** The entries of a folder, sorted by name. `NOT_DIRECTORY`, `NOT_FOUND`, `SYMLINK_ESCAPE`. */
  readdir(path: string): Promise<DirEntry[]>;
}

export interface WriteOptions {
  /** Create only: `ALREADY_EXISTS` when the name exists (O_EXCL semantics). */
  exclusive?: boolean;
  /** Mode for a new file (default 0o644). An existing file always keeps its mode. */
  mode?: number;
  /**
   * False skips the fsync before the file is published (default true; layers without fsync
   * ignore it). Only for bytes that can be produced again, such as files checked out from git
   * objects (git's own checkout does not fsync them either).
   */
  durable?: boolean;
  /**
   * Compare-and-swap: publish only if the file still holds exactly these bytes at the moment
   * the new ones are about to replace them (checked after the new bytes are written and synced,
   * just before the rename); otherwise `STALE_CONTENT` and nothing changes. Narrows, but cannot
   * close, the window in which a writer outside the caller's locks (an editor, another install)
   * could be overwritten: the check and the rename are two system calls. Ignored with
   * `exclusive` (which already refuses an existing file). Every layer that writes honours it.
   */
  ifMatch?: Uint8Array;
}

export interface WriteResult {
  /** True when the file did not exist before. */
  created: boolean;
}

export interface RemoveOptions {
  /** True refuses a folder (`IS_DIRECTORY`) instead of removing it when empty: files and links only. */
  fileOnly?: boolean;
  /**
   * Compare-and-swap: remove only if the name is a regular file holding exactly these bytes
   * at the moment it is about to be removed; otherwise `STALE_CONTENT` and nothing changes.
   * The same narrowing as `WriteOptions.ifMatch` (the compare and the unlink are two calls).
   */
  ifMatch?: Uint8Array;
}

export interface RenameOptions {
  /**
   * True lets a file or link at `from` replace a file or link at `to` (atomically, as
   * rename(2)). Default false: an existing `to` is `ALREADY_EXISTS` and nothing changes. A
   * folder at `to` is always `IS_DIRECTORY`; a folder at `from` never replaces anything.
   */
  overwrite?: boolean;
}

/**
 * The writing extension. Every method either does the whole change or throws; a layer that
 * cannot write (the read-only wrapper) throws `READ_ONLY` and never drops a write.
 */
export interface WritableLayer extends Layer {
  /**
   * Replace (or create) a file atomically: a reader sees the old or the new bytes, never a mix.
   * The parent folder must exist (`NOT_FOUND`). Replacing never writes through a hard link.
   */
  writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult>;
  /** Create one folder. `ALREADY_EXISTS` when the name exists. */
  mkdir(path: string): Promise<void>;
  /**
   * Remove a file, a symlink (not its target) or an empty folder (`NOT_EMPTY`). With `ifMatch`,
   * only a regular file holding those bytes (`STALE_CONTENT` otherwise).
   */
  remove(path: string, options?: RemoveOptions): Promise<void>;
  /**
   * Rename `from` to `to` inside the layer, as rename(2) without following a link at either
   * end: a link is moved as a link, a folder with everything in it. Nothing is ever replaced
   * silently (`RenameOptions.overwrite`). Codes: `NOT_FOUND` (`from`, or `to`'s parent),
   * `ALREADY_EXISTS`, `IS_DIRECTORY` (a folder at `to`), `INVALID_INPUT` (a folder into
   * itself, or the root), `NOT_REGULAR_FILE` (a special file at either end), `NOT_DIRECTORY`,
   * `SYMLINK_ESCAPE` (a link on the way), `CROSS_MOUNT` (a host file system boundary), and
   * the layer's own refusals (`READ_ONLY`, `PROTECTED_PATH`, …). `from` and `to` naming the
   * same entry is `INVALID_INPUT` too: a move onto itself is a mistake, never a silent no-op.
   */
  rename(from: string, to: string, options?: RenameOptions): Promise<void>;
}

/**
 * Optional extension: the target text of a symbolic link, found by `isLinkReadingLayer`.
 * `path` is layer-relative; links on the way are `SYMLINK_ESCAPE` as for every operation, the
 * last component is not followed. The text is returned as stored (it may be absolute, climb
 * out, or dangle): the caller decides what it may reach (vfs/link-resolution.ts).
 * Codes: `NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE`, `NOT_SYMLINK` (not a link).
 */
export interface LinkReadingLayer extends Layer {
  readLink(path: string): Promise<string>;
}

/**
 * True when the layer can read link targets (layers without it never have a link followed).
 *
 * The one rule for wrappers (read-only, path rules, sparse, switchable, the disclosure hint): a
 * wrapper always has `readLink`, and over an inner layer without it answers `NOT_SYMLINK` for
 * every path, which is what a layer without links would say: link resolution ends both in
 * `SYMLINK_ESCAPE`, the link not followed (vfs/link-resolution.ts `linkTarget`).
 */
export function isLinkReadingLayer(layer: Layer): layer is LinkReadingLayer {
  return typeof (layer as Partial<LinkReadingLayer>).readLink === 'function';
}

/**
 * Optional fast path: `stat` that answers undefined for a name that is not there instead of
 * throwing `NOT_FOUND`, found by `isProbingLayer`. An overlay asks its upper about every name it
 * serves and most are absent; a thrown error costs more than the lookup itself. Every other
 * outcome is `stat`'s (a link on the way is `SYMLINK_ESCAPE`, a file on the way `NOT_DIRECTORY`).
 */
export interface ProbingLayer extends Layer {
  statIfPresent(path: string): Promise<Stat | undefined>;
}

/** True when the layer offers `statIfPresent`. */
export function isProbingLayer(layer: Layer): layer is ProbingLayer {
  return typeof (layer as Partial<ProbingLayer>).statIfPresent === 'function';
}

/** True when the layer offers the writing extension (it may still refuse with `READ_ONLY`). */
export function isWritableLayer(layer: Layer): layer is WritableLayer {
  return typeof (layer as Partial<WritableLayer>).writeFile === 'function';
}

/** Joins a layer-relative folder path and a child name. */
export function childPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** The parent of a layer-relative path ('' for a top-level name). */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

/** The last segment of a layer-relative path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Compares names in the one stable listing order used everywhere (UTF-16 code units). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Options of a read through a walk's held folder (`FolderAccess.readFile`). */
export interface FolderReadOptions extends ReadOptions {
  /**
   * The caller is done with the bytes before its next read through the same walk (grep), so
   * the walk may return them in a buffer it reuses instead of allocating one per file.
   */
  transient?: boolean;
}

/**
 * Access to the entries of one folder a walk holds open, by name (`FolderAccess`), offered by a
 * walk's fast path. It reaches the entry through the held folder instead of walking from the
 * layer root again, with the same rules and errors as the layer's own `readFile` and `stat`
 * (no link followed, special files refused without blocking, layer-relative error paths).
 * Valid only until the walk moves on: afterwards every call throws `INTERNAL`. The tools reach
 * it only through tools/walk-folder.ts, which falls back to the namespace where it is absent.
 */
export interface FolderAccess {
  /**
   * As `Layer.readFile` for the entry `name` of the folder. May answer synchronously (small
   * files), so callers `await` it or check for a Promise. `BAD_NAME` for '', '.', '..' or a
   * name with '/' or NUL.
   */
  readFile(name: string, options?: FolderReadOptions): Uint8Array | Promise<Uint8Array>;
  /** As `Layer.stat` for the entry `name` of the folder (lstat semantics), synchronously. */
  stat(name: string): Stat;
  /**
   * Optional: several entries read beside the event loop (other threads), each as `readFile`
   * would (same checks, the same refusals as `VfsError`s), started now while the walk holds the
   * folder and delivered to `each` as they arrive, possibly after the walk moved on: the layer
   * keeps the folder for them. The bytes are valid only until `each` returns (or its promise
   * settles); `undefined` means "read it yourself" (it changed while read, or, with `find`, it
   * holds those bytes but is too large to hand over). With `find`, files up to `maxBytes` of any
   * size are looked through in place: one without those bytes is answered `FileScanned` and never
   * read back, and so is one holding them unless `find.handOver`. Rejects with `each`'s error, or when the reading itself failed (`INTERNAL`). Offered
   * where it pays and is as safe as `readFile` (the host layer under the procfs guarantee).
   */
  readFiles?(
    names: readonly string[],
    options: FolderReadManyOptions,
    each: (index: number, read: Uint8Array | VfsError | FileScanned | undefined) => void | Promise<void>,
  ): Promise<void>;
}

/** Options of `FolderAccess.readFiles`. */
export interface FolderReadManyOptions {
  /** Larger files answer `TOO_LARGE`. */
  maxBytes: number;
  /**
   * Bytes to look for: files are looked through in place; only those holding them are handed
   * over, and only with `handOver`. `sniffBytes` leading bytes are checked for a NUL.
   */
  find?: { bytes: Uint8Array; sniffBytes: number; handOver: boolean };
}

/** A file `FolderAccess.readFiles` looked through for `find` without handing it over. */
export interface FileScanned {
  /** True when it holds the bytes. */
  readonly holds: boolean;
  /** True when a NUL byte lies in its first `sniffBytes`. */
  readonly nul: boolean;
}

/**
 * One folder met by a recursive walk: its layer-relative path, its sorted entries and, when the
 * layer has the fast path, `files` to read or stat those entries while the walk holds the
 * folder. A wrapper that shows everything its inner layer shows may hand `files` on (`readOnly`
 * does, as a new object holding only the two reads). A layer that filters what it shows
 * (sparse, overlay, the path rules' hidden folder) must never pass an inner layer's `files`
 * through: it would reach entries the layer hides.
 */
export interface WalkEntries {
  path: string;
  entries: DirEntry[];
  files?: FolderAccess;
}

/** What a recursive walk (`walkTree`, `walkLayer`) enters. */
export interface WalkOptions {
  /** Asked before descending into a sub-folder (layer-relative path); false skips it (e.g. `.git`). */
  descend?(path: string): boolean;
  /**
   * Asked before a folder is listed (layer-relative path): names, when only those entries of it
   * matter (a glob that spells them out). The walk then looks them up one by one (as `stat`, a
   * link reported, not followed; missing ones left out) instead of listing the folder; the
   * folder's `entries` hold only them. Undefined: the whole listing.
   */
  only?(path: string): readonly string[] | undefined;
}

/**
 * `names` deduplicated, in listing order, without anything that cannot be an entry's name ('',
 * '.', '..', a '/' or NUL, more than `MAX_NAME_BYTES` UTF-8 bytes).
 */
export function lookupNames(names: readonly string[]): string[] {
  const ok = names.filter(
    (n) =>
      n !== '' && n !== '.' && n !== '..' && !n.includes('/') && !n.includes('\0') && (n.length <= 85 || utf8Length(n) <= MAX_NAME_BYTES),
  );
  return [...new Set(ok)].sort(compareNames);
}

/**
 * Optional fast path for recursive walks (list, grep), found by `isWalkableLayer`. `walkTree`
 * yields every folder under `path` (itself first), depth first in listing order, each with its
 * sorted entries; links are listed, never descended. It must give exactly what recursive
 * `readdir` calls would (the conformance suite can compare both). Layers without it are walked
 * by `walkLayer` through `readdir`.
 */
export interface WalkableLayer extends Layer {
  walkTree(path: string, options?: WalkOptions): AsyncIterable<WalkEntries>;
}

/** True when the layer offers the `walkTree` fast path. */
function isWalkableLayer(layer: Layer): layer is WalkableLayer {
  return typeof (layer as Partial<WalkableLayer>).walkTree === 'function';
}

/**
 * The entries `names` of the folder `dir`, each looked up with `stat` (missing ones left out),
 * after checking `dir` is a folder (`NOT_DIRECTORY`, `NOT_FOUND` as `readdir` would answer).
 */
async function lookUp(layer: Layer, dir: string, names: readonly string[]): Promise<DirEntry[]> {
  const self = await layer.stat(dir);
  if (self.type !== 'directory') throw new VfsError(self.type === 'symlink' ? 'SYMLINK_ESCAPE' : 'NOT_DIRECTORY', 'readdir', dir);
  const out: DirEntry[] = [];
  for (const name of lookupNames(names)) {
    try {
      out.push({ name, type: (await layer.stat(childPath(dir, name))).type });
    } catch (e) {
      if (!isVfsError(e, 'NOT_FOUND')) throw e;
    }
  }
  return out;
}

/** A sub-folder that answers one of these mid-walk vanished or turned into something else. */
const VANISHED_FOLDER_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'NOT_DIRECTORY', 'SYMLINK_ESCAPE']);

/**
 * Walks `layer` from `path` as `WalkableLayer.walkTree` does: the fast path when the layer has
 * one, else recursive `readdir`. Folders that vanish or turn into something else mid-walk
 * (`NOT_FOUND`, `NOT_DIRECTORY`, `SYMLINK_ESCAPE`) are skipped below the starting folder.
 */
export async function* walkLayer(layer: Layer, path: string, options: WalkOptions = {}): AsyncGenerator<WalkEntries> {
  if (isWalkableLayer(layer)) {
    yield* layer.walkTree(path, options);
    return;
  }
  const pending = [path];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: DirEntry[];
    try {
      const only = options.only?.(dir);
      entries = only === undefined ? await layer.readdir(dir) : await lookUp(layer, dir, only);
    } catch (e) {
      if (dir !== path && isVfsError(e) && VANISHED_FOLDER_CODES.has(e.code)) continue;
      throw e;
    }
    yield { path: dir, entries };
    for (let i = entries.length - 1; i >= 0; i--) {
      const child = childPath(dir, entries[i].name);
      if (entries[i].type === 'directory' && (options.descend?.(child) ?? true)) pending.push(child);
    }
  }
}
