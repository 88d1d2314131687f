/**
 * The token files on a real disk: the generated token is saved with mode 600 by replacing the
 * name (a planted link is replaced, its target untouched), and a token file the operator
 * chooses is refused when others may read it, when it is not a regular file (a FIFO does not
 * hang the start), or when it holds no usable token.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkToken, generateToken, readTokenFile, TokenError, writeServeToken } from '../../src/mcp/http/serve-token.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatefs-token-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeServeToken', () => {
  it('writes the token with mode 600 and replaces an earlier one whole', () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const first = generateToken();
    const file = writeServeToken(state, first);
    expect(readFileSync(file, 'utf8')).toBe(`${first}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = generateToken();
    writeServeToken(state, second);
    expect(readFileSync(file, 'utf8')).toBe(`${second}\n`);
    expect(readdirSync(state)).toEqual(['serve-token']); // no temp file left behind
  });

  it('replaces a link planted at serve-token instead of writing through it', () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'precious\n', { mode: 0o644 });
    symlinkSync(outside, join(state, 'serve-token'));
    const token = generateToken();
    writeServeToken(state, token);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(statSync(outside).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(state, 'serve-token')).isFile()).toBe(true);
    expect(readFileSync(join(state, 'serve-token'), 'utf8')).toBe(`${token}\n`);
  });

  it('fails, leaving nothing behind, when serve-token is a folder', () => {
    const state = join(dir, 'state');
    mkdirSync(join(state, 'serve-token'), { recursive: true });
    expect(() => writeServeToken(state, generateToken())).toThrow();
    expect(readdirSync(state)).toEqual(['serve-token']);
  });

  it('generates distinct 43-character base64url tokens', () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });
});

describe('readTokenFile', () => {
  const token = 'b0a1f3c4d5e6f708192a3b4c5d6e7f80';
  const file = (mode: number, text = `${token}\n`) => {
    const path = join(dir, `token-${mode.toString(8)}`);
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };

  it('reads the first line of a file of mode 600 (or 400)', () => {
    expect(readTokenFile(file(0o600))).toBe(token);
    expect(readTokenFile(file(0o400, `  ${token}  \nsecond line\n`))).toBe(token);
  });

  it.each([0o644, 0o640, 0o604, 0o660, 0o602])('refuses mode %o and says to chmod 600', (mode) => {
    const path = file(mode);
    expect(() => readTokenFile(path)).toThrow(TokenError);
    expect(() => readTokenFile(path)).toThrow(/chmod 600/);
  });

  it('refuses a FIFO without blocking, a folder, and a missing file', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    chmodSync(fifo, 0o600);
    expect(() => readTokenFile(fifo)).toThrow(/not a regular file/);
    expect(() => readTokenFile(dir)).toThrow(TokenError);
    expect(() => readTokenFile(join(dir, 'missing'))).toThrow(/cannot open the token file .*ENOENT/);
  });

  it('refuses an empty, short or unsendable token', () => {
    expect(() => readTokenFile(file(0o600, '\n'))).toThrow(/0 characters/);
    expect(() => readTokenFile(file(0o600, 'short\n'))).toThrow(/at least 16/);
    expect(() => checkToken('has spaces in it and is long', 'GATEFS_TOKEN')).toThrow(/GATEFS_TOKEN holds characters/);
    expect(() => checkToken('"quoted-token-0123456789"', 'GATEFS_TOKEN')).toThrow(TokenError);
    expect(checkToken('abcdefghijklmnop', 'GATEFS_TOKEN')).toBe('abcdefghijklmnop');
  });
});
