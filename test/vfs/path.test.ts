/**
 * The grammar of SECURITY.md §3 step 1, one rule per test, plus attack classes A (`..`,
 * normalization), B (absolute paths, prefix confusion), G (names and input types) and H
 * (Unicode and case) at the grammar and namespace level (real disks are covered elsewhere).
 */
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { checkName, resolveNamespacePath, segmentsOf, utf8Length } from '../../vfs/path.js';

const ROOT = '/worktrees/a';
const onlyRoot = (p: string) => p === ROOT || p.startsWith(`${ROOT}/`);
const resolve = (input: string) => resolveNamespacePath(input, ROOT, onlyRoot);
const refused = (input: unknown, code: string) =>
  expect(() => resolveNamespacePath(input as string, ROOT, onlyRoot)).toThrow(expect.objectContaining({ code }));

function namespace() {
  return new Namespace({
    root: ROOT,
    mounts: [
      {
        path: ROOT,
        layer: new MemoryLayer({ files: { 'src/f.ts': 'mine', 'caf\u00e9.txt': 'composed', 'Readme.md': 'R' } }),
        writable: true,
      },
      { path: '/worktrees/ab', layer: new MemoryLayer({ files: { 'f.ts': 'other conversation' } }), writable: true },
      { path: '/docs', layer: new MemoryLayer({ files: { 'guide.md': 'docs' } }), writable: false },
      { path: '/docs-extra', layer: new MemoryLayer({ files: { 'x.md': 'extra' } }), writable: true },
    ],
  });
}

describe('path grammar rules', () => {
  it('resolves relative paths at the root and normalizes "." and empty segments', () => {
    expect(resolve('src/f.ts')).toBe(`${ROOT}/src/f.ts`);
    expect(resolve('.')).toBe(ROOT);
    expect(resolve('./src//./f.ts/')).toBe(`${ROOT}/src/f.ts`);
    expect(resolve(`${ROOT}/./src//./../src/f`)).toBe(`${ROOT}/src/f`);
  });

  it('refuses the empty path', () => refused('', 'BAD_NAME'));

  it('refuses NUL and backslash anywhere', () => {
    refused('src/f\u0000.ts', 'BAD_NAME');
    refused('\u0000', 'BAD_NAME');
    refused('src\\..\\..\\etc', 'BAD_NAME');
    refused('C:\\Windows', 'BAD_NAME');
  });

  it('refuses lone surrogates but accepts paired ones', () => {
    refused('a/\ud800', 'BAD_NAME');
    refused('a/\udc00b', 'BAD_NAME');
    refused('\udbff/x', 'BAD_NAME');
    expect(resolve('emoji-\ud83d\ude00.txt')).toBe(`${ROOT}/emoji-\ud83d\ude00.txt`);
  });

  it('counts name length in UTF-8 bytes: 255 is allowed, 256 is NAME_TOO_LONG', () => {
    expect(resolve('x'.repeat(255))).toBe(`${ROOT}/${'x'.repeat(255)}`);
    refused('x'.repeat(256), 'NAME_TOO_LONG');
    expect(utf8Length('\u20ac'.repeat(85))).toBe(255);
    expect(resolve('\u20ac'.repeat(85))).toContain('\u20ac');
    refused(`src/${'\u00e9'.repeat(128)}`, 'NAME_TOO_LONG');
    expect(utf8Length('\ud83d\ude00')).toBe(4);
    refused('\ud83d\ude00'.repeat(64), 'NAME_TOO_LONG');
  });

  it('limits the whole path to 4096 UTF-8 bytes, input and result', () => {
    const long = Array.from({ length: 18 }, () => 'y'.repeat(240)).join('/');
    expect(utf8Length(long)).toBeGreaterThan(4096);
    refused(long, 'NAME_TOO_LONG');
    const fits = Array.from({ length: 16 }, () => 'y'.repeat(255)).join('/');
    expect(utf8Length(fits)).toBeLessThanOrEqual(4096);
    expect(utf8Length(`${ROOT}/${fits}`)).toBeGreaterThan(4096);
    refused(fits, 'NAME_TOO_LONG');
  });

  it('refuses a ".." that leaves the namespace, even if it would come back', () => {
    refused('..', 'PATH_ESCAPE');
    refused('../x', 'PATH_ESCAPE');
    refused('src/../../x', 'PATH_ESCAPE');
    refused('../a/src/f.ts', 'PATH_ESCAPE');
    refused(`${ROOT}/../b/f`, 'PATH_ESCAPE');
    refused('/..', 'PATH_ESCAPE');
    expect(resolve('src/../src/f.ts')).toBe(`${ROOT}/src/f.ts`);
  });

  it('decodes, expands and folds nothing', () => {
    expect(resolve('%2e%2e/x')).toBe(`${ROOT}/%2e%2e/x`);
    expect(resolve('~/x')).toBe(`${ROOT}/~/x`);
    expect(resolve('$HOME/x')).toBe(`${ROOT}/$HOME/x`);
    expect(resolve('...')).toBe(`${ROOT}/...`);
    expect(resolve('..a/b..')).toBe(`${ROOT}/..a/b..`);
    expect(resolve('cafe\u0301')).not.toBe(resolve('caf\u00e9'));
    expect(resolve('FILE')).not.toBe(resolve('file'));
    expect(resolve('\u2024\u2024/x')).toBe(`${ROOT}/\u2024\u2024/x`);
  });

  it('refuses non-string input with BAD_NAME (class G), never a TypeError', () => {
    for (const bad of [123, ['src', 'f.ts'], { toString: () => '../x' }, null, undefined, Symbol('x')]) refused(bad, 'BAD_NAME');
  });

  it('checkName refuses what can never be one name', () => {
    for (const bad of ['', '.', '..', 'a/b'.replace('/', '\\'), 'a\u0000']) {
      expect(() => checkName(bad, 'op', bad)).toThrow(expect.objectContaining({ code: 'BAD_NAME' }));
    }
    expect(() => checkName('x'.repeat(256), 'op', 'x')).toThrow(expect.objectContaining({ code: 'NAME_TOO_LONG' }));
    expect(() => checkName('ok name', 'op', 'ok name')).not.toThrow();
    expect(segmentsOf('/')).toEqual([]);
    expect(segmentsOf('/a/b')).toEqual(['a', 'b']);
  });
});

describe('attack classes A, B, G, H through a namespace', () => {
  it('A: ".." never lists or reads the parent, nor re-enters another root', async () => {
    const ns = namespace();
    await expect(ns.readdir('..')).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(ns.readFile('../ab/f.ts')).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(ns.readFile('src/../../a/src/f.ts')).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(ns.writeFile('../ab/f.ts', new Uint8Array(1))).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    expect(new TextDecoder().decode(await ns.readFile(`${ROOT}/./src//./../src/f.ts`))).toBe('mine');
  });

  it('B: absolute host paths and look-alike roots are outside the mounts', async () => {
    const ns = namespace();
    for (const p of ['/etc/hostname', '/worktrees/abc/f.ts', '/worktrees/a-x/f.ts', '/docsx/guide.md', '/doc']) {
      await expect(ns.readFile(p)).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    }
    // Folders that only lead to mount points list this namespace's own mounts, and take no writes.
    for (const p of ['/worktrees', '/']) {
      await expect(ns.readFile(p)).rejects.toMatchObject({ code: 'IS_DIRECTORY' });
      await expect(ns.writeFile(`${p === '/' ? '' : p}/new.ts`, new Uint8Array(1))).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
      await expect(ns.mkdir(`${p === '/' ? '' : p}/abc`)).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    }
    expect((await ns.readdir('/worktrees')).map((e) => e.name)).toEqual(['a', 'ab']);
    expect(ns.resolve('/worktrees/ab/f.ts').mount.path).toBe('/worktrees/ab');
    expect(ns.resolve('/docs-extra/x.md').mount.path).toBe('/docs-extra');
    expect(ns.resolve('/docs/guide.md').mount.path).toBe('/docs');
    await expect(ns.writeFile('/docs/guide.md', new Uint8Array(1))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await ns.writeFile('/docs-extra/x.md', new TextEncoder().encode('writable neighbour'));
    expect(new TextDecoder().decode(await ns.readFile('/docs/guide.md'))).toBe('docs');
  });

  it('G: a NUL, a backslash or a 256-byte name never reaches a layer', async () => {
    const ns = namespace();
    await expect(ns.readFile('src/f.ts\u0000.png')).rejects.toMatchObject({ code: 'BAD_NAME' });
    await expect(ns.writeFile('src\\f.ts', new Uint8Array(1))).rejects.toMatchObject({ code: 'BAD_NAME' });
    await expect(ns.writeFile(`${'n'.repeat(256)}.ts`, new Uint8Array(1))).rejects.toMatchObject({ code: 'NAME_TOO_LONG' });
    await expect(ns.readFile(42 as unknown as string)).rejects.toMatchObject({ code: 'BAD_NAME' });
    expect((await ns.readdir('.')).map((e) => e.name)).toEqual(['Readme.md', 'caf\u00e9.txt', 'src']);
  });

  it('H: composed and decomposed names, and case variants, are different names', async () => {
    const ns = namespace();
    expect(new TextDecoder().decode(await ns.readFile('caf\u00e9.txt'))).toBe('composed');
    await expect(ns.readFile('cafe\u0301.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(ns.readFile('README.md')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(ns.readFile('/DOCS/guide.md')).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
    await expect(ns.readFile('/Worktrees/a/src/f.ts')).rejects.toMatchObject({ code: 'OUTSIDE_MOUNTS' });
  });
});
