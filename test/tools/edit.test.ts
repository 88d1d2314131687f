import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { addWorkspace, errorOf, setupGate, text, valueOf } from './workspace-fixture.js';

const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

function setup(files: Record<string, string | Uint8Array>) {
  const s = setupGate();
  const layer = new MemoryLayer({ files });
  addWorkspace(s, 'a', {
    layer,
    mounts: [{ path: '/worktrees/a/vendor', layer: readOnly(new MemoryLayer({ files: { 'lib.js': 'x = 1' } })), writable: false }],
  });
  return {
    ...s,
    layer,
    edit: (args: unknown) => s.gate.call('a', 'edit', args),
    content: async (p: string) => text(await layer.readFile(p)),
  };
}

describe('edit', () => {
  it('replaces one exact occurrence and reports the new sha256', async () => {
    const { edit, content } = setup({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const v = valueOf(await edit({ path: 'a.ts', oldString: 'b = 2', newString: 'b = 3' }));
    expect(v).toEqual({ path: 'a.ts', replacements: 1, sha256: sha('const a = 1;\nconst b = 3;\n') });
    expect(await content('a.ts')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('inserts the replacement literally ($& and $1 are not patterns)', async () => {
    const { edit, content } = setup({ 'a.ts': 'price = X' });
    valueOf(await edit({ path: 'a.ts', oldString: 'X', newString: '$& $1 $$' }));
    expect(await content('a.ts')).toBe('price = $& $1 $$');
  });

  it('NO_MATCH when absent; AMBIGUOUS_MATCH when repeated; replaceAll changes every one', async () => {
    const { edit, content } = setup({ 'a.ts': 'x x x' });
    expect(errorOf(await edit({ path: 'a.ts', oldString: 'y', newString: 'z' })).code).toBe('NO_MATCH');
    const amb = errorOf(await edit({ path: 'a.ts', oldString: 'x', newString: 'z' }));
    expect(amb.code).toBe('AMBIGUOUS_MATCH');
    expect(amb.message).toContain('3 times');
    expect(await content('a.ts')).toBe('x x x');
    expect(valueOf(await edit({ path: 'a.ts', oldString: 'x', newString: 'yy', replaceAll: true })).replacements).toBe(3);
    expect(await content('a.ts')).toBe('yy yy yy');
  });

  it('STALE_CONTENT when expectedSha256 does not match; passes when it does', async () => {
    const { edit, content } = setup({ 'a.ts': 'v1' });
    expect(errorOf(await edit({ path: 'a.ts', oldString: 'v1', newString: 'v2', expectedSha256: sha('v0') })).code).toBe('STALE_CONTENT');
    expect(await content('a.ts')).toBe('v1');
    valueOf(await edit({ path: 'a.ts', oldString: 'v1', newString: 'v2', expectedSha256: sha('v1') }));
    expect(await content('a.ts')).toBe('v2');
  });

  it('keeps CRLF line endings when the agent sends LF, and a missing final newline stays missing', async () => {
    const { edit, content } = setup({ 'w.txt': 'one\r\ntwo\r\nthree' });
    valueOf(await edit({ path: 'w.txt', oldString: 'one\ntwo', newString: 'uno\ndos\nmas' }));
    expect(await content('w.txt')).toBe('uno\r\ndos\r\nmas\r\nthree');
    valueOf(await edit({ path: 'w.txt', oldString: 'three', newString: 'tres' }));
    expect(await content('w.txt')).toBe('uno\r\ndos\r\nmas\r\ntres');
  });

  it('leaves LF files, BOMs and a final newline exactly as they were outside the edit', async () => {
    const { edit, layer } = setup({ 'b.txt': '\uFEFFa\nb\n', 'mixed.txt': 'a\r\nb\nc' });
    valueOf(await edit({ path: 'b.txt', oldString: 'b', newString: 'B\nC' }));
    expect(Buffer.from(await layer.readFile('b.txt')).toString('hex')).toBe(Buffer.from('\uFEFFa\nB\nC\n').toString('hex'));
    valueOf(await edit({ path: 'mixed.txt', oldString: 'b\nc', newString: 'B\nC' }));
    expect(text(await layer.readFile('mixed.txt'))).toBe('a\r\nB\nC');
  });

  it('refuses an empty oldString, a no-op edit, binaries and non-UTF-8 text', async () => {
    const { edit, layer } = setup({
      'a.ts': 'abc',
      bin: new Uint8Array([1, 0, 2]),
      'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    });
    const empty = errorOf(await edit({ path: 'a.ts', oldString: '', newString: 'x' }));
    expect(empty).toMatchObject({ code: 'INVALID_INPUT' });
    expect(empty.message).toMatch(/^oldString:/);
    expect(errorOf(await edit({ path: 'a.ts', oldString: 'a', newString: 'a' })).message).toMatch(/^newString:/);
    expect(errorOf(await edit({ path: 'bin', oldString: 'x', newString: 'y' })).code).toBe('BINARY_FILE');
    expect(errorOf(await edit({ path: 'latin1.txt', oldString: 'caf', newString: 'CAF' })).code).toBe('BINARY_FILE');
    expect(Buffer.from(await layer.readFile('latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });

  it('refuses read-only mounts, protected paths, folders and missing files', async () => {
    const { edit } = setup({ '.git/config': '[core]', 'd/x': 'x' });
    expect(errorOf(await edit({ path: 'vendor/lib.js', oldString: '1', newString: '2' })).code).toBe('READ_ONLY');
    expect(errorOf(await edit({ path: '.git/config', oldString: 'core', newString: 'evil' })).code).toBe('PROTECTED_PATH');
    expect(errorOf(await edit({ path: 'd', oldString: 'a', newString: 'b' })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await edit({ path: 'none.ts', oldString: 'a', newString: 'b' })).code).toBe('NOT_FOUND');
  });

  it('100 concurrent edits of distinct lines of one file all land', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} = old`);
    const { edit, content } = setup({ 'many.txt': `${lines.join('\n')}\n` });
    const results = await Promise.all(lines.map((l, i) => edit({ path: 'many.txt', oldString: `${l}\n`, newString: `line ${i} = new\n` })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await content('many.txt')).toBe(`${lines.map((_, i) => `line ${i} = new`).join('\n')}\n`);
  });
});
