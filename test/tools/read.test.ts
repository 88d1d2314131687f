import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
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

  it('refuses binaries, folders, large files, missing files and escapes with their codes', async () => {
    const bin = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    const layer = new MemoryLayer({ files: { 'img.png': bin, 'dir/x': 'x' } });
    layer.volume.writeFileSync('/huge.txt', Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
    const s = setupGate();
    addWorkspace(s, 'a', { layer });
    const read = (path: string) => s.gate.call('a', 'read', { path });
    expect(errorOf(await read('img.png'))).toMatchObject({ code: 'BINARY_FILE', path: 'img.png' });
    expect(errorOf(await read('dir'))).toMatchObject({ code: 'IS_DIRECTORY', path: 'dir' });
    expect(errorOf(await read('huge.txt'))).toMatchObject({ code: 'TOO_LARGE' });
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
