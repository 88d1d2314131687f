/**
 * The one error type of the VFS. Every layer, the path grammar and the namespace throw
 * `VfsError` and nothing else on purpose: callers branch on `code`, never on the message.
 *
 * The codes are the public tool codes of tools/codes.ts (docs/ARCHITECTURE.md § Tools, results
 * and error codes: one vocabulary from the walk to the agent, so the gate needs no translation
 * table), plus two that no public tool can produce and which the gate would report as
 * `INTERNAL`: `NOT_EMPTY` (no tool removes folders) and `NOT_SYMLINK` (`readLink` of something
 * that is not a link, which the link resolution turns into `SYMLINK_ESCAPE`).
 *
 * `path` is always a layer-relative path ('' is the layer root) or, once the namespace has
 * re-anchored it, a namespace path. A host path never appears in `path` or `message`.
 *
 * `VfsError` derives from `CodedError` (vfs/coded-error.ts), the base of every gatefs error;
 * the Node errno codes a layer meets (`ENOENT`, …) are foreign codes it translates here.
 */
import { CodedError, causeOf, foreignCodeOf } from './coded-error.js';

/** The codes a `VfsError` carries; each one's meaning is its default detail below. */
export type VfsCode =
  | 'PATH_ESCAPE'
  | 'OUTSIDE_MOUNTS'
  | 'BAD_NAME'
  | 'NAME_TOO_LONG'
  | 'SYMLINK_ESCAPE'
  | 'NOT_FOUND'
  | 'NOT_DISCLOSED'
  | 'IS_DIRECTORY'
  | 'NOT_DIRECTORY'
  | 'NOT_REGULAR_FILE'
  | 'ALREADY_EXISTS'
  | 'READ_ONLY'
  | 'OCCUPIED'
  | 'WORKSPACE_RELEASED'
  | 'PROTECTED_PATH'
  | 'TOO_LARGE'
  | 'STALE_CONTENT'
  | 'NOT_EMPTY'
  | 'NOT_SYMLINK'
  | 'CROSS_MOUNT'
  | 'INVALID_INPUT'
  | 'BUSY'
  | 'TOO_DEEP'
  | 'INTERNAL';

/** What a `VfsError` carries besides its code: the operation, the path and the one-line detail. */
type VfsErrorData = {
  /** The operation that failed (`read`, `readdir`, `write`, …). */
  readonly op: string;
  /** Layer-relative ('' is the layer root) or, once re-anchored, a namespace path; never a host path. */
  readonly path: string;
  /** What went wrong, in words an agent can act on (the default is the code's one-line doc). */
  readonly detail: string;
};

/**
 * An error raised by the VFS: a stable `code`, the operation (`op`) and the path it concerns.
 * Its message, `CODE: op 'path': detail`, is safe to show an agent.
 */
export class VfsError extends CodedError<VfsCode, VfsErrorData> {
  override readonly name = 'VfsError';

  constructor(code: VfsCode, op: string, path: string, detail: string = defaultDetail(code), options?: { cause?: unknown }) {
    super(code, `${code}: ${op} '${path}': ${detail}`, { op, path, detail }, options);
  }

  /** The operation that failed. */
  get op(): string {
    return this.data.op;
  }

  /** The path the error concerns (see `VfsErrorData.path`). */
  get path(): string {
    return this.data.path;
  }

  /** The one-line detail (see `VfsErrorData.detail`). */
  get detail(): string {
    return this.data.detail;
  }

  /** The same error re-anchored at another path (a layer path seen through a mount). */
  withPath(path: string): VfsError {
    return new VfsError(this.code, this.op, path, this.detail, { cause: this.cause });
  }
}

/** True when `e` is a VfsError, optionally with the given code. */
export function isVfsError(e: unknown, code?: VfsCode): e is VfsError {
  return e instanceof VfsError && (code === undefined || e.code === code);
}

function defaultDetail(code: VfsCode): string {
  switch (code) {
    case 'PATH_ESCAPE':
      return 'the path climbs out of the namespace';
    case 'OUTSIDE_MOUNTS':
      return 'the path is not inside the workspace or any mount';
    case 'BAD_NAME':
      return 'the path contains a character that is not allowed';
    case 'NAME_TOO_LONG':
      return 'a name is longer than 255 bytes or the path longer than 4096 bytes';
    case 'SYMLINK_ESCAPE':
      return 'the path goes through a symbolic link that is not followed (it leads out of its mount, or changed during the call)';
    case 'NOT_FOUND':
      return 'no such file or folder';
    case 'NOT_DISCLOSED':
      return 'the file exists but has not been disclosed yet: ask for it with request_files';
    case 'IS_DIRECTORY':
      return 'the path is a folder';
    case 'NOT_DIRECTORY':
      return 'a part of the path is not a folder';
    case 'NOT_REGULAR_FILE':
      return 'the path is not a regular file';
    case 'ALREADY_EXISTS':
      return 'the path already exists';
    case 'READ_ONLY':
      return 'the path is in a read-only mount';
    case 'OCCUPIED':
      return 'another conversation holds this workspace exclusive-write (its own conversation gave write up)';
    case 'WORKSPACE_RELEASED':
      return 'the workspace at this path was released; it is no longer shown';
    case 'PROTECTED_PATH':
      return 'the path is protected and never writable through tools';
    case 'TOO_LARGE':
      return 'the file is larger than allowed';
    case 'STALE_CONTENT':
      return 'the file changed after it was read; it was left as it is';
    case 'NOT_EMPTY':
      return 'the folder is not empty';
    case 'NOT_SYMLINK':
      return 'the path is not a symbolic link';
    case 'CROSS_MOUNT':
      return 'the two paths are in different mounts; a move stays inside one mount';
    case 'INVALID_INPUT':
      return 'the operation cannot be done with these paths';
    case 'BUSY':
      return 'the host is out of file descriptors or another writer holds the file; retry shortly';
    case 'TOO_DEEP':
      return 'the folder tree is nested deeper than a walk follows';
    case 'INTERNAL':
      return 'internal error';
  }
}

const ERRNO_CODES: Record<string, VfsCode> = {
  ENOENT: 'NOT_FOUND',
  ENOTDIR: 'NOT_DIRECTORY',
  EISDIR: 'IS_DIRECTORY',
  EEXIST: 'ALREADY_EXISTS',
  ENOTEMPTY: 'NOT_EMPTY',
  ELOOP: 'SYMLINK_ESCAPE',
  EROFS: 'READ_ONLY',
  EACCES: 'READ_ONLY',
  EPERM: 'READ_ONLY',
  ENAMETOOLONG: 'NAME_TOO_LONG',
  EFBIG: 'TOO_LARGE',
  ENXIO: 'NOT_REGULAR_FILE',
  EMFILE: 'BUSY',
  ENFILE: 'BUSY',
  EXDEV: 'CROSS_MOUNT',
};

/**
 * Turns a Node errno error (from node:fs or memfs) into a VfsError at a layer-relative path.
 * The original error is kept as `cause` for debugging; its message (which may hold a host
 * path) is never copied into the VfsError's message. Unknown errnos become `INTERNAL`.
 */
export function fromErrno(e: unknown, op: string, path: string): VfsError {
  if (e instanceof VfsError) return e;
  const errno = foreignCodeOf(e);
  const code = errno === undefined ? undefined : ERRNO_CODES[errno];
  if (code) return new VfsError(code, op, path, undefined, { cause: e });
  return new VfsError('INTERNAL', op, path, `unexpected ${errno ?? 'error'}`, { cause: e });
}

/**
 * True when `e`, or an error in its `cause` chain (up to 8 deep), is the kernel saying the
 * process or the system is out of file descriptors (`EMFILE`, `ENFILE`), or a VfsError `BUSY`.
 * Callers that wrap foreign errors (git readers, the gate) use it to answer `BUSY`, which is
 * retryable, instead of `INTERNAL`.
 */
export function isDescriptorShortage(e: unknown): boolean {
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur !== null && typeof cur === 'object'; depth++) {
    if (cur instanceof VfsError && cur.code === 'BUSY') return true;
    const code = foreignCodeOf(cur);
    if (code === 'EMFILE' || code === 'ENFILE') return true;
    cur = causeOf(cur);
  }
  return false;
}
