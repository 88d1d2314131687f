import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

function setup(files: Record<string, string | Uint8Array>) {
  const s = setupGate();
  const w = addWorkspace(s, 'a', { files });
  return { ...s, ...w, read: (args: unknown) => s.gate.call('a', 'read', args) };
}

describe('read', () => {
  it('returns the whole small file with totals and the sha256 of its bytes', async () => {
    const { read } = setup({ 'src/a.ts': 'one\ntwo\nthree\n' });
    expect(valueOf(await read({ path: 'src/a.ts' }))).toEqual({
      path: 'src/a.ts',
      content: 'one\ntwo\nthree\n',
      startLine: 1,
      endLine: 3,
      totalLines: 3,
      sha256: sha('one\ntwo\nthree\n'),
      truncated: false,
    });
  });

  it('pages with offset and limit; windows concatenate back to the file', async () => {
    const body = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}\r\n`).join('')}last without newline`;
    const { read } = setup({ 'f.txt': body });
    const first = valueOf(await read({ path: 'f.txt', limit: 4 }));
    expect(first).toMatchObject({
      startLine: 1,
      endLine: 4,
      totalLines: 11,
      truncated: true,
      content: 'line 1\r\nline 2\r\nline 3\r\nline 4\r\n',
    });
    const second = valueOf(await read({ path: 'f.txt', offset: 5, limit: 4 }));
    const third = valueOf(await read({ path: '/worktrees/a/f.txt', offset: 9 }));
    expect(third).toMatchObject({ startLine: 9, endLine: 11, truncated: false, path: 'f.txt' });
    expect(first.content + second.content + third.content).toBe(body);
    expect(third.sha256).toBe(sha(body));
  });

  it('reads an empty file as zero lines and refuses an offset past the end', async () => {
    const { read } = setup({ empty: '', two: 'a\nb\n' });
    expect(valueOf(await read({ path: 'empty' }))).toMatchObject({
      content: '',
      startLine: 1,
      endLine: 0,
      totalLines: 0,
      truncated: false,
    });
    const err = errorOf(await read({ path: 'two', offset: 3 }));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/^offset: the file has 2 lines/);
  });

  it('cuts a huge window at 256 Ki characters on a line boundary and says truncated', async () => {
    const line = `${'x'.repeat(999)}\n`;
    const { read } = setup({ 'big.txt': line.repeat(600) });
    const v = valueOf(await read({ path: 'big.txt' }));
    expect(v.content.length).toBeLessThanOrEqual(256 * 1024);
    expect(v.content.endsWith('\n')).toBe(true);
    expect(v.endLine).toBe(262);
    expect(v.truncated).toBe(true);
  });

  it('refuses binaries, folders, missing files and escapes with their codes', async () => {
    const bin = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    const layer = new MemoryLayer({ files: { 'img.png': bin, 'dir/x': 'x' } });
    const s = setupGate();
    addWorkspace(s, 'a', { layer });
    const read = (path: string) => s.gate.call('a', 'read', { path });
    expect(errorOf(await read('img.png'))).toMatchObject({ code: 'BINARY_FILE', path: 'img.png' });
    expect(errorOf(await read('dir'))).toMatchObject({ code: 'IS_DIRECTORY', path: 'dir' });
    expect(errorOf(await read('nope.txt'))).toMatchObject({ code: 'NOT_FOUND', path: 'nope.txt' });
    expect(errorOf(await read('dir/x/y'))).toMatchObject({ code: 'NOT_DIRECTORY' });
    expect(errorOf(await read('../b/x'))).toMatchObject({ code: 'PATH_ESCAPE' });
    expect(errorOf(await read('/etc/hostname'))).toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    expect(errorOf(await read('a\u0000b'))).toMatchObject({ code: 'BAD_NAME' });
    expect(errorOf(await read(`${'n'.repeat(256)}`))).toMatchObject({ code: 'NAME_TOO_LONG' });
  });

  it('never follows a symlink, at the leaf or mid-path', async () => {
    const layer = new MemoryLayer({ root: '/ws', files: { 'ok.txt': 'ok' } });
    layer.volume.mkdirSync('/outside', { recursive: true });
    layer.volume.writeFileSync('/outside/secret', 'SENTINEL');
    layer.volume.symlinkSync('/outside/secret', '/ws/leaf');
    layer.volume.symlinkSync('/outside', '/ws/dir');
    const s = setupGate();
    addWorkspace(s, 'a', { layer });
    for (const path of ['leaf', 'dir/secret']) {
      const r = await s.gate.call('a', 'read', { path });
      expect(errorOf(r).code).toBe('SYMLINK_ESCAPE');
      expect(JSON.stringify(r)).not.toContain('SENTINEL');
      expect(JSON.stringify(r)).not.toContain('/outside');
    }
  });
});

describe('read: hints and long lines', () => {
  it('says where to continue (nextOffset) while lines remain, and not at the end', async () => {
    const { read } = setup({ 'f.txt': 'a\nb\nc\n' });
    expect(valueOf(await read({ path: 'f.txt', limit: 2 }))).toMatchObject({ endLine: 2, truncated: true, nextOffset: 3 });
    const last = valueOf(await read({ path: 'f.txt', offset: 3 }));
    expect(last).toMatchObject({ endLine: 3, truncated: false });
    expect(last.nextOffset).toBeUndefined();
  });

  it('cuts a line over 2,000 characters with a marker saying how to see it; limit 1 shows it whole', async () => {
    const long = 'x'.repeat(5000);
    const { read } = setup({ 'min.js': `first\n${long}\nlast\n` });
    const v = valueOf(await read({ path: 'min.js' }));
    expect(v.cutLines).toEqual([2]);
    expect(v.content).toBe(
      `first\n${'x'.repeat(2000)} … [cut: 3000 more characters; read with offset 2 and limit 1 to see the whole line]\nlast\n`,
    );
    const whole = valueOf(await read({ path: 'min.js', offset: 2, limit: 1 }));
    expect(whole).toMatchObject({ content: `${long}\n`, startLine: 2, endLine: 2, nextOffset: 3 });
    expect(whole.cutLines).toBeUndefined();
  });

  it('shows at most 256 Ki characters of a single line, and says how many were left out', async () => {
    const { read } = setup({ 'one.txt': `${'y'.repeat(300_000)}\nz\n` });
    const v = valueOf(await read({ path: 'one.txt', limit: 1 }));
    expect(v.content.startsWith('y'.repeat(256 * 1024))).toBe(true);
    expect(v.content).toContain(`[cut: ${300_000 - 256 * 1024} more characters of line 1;`);
    expect(v).toMatchObject({ endLine: 1, truncated: true, nextOffset: 2, cutLines: [1] });
  });
});

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const GIF_1x1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** The start of a baseline JPEG: SOI, then a start-of-frame saying 7 rows of 5 pixels. */
const JPEG_5x7 = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x07, 0x00, 0x05, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01]);
/** A WebP with an extended header (VP8X) saying 640 x 480. */
const WEBP_640x480 = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([22, 0, 0, 0]),
  Buffer.from('WEBPVP8X'),
  Buffer.from([10, 0, 0, 0, 0, 0, 0, 0]),
  Buffer.from([0x7f, 0x02, 0x00, 0xdf, 0x01, 0x00]),
]);

describe('read: images', () => {
  it('returns PNG, GIF, JPEG and WebP as images: mime type, pixel size, bytes, sha256 and the base64 data', async () => {
    const { read } = setup({ 'img/a.png': PNG_1x1, 'b.gif': GIF_1x1, 'c.jpg': JPEG_5x7, 'd.webp': WEBP_640x480 });
    expect(valueOf(await read({ path: 'img/a.png' }))).toEqual({
      path: 'img/a.png',
      kind: 'image',
      mimeType: 'image/png',
      width: 1,
      height: 1,
      bytes: PNG_1x1.length,
      sha256: sha(PNG_1x1),
      data: PNG_1x1.toString('base64'),
    });
    expect(valueOf(await read({ path: 'b.gif' }))).toMatchObject({ mimeType: 'image/gif', width: 1, height: 1 });
    expect(valueOf(await read({ path: 'c.jpg' }))).toMatchObject({ mimeType: 'image/jpeg', width: 5, height: 7 });
    expect(valueOf(await read({ path: 'd.webp' }))).toMatchObject({ mimeType: 'image/webp', width: 640, height: 480 });
  });

  it('goes by the bytes, not the name, and refuses an image over 3.75 MiB', async () => {
    const huge = Buffer.concat([PNG_1x1, Buffer.alloc(4 * 1024 * 1024)]);
    const { read } = setup({ 'text.png': 'not an image\n', 'big.png': huge, logo: PNG_1x1 });
    expect(valueOf(await read({ path: 'text.png' }))).toMatchObject({ content: 'not an image\n' });
    expect(valueOf(await read({ path: 'logo' }))).toMatchObject({ kind: 'image', mimeType: 'image/png' });
    const err = errorOf(await read({ path: 'big.png' }));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toContain('read returns images up to');
  });
});

describe('read: files over 10 MiB', () => {
  const temp = mkdtempSync(join(tmpdir(), 'gatefs-read-large-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  // 120,000 CRLF lines of 100 bytes (12 MB), a cut-worthy line in the middle, no final newline.
  const lines = Array.from({ length: 120_000 }, (_, i) =>
    i === 60_000 ? 'L'.repeat(5000) : `line ${String(i + 1).padStart(6, '0')} ${'.'.repeat(84)}`,
  );
  const body = `${lines.join('\r\n')}`;
  const bytes = Buffer.from(body);
  writeFileSync(join(temp, 'big.log'), bytes);
  writeFileSync(join(temp, 'big.bin'), Buffer.concat([Buffer.from([0]), Buffer.alloc(11 * 1024 * 1024, 1)]));
  writeFileSync(join(temp, 'big.png'), Buffer.concat([PNG_1x1, Buffer.alloc(11 * 1024 * 1024)]));
  writeFileSync(join(temp, 'huge.log'), '');
  truncateSync(join(temp, 'huge.log'), 1024 * 1024 * 1024 + 1);
  const layers = {
    'host (streamed)': () => openHostLayer(temp),
    memory: () => new MemoryLayer({ files: { 'big.log': bytes } }),
  };

  for (const [name, open] of Object.entries(layers)) {
    it(`${name}: pages through with offset and limit, with the totals and the sha256 of the whole file`, async () => {
      const s = setupGate();
      addWorkspace(s, 'a', { layer: open() });
      const read = (args: object) => s.gate.call('a', 'read', { path: 'big.log', ...args });
      const first = valueOf(await read({ limit: 3 }));
      expect(first).toEqual({
        path: 'big.log',
        content: `${lines.slice(0, 3).join('\r\n')}\r\n`,
        startLine: 1,
        endLine: 3,
        totalLines: 120_000,
        sha256: sha(bytes),
        truncated: true,
        nextOffset: 4,
      });
      const middle = valueOf(await read({ offset: 60_000, limit: 3 }));
      expect(middle.content).toBe(
        `${lines[59_999]}\r\n${'L'.repeat(2000)} … [cut: 3000 more characters; read with offset 60001 and limit 1 to see the whole line]\r\n${lines[60_001]}\r\n`,
      );
      expect(middle.cutLines).toEqual([60_001]);
      expect(valueOf(await read({ offset: 60_001, limit: 1 })).content).toBe(`${'L'.repeat(5000)}\r\n`);
      const last = valueOf(await read({ offset: 119_999 }));
      expect(last).toMatchObject({ content: `${lines[119_998]}\r\n${lines[119_999]}`, endLine: 120_000, truncated: false });
      const err = errorOf(await read({ offset: 120_001 }));
      expect(err).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^offset: the file has 120000 lines/) });
    });
  }

  it('stops at 256 Ki characters on a line boundary, and consecutive windows concatenate to the file', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', { layer: openHostLayer(temp) });
    const first = valueOf(await s.gate.call('a', 'read', { path: 'big.log', limit: 5000 }));
    expect(first.content.length).toBeLessThanOrEqual(256 * 1024);
    expect(first).toMatchObject({ truncated: true, endLine: Math.floor((256 * 1024) / (lines[0].length + 2)) });
    const second = valueOf(await s.gate.call('a', 'read', { path: 'big.log', offset: first.nextOffset, limit: 10 }));
    expect(first.content + second.content).toBe(body.slice(0, first.content.length + second.content.length));
  });

  it('refuses a large binary, a large image, and a file over 1 GiB', async () => {
    const s = setupGate();
    addWorkspace(s, 'a', { layer: openHostLayer(temp) });
    const read = (path: string) => s.gate.call('a', 'read', { path });
    expect(errorOf(await read('big.bin')).code).toBe('BINARY_FILE');
    expect(errorOf(await read('big.png')).code).toBe('TOO_LARGE');
    expect(errorOf(await read('huge.log'))).toMatchObject({ code: 'TOO_LARGE', path: 'huge.log' });
  });
});
