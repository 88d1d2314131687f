/**
 * What one command changed in a `copy` workspace, read from the kernel overlay's upper folder of
 * that command once it has ended (sandbox-overlay.ts), as `OverlayChange`s (sandbox.ts).
 *
 * The kernel records a change as: a regular file or link (written, copied up, made), a folder
 * (made, or copied up because something below changed), a character device 0/0 (a whiteout: the
 * name was removed), and an extended attribute `*.overlay.opaque` = `y` on a folder made where one
 * was removed (`rm -rf d; mkdir d`: nothing of the old `d` shows). Node cannot read extended
 * attributes, so the opaque marks come from `tar --xattrs` over the folders alone (headers only,
 * no file bytes), parsed here.
 *
 * Left out of the report: the names the port placed itself (`skip`), and the mount points the
 * sandbox made for its binds (`mountPoints`) with the folders leading to them, which bwrap
 * creates in the merged view: they are the sandbox's, not the command's.
 *
 * Paths are read without following a link (lstat, `O_NOFOLLOW`); the folder is the port's own
 * and no process writes it any more. Limits: the files' bytes are held in memory at once, at most
 * `MAX_FILE_BYTES` a file and `MAX_TOTAL_BYTES` in all (past that, `TOO_LARGE`, never kept).
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import type { OverlayChange } from './sandbox.js';

/** What `readOverlayUpper` reads, and where. */
export interface UpperReading {
  /** The kernel overlay's upper folder of the command (host path). */
  readonly dir: string;
  /** The sandbox path of the workspace root (`/worktrees/<id>`). */
  readonly at: string;
  /** The workspace's own upper folder (host path), where `place()` makes a link. */
  readonly workspaceUpper: string;
  /** Root-relative paths where the port put a whiteout itself: never reported while they hold it. */
  readonly skip: ReadonlySet<string>;
  /** Root-relative paths where the sandbox mounted something. */
  readonly mountPoints: readonly string[];
  /** The tar program. */
  readonly tar: string;
}

/** One entry of the upper folder, as the first pass saw it. */
interface Seen {
  readonly rel: string;
  readonly host: Buffer;
  readonly kind: 'file' | 'link' | 'folder' | 'removed' | 'unkept';
  readonly code?: string;
  readonly what?: string;
  readonly executable?: boolean;
  readonly size?: number;
}

/** The most bytes of one file read back; a larger file is `TOO_LARGE` (never kept). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** The most bytes of all files of one command read back; files past it are `TOO_LARGE`. */
export const MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const LOSSY = new TextDecoder('utf-8');

/** The changes the upper folder holds, in walk order (see the file comment). */
export async function readOverlayUpper(reading: UpperReading): Promise<OverlayChange[]> {
  const seen: Seen[] = [];
  walk(reading, Buffer.from(reading.dir), '', seen);
  const folders = seen.filter((s) => s.kind === 'folder').map((s) => s.rel);
  const opaque = folders.length > 0 ? await opaqueFolders(reading.tar, reading.dir, folders) : new Set<string>();
  const leading = leadingFolders(reading.mountPoints);
  const changes: OverlayChange[] = [];
  const opaqueAbove: string[] = [];
  let bytesRead = 0;
  for (const s of seen) {
    const path = `${reading.at}/${s.rel}`;
    while (opaqueAbove.length > 0 && !s.rel.startsWith(`${opaqueAbove[opaqueAbove.length - 1]}/`)) opaqueAbove.pop();
    switch (s.kind) {
      case 'folder': {
        const isOpaque = opaque.has(s.rel) || opaqueAbove.length > 0;
        if (isOpaque) opaqueAbove.push(s.rel);
        if (!leading.has(s.rel)) changes.push({ kind: 'folder', path, opaque: isOpaque });
        break;
      }
      case 'file': {
        const size = s.size ?? 0;
        if (size > MAX_FILE_BYTES || bytesRead + size > MAX_TOTAL_BYTES) {
          changes.push({
            kind: 'unkept',
            path,
            code: 'TOO_LARGE',
            what: `a file of ${size} bytes, past what one command's changes may hold`,
          });
          break;
        }
        bytesRead += size;
        changes.push({ kind: 'file', path, bytes: readRegularFile(s.host), executable: s.executable === true });
        break;
      }
      case 'link': {
        const target = readlinkSync(s.host, { encoding: 'buffer' });
        const text = decoded(target);
        if (text === null) changes.push({ kind: 'unkept', path, code: 'BAD_NAME', what: 'a link whose target is not UTF-8' });
        else changes.push({ kind: 'link', path, target: text, place: async () => placeLink(reading.workspaceUpper, s.rel, text) });
        break;
      }
      case 'removed':
        changes.push({ kind: 'removed', path });
        break;
      case 'unkept':
        changes.push({ kind: 'unkept', path, code: s.code ?? 'NOT_REGULAR_FILE', what: s.what ?? 'a special file' });
        break;
    }
  }
  return changes;
}

/** The first pass: every entry below `host` (root-relative `rel`), parents first, names sorted. */
function walk(reading: UpperReading, host: Buffer, rel: string, out: Seen[]): void {
  const names = readdirSync(host, { encoding: 'buffer' })
    .map((raw) => ({ raw, name: decoded(raw) }))
    .sort((a, b) => compare(a.name ?? LOSSY.decode(a.raw), b.name ?? LOSSY.decode(b.raw)));
  for (const { raw, name } of names) {
    const childHost = Buffer.concat([host, Buffer.from('/'), raw]);
    const childRel = rel === '' ? (name ?? LOSSY.decode(raw)) : `${rel}/${name ?? LOSSY.decode(raw)}`;
    if (name === null) {
      out.push({ rel: childRel, host: childHost, kind: 'unkept', code: 'BAD_NAME', what: 'a name that is not UTF-8' });
      continue;
    }
    if (reading.mountPoints.includes(childRel)) continue;
    const st = lstatSync(childHost);
    if (reading.skip.has(childRel) && st.isCharacterDevice() && st.rdev === 0) continue;
    if (st.isDirectory()) {
      out.push({ rel: childRel, host: childHost, kind: 'folder' });
      walk(reading, childHost, childRel, out);
    } else if (st.isFile()) out.push({ rel: childRel, host: childHost, kind: 'file', executable: (st.mode & 0o100) !== 0, size: st.size });
    else if (st.isSymbolicLink()) out.push({ rel: childRel, host: childHost, kind: 'link' });
    else if (st.isCharacterDevice() && st.rdev === 0) out.push({ rel: childRel, host: childHost, kind: 'removed' });
    else
      out.push({
        rel: childRel,
        host: childHost,
        kind: 'unkept',
        code: 'NOT_REGULAR_FILE',
        what: st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device',
      });
  }
}

/** The bytes of the regular file at `host`, opened without following a link. */
function readRegularFile(host: Buffer): Uint8Array {
  const fd = openSync(host, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error('the upper folder changed while it was read');
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a link with `target` at `rel` inside `root`: each folder on the way is opened beneath the
 * one before (`/proc/self/fd/<fd>/<name>`, `O_NOFOLLOW`), so a link on the way fails the open and
 * the link is made in the folder actually reached; a folder missing on the way is made (the
 * caller checked the merged view holds a folder there: this copies it up). Throws the file system's error (`EEXIST` when
 * the name is taken, `ELOOP`/`ENOTDIR` for a link or file on the way).
 */
export function placeLink(root: string, rel: string, target: string): void {
  const segments = rel.split('/');
  const name = segments.pop()!;
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  let fd = openSync(root, flags);
  try {
    for (const segment of segments) {
      const at = `/proc/self/fd/${fd}/${segment}`;
      if (!lstatSync(at, { throwIfNoEntry: false })) mkdirSync(at, { mode: 0o755 });
      const next = openSync(at, flags);
      closeSync(fd);
      fd = next;
    }
    symlinkSync(target, `/proc/self/fd/${fd}/${name}`);
  } finally {
    closeSync(fd);
  }
}

/** The folders (root-relative) that lead to a mount point or are one. */
function leadingFolders(mountPoints: readonly string[]): Set<string> {
  const leading = new Set<string>();
  for (const point of mountPoints) {
    const segments = point.split('/');
    for (let i = 1; i <= segments.length; i++) leading.add(segments.slice(0, i).join('/'));
  }
  return leading;
}

/** The folders among `folders` (relative to `dir`) the kernel marked opaque, read with `tar --xattrs`. */
async function opaqueFolders(tar: string, dir: string, folders: readonly string[]): Promise<Set<string>> {
  const child = spawn(
    tar,
    ['--format=posix', '--xattrs', '--xattrs-include=*.overlay.opaque', '--no-recursion', '--null', '-C', dir, '-T', '-', '-cf', '-'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const chunks: Buffer[] = [];
  const errors: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => errors.push(c));
  child.stdin.on('error', () => {});
  // `./` first: a name starting with '-' would be an option to tar.
  child.stdin.end(Buffer.concat(folders.map((f) => Buffer.from(`./${f}\0`))));
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (c) => resolve(c));
  });
  if (code !== 0)
    throw new Error(`tar could not read the overlay's folders: ${Buffer.concat(errors).toString('utf8').trim().split('\n')[0] ?? code}`);
  return opaqueInArchive(Buffer.concat(chunks));
}

/** The member names (without `./` and a trailing `/`) a POSIX tar archive marks `*.overlay.opaque=y`. */
export function opaqueInArchive(archive: Buffer): Set<string> {
  const found = new Set<string>();
  let pax: Map<string, string> | null = null;
  for (let at = 0; at + 512 <= archive.length; ) {
    const header = archive.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(text(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const body = archive.subarray(at + 512, at + 512 + size);
    if (type === 'x') pax = paxRecords(body);
    else if (type !== 'g') {
      const prefix = text(header, 257, 6).startsWith('ustar') ? text(header, 345, 155) : '';
      const name = pax?.get('path') ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
      const mark = pax?.get('SCHILY.xattr.user.overlay.opaque') ?? pax?.get('SCHILY.xattr.trusted.overlay.opaque');
      if (mark === 'y') found.add(name.replace(/^(\.\/)+/, '').replace(/\/+$/, ''));
      pax = null;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return found;
}

/** The records of a pax extended header (`<length> <key>=<value>\n` each). */
function paxRecords(body: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  for (let at = 0; at < body.length; ) {
    const space = body.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number.parseInt(body.subarray(at, space).toString('latin1'), 10);
    if (!(length > 0)) break;
    const record = body.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

/** The NUL-ended text of a header field. */
function text(header: Buffer, at: number, length: number): string {
  const field = header.subarray(at, at + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

/** `raw` as UTF-8 text, or null when it is not UTF-8. */
function decoded(raw: Buffer): string | null {
  try {
    return UTF8.decode(raw);
  } catch {
    return null;
  }
}

/** Names compared as the layers sort them (UTF-16 code units). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
