/**
 * The `FolderImage` port: a workspace folder seen as a flat, sorted list of entries (folders,
 * regular files, links) and changed one entry at a time — what snapshots read and what a restore
 * writes back. Every operation is relative to a `root` folder and never follows a link below it:
 * a link is an entry of its own, never a way in. `DiskFolderImage` (disk-folder-image.ts) walks
 * held folder handles; `MemoryFolderImage` (src/host/memory/memory-folder-image.ts) walks a memfs
 * volume. Relative paths are '/'-separated with no '.', '..' or empty segment (`BAD_NAME`).
 */
import { CodedError } from '../../vfs/index.js';

/**
 * One entry below a root. `path`: root-relative, '/'-separated, no leading './'. `mode`: the
 * permission bits only (`& 0o7777`). `stamp`: changes whenever the file's bytes may have changed
 * (disk: `${ino}:${size}:${mtimeMs}:${ctimeMs}`, the times with their sub-millisecond fraction;
 * memory: the same fields plus a digest of the bytes).
 * `fresh`: the file changed so recently (disk: its ctime within a second of the scan) that a later
 * change could keep the same stamp, so the stamp must not vouch for its bytes next time.
 */
export type ImageEntry =
  | { path: string; kind: 'dir'; mode: number }
  | { path: string; kind: 'file'; mode: number; size: number; stamp: string; fresh?: boolean }
  | { path: string; kind: 'link'; target: string };

/** What `scan` found: the entries, and the special files (FIFO, socket, device, unreadable name) left out. */
export interface FolderScan {
  entries: ImageEntry[];
  /** Root-relative paths of special files, sorted; never read, never descended. */
  skipped: string[];
}

/** A workspace folder read and written entry by entry, never following a link below `root` (see the file comment). */
export interface FolderImage {
  /**
   * Every entry below root (root excluded), sorted by path (plain string compare of the
   * '/'-joined paths), never following a link; `skip(path)` true leaves that entry and
   * everything below it out (used for `.git` at the root). Throws `FolderImageError`
   * `NOT_FOUND` / `SYMLINK_ESCAPE` / `NOT_DIRECTORY` when root itself is missing, a link or not a folder.
   */
  scan(root: string, options?: { skip?(path: string): boolean }): Promise<FolderScan>;
  /**
   * The bytes of the regular file at rel, every folder on the way opened without following a
   * link. Throws `FolderImageError` `NOT_REGULAR_FILE` (a folder or special file), `NOT_FOUND`,
   * `SYMLINK_ESCAPE` (a link at rel or on the way) or `NOT_DIRECTORY` (a file on the way).
   */
  read(root: string, rel: string): Promise<Uint8Array>;
  /**
   * The target of the link at rel (the folders on the way opened without following a link).
   * Throws `FolderImageError` `NOT_FOUND`, `NOT_REGULAR_FILE` (something else is there),
   * `SYMLINK_ESCAPE` (a link on the way) or `NOT_DIRECTORY`.
   */
  readLink(root: string, rel: string): Promise<string>;
  /**
   * Removes rel: a file, a link (never its target) or a folder with everything below it
   * (links inside removed as links). Missing is fine, and so is a link or file on the way
   * (nothing can be at rel without following it).
   */
  remove(root: string, rel: string): Promise<void>;
  /**
   * Makes folder rel (its parent must exist, as a folder reached without links) with exactly
   * `mode`; an existing folder only gets its mode set; a file or link there is removed first.
   */
  makeFolder(root: string, rel: string, mode: number): Promise<void>;
  /**
   * Writes the file at rel atomically (a temp name `.gatefs-tmp-*` in the same folder, fsync,
   * rename over), mode exactly `mode` (set after create, umask does not apply); replaces a file
   * or link there (never writing through the link); a folder there is removed first.
   */
  writeFile(root: string, rel: string, bytes: Uint8Array, mode: number): Promise<void>;
  /** Makes a symlink with `target` at rel, replacing what is there (a folder: removed first). */
  makeLink(root: string, rel: string, target: string): Promise<void>;
  /** Bytes used on disk by regular files below root (for status); memory: the sum of sizes. Same errors as `scan`. */
  bytesUsed(root: string): Promise<number>;
}

/** The conditions a `FolderImage` reports; each is the `VfsCode` of the same name's meaning. */
export type FolderImageCode = 'NOT_FOUND' | 'SYMLINK_ESCAPE' | 'NOT_DIRECTORY' | 'NOT_REGULAR_FILE' | 'BAD_NAME';

const WHAT: Record<FolderImageCode, string> = {
  NOT_FOUND: 'nothing is there',
  SYMLINK_ESCAPE: 'a symbolic link is in the way, and is never followed',
  NOT_DIRECTORY: 'a file is in the way where a folder should be',
  NOT_REGULAR_FILE: 'it is not a regular file',
  BAD_NAME: "the path is not root-relative ('/'-separated, no '.', '..' or empty part)",
};

/**
 * A `FolderImage` refusal: `code`, the operation `op` and the root-relative `path` it concerns
 * ('' for the root). The message names the relative path only, never the host root.
 */
export class FolderImageError extends CodedError<FolderImageCode, { readonly op: string; readonly path: string }> {
  override readonly name = 'FolderImageError';

  constructor(code: FolderImageCode, op: string, path: string, options?: { cause?: unknown }) {
    super(code, `${code}: ${op} '${path}': ${WHAT[code]}`, { op, path }, options);
  }
}

/**
 * The segments of a root-relative path. Throws `FolderImageError` `BAD_NAME` for '' (unless
 * `allowRoot`), a leading or doubled '/', '.', '..' or a NUL.
 */
export function segmentsOf(op: string, rel: string, allowRoot = false): string[] {
  if (rel === '') {
    if (allowRoot) return [];
    throw new FolderImageError('BAD_NAME', op, rel);
  }
  const segments = rel.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\0'))) throw new FolderImageError('BAD_NAME', op, rel);
  return segments;
}

/** `a` before `b` in scan order (plain string compare of the whole paths). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
