/**
 * `DiskFolderImage`: the `FolderImage` port (folder-image.ts) on the real disk, through held
 * folder handles (docs/ARCHITECTURE.md § The held-handle walk, SECURITY.md §3). The root is
 * opened `O_DIRECTORY | O_NOFOLLOW`; every folder below is opened beneath the one before as
 * `/proc/self/fd/<fd>/<name>` with `O_NOFOLLOW`, so the kernel looks up one name inside a held
 * folder and a link anywhere on the way fails the open (`SYMLINK_ESCAPE`) instead of being
 * followed. `lstat`, `unlink`, `rmdir`, `rename` and `symlink` never follow their last component.
 *
 * Limits: needs procfs (Linux); holds one descriptor per folder level of the walk (a tree deeper
 * than the descriptor limit fails with `EMFILE`); a name that is not UTF-8 cannot be reached by
 * its decoded text and lands in `skipped`. The root path itself is trusted up to its last
 * component (the caller's own folder under the state dir or repository).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  type Dirent,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { foreignCodeOf } from '../../vfs/index.js';
import { byPath, type FolderImage, FolderImageError, type FolderScan, type ImageEntry, segmentsOf } from './folder-image.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** Options of `DiskFolderImage`. */
export interface DiskFolderImageOptions {
  /** Flush each written file (and its folder) before it replaces the old one; default true. */
  readonly fsync?: boolean;
}

/** The name of `name` inside the held folder `fd`. */
function at(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

/** The `FolderImage` port on disk (see the file comment). */
export class DiskFolderImage implements FolderImage {
  private readonly fsync: boolean;

  constructor(options: DiskFolderImageOptions = {}) {
    this.fsync = options.fsync ?? true;
  }

  async scan(root: string, options: { skip?(path: string): boolean } = {}): Promise<FolderScan> {
    // A file changed this close to the scan may change again within the same timestamp tick:
    // its stamp must not vouch for its bytes later (`fresh`).
    const scan: ScanState = {
      entries: [],
      skipped: [],
      freshSince: Date.now() - FRESH_MS,
      ...(options.skip ? { skip: options.skip } : {}),
    };
    const fd = openRoot('scan', root);
    try {
      scanFolder(fd, '', scan);
    } finally {
      closeSync(fd);
    }
    return { entries: scan.entries.sort(byPath), skipped: scan.skipped.sort() };
  }

  async read(root: string, rel: string): Promise<Uint8Array> {
    const segments = segmentsOf('read', rel);
    const name = segments.pop()!;
    const parent = walkTo('read', root, segments);
    try {
      let fd: number;
      try {
        fd = openSync(at(parent, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      } catch (e) {
        throw refusal('read', rel, e, parent, name);
      }
      try {
        if (!fstatSync(fd).isFile()) throw new FolderImageError('NOT_REGULAR_FILE', 'read', rel);
        return new Uint8Array(readFileSync(fd));
      } finally {
        closeSync(fd);
      }
    } finally {
      closeSync(parent);
    }
  }

  async readLink(root: string, rel: string): Promise<string> {
    const segments = segmentsOf('readLink', rel);
    const name = segments.pop()!;
    const parent = walkTo('readLink', root, segments);
    try {
      const target = readlinkOrNull(at(parent, name));
      if (target === null) throw new FolderImageError('NOT_FOUND', 'readLink', rel);
      if (target === NOT_A_LINK) throw new FolderImageError('NOT_REGULAR_FILE', 'readLink', rel);
      return target;
    } finally {
      closeSync(parent);
    }
  }

  async remove(root: string, rel: string): Promise<void> {
    const segments = segmentsOf('remove', rel);
    const name = segments.pop()!;
    let parent: number;
    try {
      parent = walkTo('remove', root, segments);
    } catch (e) {
      // Nothing can be at rel without following a link or passing a file: nothing to remove.
      if (e instanceof FolderImageError && e.data.path !== '') return;
      throw e;
    }
    try {
      clear(parent, name);
    } finally {
      closeSync(parent);
    }
  }

  async makeFolder(root: string, rel: string, mode: number): Promise<void> {
    const segments = segmentsOf('makeFolder', rel);
    const name = segments.pop()!;
    const parent = walkTo('makeFolder', root, segments);
    try {
      const st = lstatSync(at(parent, name), { throwIfNoEntry: false });
      if (st && !st.isDirectory()) unlinkSync(at(parent, name));
      if (!st?.isDirectory()) mkdirSync(at(parent, name), { mode: 0o700 });
      const fd = openSync(at(parent, name), DIR_FLAGS);
      try {
        fchmodSync(fd, mode & 0o7777);
      } finally {
        closeSync(fd);
      }
    } finally {
      closeSync(parent);
    }
  }

  async writeFile(root: string, rel: string, bytes: Uint8Array, mode: number): Promise<void> {
    const segments = segmentsOf('writeFile', rel);
    const name = segments.pop()!;
    const parent = walkTo('writeFile', root, segments);
    try {
      const temp = tempName();
      const fd = openSync(at(parent, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        try {
          for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
          fchmodSync(fd, mode & 0o7777);
          if (this.fsync) fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        replaceWith(parent, temp, name);
        if (this.fsync) fsyncSync(parent);
      } catch (e) {
        unlinkQuietly(parent, temp);
        throw e;
      }
    } finally {
      closeSync(parent);
    }
  }

  async makeLink(root: string, rel: string, target: string): Promise<void> {
    const segments = segmentsOf('makeLink', rel);
    const name = segments.pop()!;
    const parent = walkTo('makeLink', root, segments);
    try {
      const temp = tempName();
      symlinkSync(target, at(parent, temp));
      try {
        replaceWith(parent, temp, name);
      } catch (e) {
        unlinkQuietly(parent, temp);
        throw e;
      }
    } finally {
      closeSync(parent);
    }
  }

  async bytesUsed(root: string): Promise<number> {
    const fd = openRoot('bytesUsed', root);
    try {
      return blocksBelow(fd) * 512;
    } finally {
      closeSync(fd);
    }
  }
}

/** Opens `root` itself without following a link at its last component. */
function openRoot(op: string, root: string): number {
  try {
    return openSync(root, DIR_FLAGS);
  } catch (e) {
    const st = lstatSync(root, { throwIfNoEntry: false });
    if (!st) throw new FolderImageError('NOT_FOUND', op, '', { cause: e });
    if (st.isSymbolicLink()) throw new FolderImageError('SYMLINK_ESCAPE', op, '', { cause: e });
    if (!st.isDirectory()) throw new FolderImageError('NOT_DIRECTORY', op, '', { cause: e });
    throw e;
  }
}

/** The held folder `segments` below `root`, each opened beneath the one before; the caller closes it. */
function walkTo(op: string, root: string, segments: readonly string[]): number {
  let fd = openRoot(op, root);
  try {
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i]!;
      let next: number;
      try {
        next = openSync(at(fd, name), DIR_FLAGS);
      } catch (e) {
        throw refusal(op, segments.slice(0, i + 1).join('/'), e, fd, name, true);
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The typed refusal for an open of `name` in the held folder `fd` that failed with `e` (`onTheWay`: a folder was wanted). */
function refusal(op: string, rel: string, e: unknown, fd: number, name: string, onTheWay = false): unknown {
  const code = foreignCodeOf(e);
  if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP' && code !== 'ENXIO') return e;
  const st = lstatSync(at(fd, name), { throwIfNoEntry: false });
  if (!st) return new FolderImageError('NOT_FOUND', op, rel, { cause: e });
  if (st.isSymbolicLink()) return new FolderImageError('SYMLINK_ESCAPE', op, rel, { cause: e });
  if (!onTheWay && !st.isDirectory()) return new FolderImageError('NOT_REGULAR_FILE', op, rel, { cause: e });
  return new FolderImageError('NOT_DIRECTORY', op, rel, { cause: e });
}

/** What a scan collects, and what it asks of each entry. */
interface ScanState {
  readonly entries: ImageEntry[];
  readonly skipped: string[];
  readonly skip?: (path: string) => boolean;
  /** Files whose ctime (ms) is at or after this are `fresh`. */
  readonly freshSince: number;
}

/** Lists the held folder `fd` (root-relative `rel`) into the scan, folders recursively. */
function scanFolder(fd: number, rel: string, scan: ScanState): void {
  const prefix = rel === '' ? '' : `${rel}/`;
  for (const dirent of readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true })) {
    const path = prefix + dirent.name;
    if (scan.skip?.(path)) continue;
    scanEntry(fd, dirent, path, scan);
  }
}

/** One entry of a scanned folder. A folder swapped for something else mid-scan is reported as what it now is. */
function scanEntry(fd: number, dirent: Dirent, path: string, scan: ScanState): void {
  const { entries, skipped } = scan;
  const name = at(fd, dirent.name);
  if (dirent.isDirectory()) {
    let sub: number;
    try {
      sub = openSync(name, DIR_FLAGS);
    } catch (e) {
      const code = foreignCodeOf(e);
      if (code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'ENOENT') throw e;
      const st = lstatSync(name, { throwIfNoEntry: false });
      if (st?.isSymbolicLink()) entries.push({ path, kind: 'link', target: readlinkSync(name) });
      else if (st?.isFile()) fileEntry(name, path, scan);
      else if (st) skipped.push(path);
      return;
    }
    try {
      entries.push({ path, kind: 'dir', mode: fstatSync(sub).mode & 0o7777 });
      scanFolder(sub, path, scan);
    } finally {
      closeSync(sub);
    }
  } else if (dirent.isFile()) fileEntry(name, path, scan);
  else if (dirent.isSymbolicLink()) {
    const target = readlinkOrNull(name);
    // No longer a link (replaced since the listing): looked at again as what it is now.
    if (target === NOT_A_LINK) fileEntry(name, path, scan);
    else if (target !== null) entries.push({ path, kind: 'link', target });
  } else skipped.push(path);
}

/** How recent a file's change is `fresh` (see `ImageEntry`): well above a timestamp tick and clock steps between the two clocks. */
const FRESH_MS = 1000;

/**
 * A regular file's entry (mode, size, stamp from one `lstat`); gone or swapped: left out or
 * skipped. The times are milliseconds with their fraction (a double keeps the microseconds of a
 * nanosecond timestamp), which is finer than the kernel's tick; a plain `lstat` costs some 15%
 * less than a bigint one, and a scan is 20,000 of them for 20,000 files.
 */
function fileEntry(name: string, path: string, { entries, skipped, freshSince }: ScanState): void {
  const st = lstatSync(name, { throwIfNoEntry: false });
  if (!st) {
    // Gone since the listing, or a name that is not UTF-8 (unreachable by its decoded text).
    skipped.push(path);
    return;
  }
  if (st.isSymbolicLink()) {
    entries.push({ path, kind: 'link', target: readlinkSync(name) });
    return;
  }
  if (!st.isFile()) {
    skipped.push(path);
    return;
  }
  entries.push({
    path,
    kind: 'file',
    mode: st.mode & 0o7777,
    size: st.size,
    stamp: `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`,
    ...(st.ctimeMs >= freshSince ? { fresh: true } : {}),
  });
}

/** The target of the link `name`, null when it went away, `NOT_A_LINK` when something else took its place. */
function readlinkOrNull(name: string): string | null | typeof NOT_A_LINK {
  try {
    return readlinkSync(name);
  } catch (e) {
    const code = foreignCodeOf(e);
    if (code === 'ENOENT') return null;
    if (code === 'EINVAL') return NOT_A_LINK;
    throw e;
  }
}

/** What `readlinkOrNull` answers for a name that is there but no link (EINVAL). */
const NOT_A_LINK = Symbol('not a link');

/** 512-byte blocks of the regular files below the held folder `fd`. */
function blocksBelow(fd: number): number {
  let blocks = 0;
  for (const dirent of readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true })) {
    const name = at(fd, dirent.name);
    if (dirent.isFile()) blocks += lstatSync(name, { throwIfNoEntry: false })?.blocks ?? 0;
    else if (dirent.isDirectory()) {
      let sub: number;
      try {
        sub = openSync(name, DIR_FLAGS);
      } catch {
        continue;
      }
      try {
        blocks += blocksBelow(sub);
      } finally {
        closeSync(sub);
      }
    }
  }
  return blocks;
}

/** Removes `name` in the held folder `parent`: a folder with everything below it, anything else as itself. Missing is fine. */
function clear(parent: number, name: string): void {
  const st = lstatSync(at(parent, name), { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isDirectory()) {
    unlinkSync(at(parent, name));
    return;
  }
  let fd: number;
  try {
    fd = openSync(at(parent, name), DIR_FLAGS);
  } catch (e) {
    // Swapped for a link or file since the lstat: remove that, as itself.
    const code = foreignCodeOf(e);
    if (code === 'ELOOP' || code === 'ENOTDIR') unlinkSync(at(parent, name));
    else if (code !== 'ENOENT') throw e;
    return;
  }
  try {
    for (const child of readdirSync(`/proc/self/fd/${fd}`)) clear(fd, child);
  } finally {
    closeSync(fd);
  }
  rmdirSync(at(parent, name));
}

/** Renames `temp` over `name` in the held folder `parent`, removing a folder at `name` first. */
function replaceWith(parent: number, temp: string, name: string): void {
  if (lstatSync(at(parent, name), { throwIfNoEntry: false })?.isDirectory()) clear(parent, name);
  renameSync(at(parent, temp), at(parent, name));
}

/** A fresh temp name for the folder being written. */
function tempName(): string {
  return `.gatefs-tmp-${randomBytes(8).toString('hex')}`;
}

/** Removes a temp entry left by a failed write; a failure to remove it is not the error reported. */
function unlinkQuietly(parent: number, temp: string): void {
  try {
    unlinkSync(at(parent, temp));
  } catch {
    // The write's own error is what the caller needs; a leftover temp name is ignored by readers.
  }
}
