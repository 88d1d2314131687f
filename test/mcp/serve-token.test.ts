/**
 * The token files on a real disk: the generated token is saved with mode 600, one file per server
 * address, by replacing the name (a planted link is replaced, its target untouched); a saved
 * token is read only from a regular file of this user's with mode 600 (never through a link); a
 * running server follows a rotation and keeps its token when the file is removed or replaced by
 * one others may read; and a token file the operator
 * chooses is refused when others may read it, when it is not a regular file (a FIFO does not
 * hang the start), or when it holds no usable token.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
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
import {
  addressText,
  checkToken,
  generateToken,
  listSavedTokens,
  readSavedToken,
  readTokenFile,
  SavedTokenWatch,
  TokenError,
  writeServeToken,
} from '../../src/mcp/http/serve-token.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatefs-token-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ADDRESS = { host: '127.0.0.1', port: 8808 };

describe('writeServeToken', () => {
  it('writes the token for one address with mode 600 and replaces an earlier one whole', () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const first = generateToken();
    const file = writeServeToken(state, ADDRESS, first);
    expect(file).toBe(join(state, 'serve-token-127.0.0.1-8808'));
    expect(readFileSync(file, 'utf8')).toBe(`${first}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = generateToken();
    writeServeToken(state, ADDRESS, second);
    expect(readFileSync(file, 'utf8')).toBe(`${second}\n`);
    expect(readdirSync(state)).toEqual(['serve-token-127.0.0.1-8808']); // no temp file left behind
  });

  it('keeps one file per address: two servers on one state dir never overwrite each other', () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const a = generateToken();
    const b = generateToken();
    writeServeToken(state, ADDRESS, a);
    writeServeToken(state, { host: '::1', port: 8808 }, b);
    writeServeToken(state, { host: '127.0.0.1', port: 8809 }, generateToken());
    expect(readSavedToken(join(state, 'serve-token-127.0.0.1-8808'))).toBe(a);
    expect(readSavedToken(join(state, 'serve-token-[::1]-8808'))).toBe(b);
    writeFileSync(join(state, 'serve-token-not-a-port'), 'x');
    expect(listSavedTokens(state).map((t) => addressText(t.address))).toEqual(['127.0.0.1:8808', '127.0.0.1:8809', '[::1]:8808']);
    expect(listSavedTokens(join(dir, 'missing'))).toEqual([]);
  });

  it('replaces a link planted at the token file name instead of writing through it', () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'precious\n', { mode: 0o644 });
    const name = join(state, 'serve-token-127.0.0.1-8808');
    symlinkSync(outside, name);
    const token = generateToken();
    writeServeToken(state, ADDRESS, token);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(statSync(outside).mode & 0o777).toBe(0o644);
    expect(lstatSync(name).isFile()).toBe(true);
    expect(readFileSync(name, 'utf8')).toBe(`${token}\n`);
  });

  it('fails, leaving nothing behind, when the name is a folder', () => {
    const state = join(dir, 'state');
    mkdirSync(join(state, 'serve-token-127.0.0.1-8808'), { recursive: true });
    expect(() => writeServeToken(state, ADDRESS, generateToken())).toThrow();
    expect(readdirSync(state)).toEqual(['serve-token-127.0.0.1-8808']);
  });

  it('generates distinct 43-character base64url tokens', () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });
});

describe('readSavedToken', () => {
  const token = 'b0a1f3c4d5e6f708192a3b4c5d6e7f80';

  it('reads a file of its own with mode 600; a missing one is null', () => {
    const file = join(dir, 'serve-token-127.0.0.1-8808');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    expect(readSavedToken(file)).toBe(token);
    expect(readSavedToken(join(dir, 'none'))).toBeNull();
  });

  it('refuses a link (never followed, even to a file of mode 600), a file open to others, a hard link, and junk', () => {
    const target = join(dir, 'mine');
    writeFileSync(target, `${token}\n`, { mode: 0o600 });
    const link = join(dir, 'link');
    symlinkSync(target, link);
    expect(() => readSavedToken(link)).toThrow(/is a link/);
    const open = join(dir, 'open');
    writeFileSync(open, `${token}\n`, { mode: 0o644 });
    expect(() => readSavedToken(open)).toThrow(/open to group or others/);
    const hard = join(dir, 'hard');
    linkSync(target, hard);
    expect(() => readSavedToken(hard)).toThrow(/2 names/);
    const junk = join(dir, 'junk');
    writeFileSync(junk, 'has spaces in it and is long\n', { mode: 0o600 });
    expect(() => readSavedToken(junk)).toThrow(TokenError);
  });
});

describe('SavedTokenWatch', () => {
  it('follows a rotation (a new file renamed over the name) and keeps the last good token otherwise', () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const first = generateToken();
    const file = writeServeToken(state, ADDRESS, first);
    const refused: string[] = [];
    const watch = new SavedTokenWatch(file, first, (r) => refused.push(r));
    expect(watch.current()).toBe(first);
    const second = generateToken();
    writeServeToken(state, ADDRESS, second);
    expect(watch.current()).toBe(second);
    // A replacement others may read is not taken: the token in force stays.
    rmSync(file);
    writeFileSync(file, `${generateToken()}\n`, { mode: 0o644 });
    expect(watch.current()).toBe(second);
    expect(refused).toEqual([expect.stringContaining('open to group or others')]);
    rmSync(file);
    expect(watch.current()).toBe(second);
    expect(refused[1]).toContain('was removed');
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
