/**
 * Node's stat shapes as the VFS reports them: `entryTypeOf` and `toStat`. node:fs (`Stats`,
 * `Dirent`) and memfs hand back the same shape (memfs with number or bigint fields), so the host
 * and memory layers share this one mapping and report every path alike: a symlink as `symlink`
 * (never followed), anything but a file, folder or link (FIFO, socket, device) as `other`.
 */
import type { EntryType, Stat } from './layer.js';

/** What `entryTypeOf` needs: the type predicates of a Node `Stats` or `Dirent` (or memfs's). */
export interface NodeTypeProbe {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** What `toStat` needs: an lstat result of node:fs or memfs; memfs may give bigints. */
export interface NodeStatLike extends NodeTypeProbe {
  size: number | bigint;
  mode: number | bigint;
  mtimeMs: number | bigint;
}

/** The entry type of `d`; a symbolic link is `symlink` whatever it points at. */
export function entryTypeOf(d: NodeTypeProbe): EntryType {
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isDirectory()) return 'directory';
  if (d.isFile()) return 'file';
  return 'other';
}

/**
 * `st` as a VFS `Stat`: the entry type, the size for files and links (0 for the rest, whose size
 * means nothing portable), the permission bits, and the modification time in milliseconds.
 */
export function toStat(st: NodeStatLike): Stat {
  const type = entryTypeOf(st);
  return {
    type,
    size: type === 'file' || type === 'symlink' ? Number(st.size) : 0,
    mode: Number(st.mode) & 0o7777,
    mtimeMs: Number(st.mtimeMs),
  };
}
