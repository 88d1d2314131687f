/**
 * The bearer token of `gatefs serve --http`: generating one, keeping it for the operator at
 * `<stateDir>/serve-token-<host>-<port>` (one per server address, so two servers on one state dir
 * never overwrite each other's, and kept across restarts until `gatefs token rotate`), watching
 * that file so a rotation takes effect in a running server, and reading one the operator chose
 * (`--token-file`, `GATEFS_TOKEN`). This file implements a host port: it is the one place that
 * draws secrets from the system's random source and writes them to disk.
 *
 * The state dir is treated as hostile-ish: a saved token is read without following a link, and
 * only from a regular file of this user's with mode 600 and one name (a token another user could
 * have read or planted is no secret); it is written to a fresh file created exclusively without
 * following links, then renamed over the name.
 *
 * Not guarded against: a state dir that is itself a link (the host resolves it before this runs;
 * the state checks decide whether to trust it) or the root user reading any file.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CodedError, foreignCodeOf } from '../../../vfs/index.js';
import { ownUid } from '../../ports/index.js';

/** What the name of every saved token's file in the state dir starts with. */
const SERVE_TOKEN_PREFIX = 'serve-token-';
/** `serve-token-<host>-<port>`; an IPv6 host in brackets. */
const SAVED_NAME = /^serve-token-(\[[0-9a-f:.]+\]|[a-z0-9.]+)-(\d{1,5})$/;

/** Shortest token accepted from the operator (characters). */
const MIN_TOKEN_LENGTH = 16;
const MAX_TOKEN_LENGTH = 1024;
/** RFC 6750 `b64token`: what may follow `Bearer ` in an Authorization header. */
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Why a token or token file was refused: `BAD_TOKEN` (the token itself: too short, too long,
 * characters a Bearer header cannot carry) or `BAD_TOKEN_FILE` (the file cannot be opened, is
 * not a regular file, belongs to another user or is open to others). The CLI shows `message` as
 * a usage error.
 */
export class TokenError extends CodedError<'BAD_TOKEN' | 'BAD_TOKEN_FILE'> {
  override readonly name = 'TokenError';

  constructor(code: 'BAD_TOKEN' | 'BAD_TOKEN_FILE', message: string, options?: { cause?: unknown }) {
    super(code, message, {}, options);
  }
}

/** A new token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Checks a token the operator chose (from a file or `GATEFS_TOKEN`); `source` names it in the
 * message. Throws `TokenError` when it is shorter than 16 characters, longer than 1024, or holds
 * characters a Bearer header cannot carry (spaces, quotes, control characters).
 */
export function checkToken(token: string, source: string): string {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new TokenError(
      'BAD_TOKEN',
      `${source} holds a token of ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (for example the output of "openssl rand -hex 32")`,
    );
  }
  if (token.length > MAX_TOKEN_LENGTH)
    throw new TokenError('BAD_TOKEN', `${source} holds a token longer than ${MAX_TOKEN_LENGTH} characters`);
  if (!TOKEN_SYNTAX.test(token)) {
    throw new TokenError(
      'BAD_TOKEN',
      `${source} holds characters a bearer token cannot carry; use letters, digits and - . _ ~ + / (for example the output of "openssl rand -hex 32")`,
    );
  }
  return token;
}

/**
 * Reads the token from `file` (`--token-file`): its first line, surrounding whitespace removed.
 * Throws `TokenError` when the file cannot be opened, is not a regular file, is owned by another
 * user, grants any access to group or others (a token others can read is no secret; the
 * message says to `chmod 600` it), or holds no valid token (`checkToken`).
 */
export function readTokenFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new TokenError('BAD_TOKEN_FILE', `cannot open the token file ${file}: ${foreignCodeOf(e) ?? (e as Error).message}`, { cause: e });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TokenError('BAD_TOKEN_FILE', `the token file ${file} is not a regular file`);
    const uid = ownUid();
    if (uid !== null && st.uid !== uid)
      throw new TokenError('BAD_TOKEN_FILE', `the token file ${file} belongs to another user; use a file of your own with mode 600`);
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
      throw new TokenError(
        'BAD_TOKEN_FILE',
        `the token file ${file} has mode ${mode}: group or others may read or change it; run "chmod 600 ${file}"`,
      );
    }
    const buffer = Buffer.alloc(MAX_TOKEN_LENGTH + 2);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const token = buffer.toString('utf8', 0, length).split('\n')[0].trim();
    return checkToken(token, `the token file ${file}`);
  } finally {
    closeSync(fd);
  }
}

/** A server address a token is kept for: the `--http` host (lower case) and the bound port. */
export interface TokenAddress {
  host: string;
  port: number;
}

/** `host:port` as people write it (`[::1]:8808` for IPv6). */
export function addressText({ host, port }: TokenAddress): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The name of the token file kept for `address` in the state dir: `serve-token-127.0.0.1-8808`, `serve-token-[::1]-8808`. */
export function savedTokenName(address: TokenAddress): string {
  return `${SERVE_TOKEN_PREFIX}${address.host.includes(':') ? `[${address.host}]` : address.host}-${address.port}`;
}

/** One saved token file: the address it is kept for and its path. */
export interface SavedTokenFile {
  address: TokenAddress;
  file: string;
}

/** The token files kept in `stateDir` (by name; none when it does not exist), ordered by address. */
export function listSavedTokens(stateDir: string): SavedTokenFile[] {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch (e) {
    if (foreignCodeOf(e) === 'ENOENT') return [];
    throw e;
  }
  const found: SavedTokenFile[] = [];
  for (const name of names.sort()) {
    const m = SAVED_NAME.exec(name);
    if (!m || Number(m[2]) > 65535) continue;
    const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
    found.push({ address: { host, port: Number(m[2]) }, file: join(stateDir, name) });
  }
  return found;
}

/**
 * Reads a saved token (`savedTokenName`): `null` when there is no such file; else its first line.
 * Throws `TokenError` `BAD_TOKEN_FILE` when the name is a link (never followed), not a regular
 * file, another user's, open to group or others, or has more than one name (a hard link), and
 * `BAD_TOKEN` when it holds no valid token: a saved token must be one this user wrote.
 */
export function readSavedToken(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = foreignCodeOf(e);
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new TokenError('BAD_TOKEN_FILE', `the saved token ${file} is a link; gatefs never follows one there`);
    throw new TokenError('BAD_TOKEN_FILE', `cannot open the saved token ${file}: ${code ?? (e as Error).message}`, { cause: e });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TokenError('BAD_TOKEN_FILE', `the saved token ${file} is not a regular file`);
    const uid = ownUid();
    if (uid !== null && st.uid !== uid) throw new TokenError('BAD_TOKEN_FILE', `the saved token ${file} belongs to another user`);
    if ((st.mode & 0o077) !== 0) throw new TokenError('BAD_TOKEN_FILE', `the saved token ${file} is open to group or others`);
    if (st.nlink !== 1) throw new TokenError('BAD_TOKEN_FILE', `the saved token ${file} has ${st.nlink} names (a hard link)`);
    const buffer = Buffer.alloc(MAX_TOKEN_LENGTH + 2);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return checkToken(buffer.toString('utf8', 0, length).split('\n')[0]!.trim(), `the saved token ${file}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Saves `token` for `address` in `stateDir` (`savedTokenName`), mode 0600, and returns the path.
 * The bytes go to a fresh file created exclusively without following links
 * (`O_CREAT | O_EXCL | O_NOFOLLOW`), synced, then renamed over the name: a link planted there is
 * replaced, never followed, and a reader (a running server watching it) sees the old token or
 * the new one, never a part. Throws the file system's error (for example `EISDIR` when the name
 * is a folder).
 */
export function writeServeToken(stateDir: string, address: TokenAddress, token: string): string {
  const dir = realpathSync(stateDir);
  const name = savedTokenName(address);
  const target = join(dir, name);
  const temp = join(dir, `.${name}-${randomBytes(6).toString('hex')}`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  return target;
}

/**
 * The token a running server requires, kept in a saved token file and followed when that file
 * changes (`gatefs token rotate` renames a new one over it): `current()` looks at the name
 * (`lstat`, one system call) and, when its identity (inode, change time, size) differs from the
 * last one read, reads it again with `readSavedToken`. The old token stops working at the first
 * request after the rename. A file that disappears, or whose replacement is refused (a link,
 * another user's, open to others, no valid token), leaves the last good token in force and is
 * reported once through `onRefused`.
 */
export class SavedTokenWatch {
  private identity: string;

  constructor(
    readonly file: string,
    private token: string,
    private readonly onRefused: (reason: string) => void = () => undefined,
  ) {
    this.identity = identityOf(file);
  }

  /** The token in force now. */
  current(): string {
    const now = identityOf(this.file);
    if (now === this.identity) return this.token;
    this.identity = now;
    if (now === '') {
      this.onRefused(`the saved token ${this.file} was removed; the server keeps the token it has until gatefs token rotate`);
      return this.token;
    }
    try {
      const next = readSavedToken(this.file);
      if (next !== null) this.token = next;
    } catch (e) {
      this.onRefused(`${(e as Error).message}; the server keeps the token it has`);
    }
    return this.token;
  }
}

/** inode, change time and size of `file`'s name (not followed), or '' when there is none. */
function identityOf(file: string): string {
  const st = lstatSync(file, { throwIfNoEntry: false, bigint: true });
  return st ? `${st.ino}:${st.ctimeNs}:${st.size}` : '';
}
