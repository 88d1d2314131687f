/**
 * The bearer token of `gatefs serve --http`: generating one, saving it for the operator at
 * `<stateDir>/serve-token`, and reading one the operator chose (`--token-file`, `GATEFS_TOKEN`).
 * This file implements a host port: it is the one place that draws secrets from the system's
 * random source and writes them to disk.
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
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CodedError, foreignCodeOf } from '../../../vfs/index.js';
import { ownUid } from '../../ports/index.js';

/** Name of the generated token's file in the state dir. */
export const SERVE_TOKEN_FILE = 'serve-token';

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

/**
 * Saves `token` as `<stateDir>/serve-token`, mode 0600, and returns that path. The bytes go to a
 * fresh file created exclusively without following links (`O_CREAT | O_EXCL | O_NOFOLLOW`),
 * synced, then renamed over the name: a link planted at `serve-token` is replaced, never
 * followed, and a reader sees the old token or the new one, never a part. Throws the file
 * system's error (for example `EISDIR` when `serve-token` is a folder).
 */
export function writeServeToken(stateDir: string, token: string): string {
  const dir = realpathSync(stateDir);
  const target = join(dir, SERVE_TOKEN_FILE);
  const temp = join(dir, `.${SERVE_TOKEN_FILE}-${randomBytes(6).toString('hex')}`);
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
