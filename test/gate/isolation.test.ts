import { createHash } from 'node:crypto';
import { cpSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import type { WriteResult } from '../../vfs/layer.js';
import { addWorkspace, errorOf, setupGate, valueOf } from '../tools/workspace-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'gatefs-iso-'));
const open: HostLayer[] = [];
afterAll(() => {
  for (const l of open) l.close();
  rmSync(temp, { recursive: true, force: true });
});

/** sha256 over every path and byte below `dir` (links by their target text). */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      h.update(p.slice(dir.length));
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

function repoWithTwoCopies() {
  const repo = join(temp, `repo-${open.length}`);
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(repo, 'src', 'main.ts'), 'export const answer = 41;\n');
  writeFileSync(join(repo, 'README.md'), '# repo\n');
  writeFileSync(join(repo, '.git', 'config'), '[core]\n');
  const outside = join(temp, `outside-${open.length}`);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'SENTINEL');
  const s = setupGate();
  const copies: Record<string, string> = {};
  for (const id of ['a', 'b']) {
    const dir = join(temp, `${id}-${open.length}`);
    cpSync(repo, dir, { recursive: true });
    const layer = openHostLayer(dir);
    open.push(layer);
    addWorkspace(s, id, { layer });
    copies[id] = dir;
  }
  return { s, repo, copies, outside };
}

describe('two conversations over one repository (host layers over two copies)', () => {
  it('a write or edit in one is invisible to the other and to the integration checkout', async () => {
    const { s, repo, copies } = repoWithTwoCopies();
    const repoBefore = treeHash(repo);
    const bBefore = treeHash(copies.b);
    valueOf(await s.gate.call('a', 'edit', { path: 'src/main.ts', oldString: '41', newString: '42' }));
    valueOf(await s.gate.call('a', 'write', { path: 'src/new/file.ts', content: 'new\n' }));
    expect(readFileSync(join(copies.a, 'src/main.ts'), 'utf8')).toBe('export const answer = 42;\n');
    expect(valueOf(await s.gate.call('b', 'read', { path: 'src/main.ts' })).content).toBe('export const answer = 41;\n');
    expect(errorOf(await s.gate.call('b', 'read', { path: 'src/new/file.ts' })).code).toBe('NOT_FOUND');
    expect(errorOf(await s.gate.call('a', 'read', { path: '/worktrees/b/src/main.ts' })).code).toBe('OUTSIDE_MOUNTS');
    expect(valueOf(await s.gate.call('b', 'grep', { pattern: '42' })).files).toEqual([]);
    expect(treeHash(repo)).toBe(repoBefore);
    expect(treeHash(copies.b)).toBe(bBefore);
  });

  it('runs every tool on a real folder: lists and greps in order, never through links, never .git', async () => {
    const { s, copies, outside } = repoWithTwoCopies();
    symlinkSync(outside, join(copies.a, 'src', 'out-link'));
    symlinkSync(join(outside, 'secret.txt'), join(copies.a, 'leaf.txt'));
    writeFileSync(join(copies.a, '.gitignore'), 'ignored/\n');
    mkdirSync(join(copies.a, 'ignored'));
    writeFileSync(join(copies.a, 'ignored', 'x.ts'), 'answer');
    const outsideBefore = treeHash(outside);
    const listed = valueOf(await s.gate.call('a', 'list', { pattern: '**', includeIgnored: true }));
    expect(listed.entries.map((e: { path: string; type: string }) => `${e.path}:${e.type}`)).toEqual([
      '.gitignore:file',
      'README.md:file',
      'ignored:directory',
      'ignored/x.ts:file',
      'leaf.txt:symlink',
      'src:directory',
      'src/main.ts:file',
      'src/out-link:symlink',
    ]);
    // By default list leaves out what .gitignore ignores, as grep does.
    const shown = valueOf(await s.gate.call('a', 'list', { pattern: '**' }));
    expect(shown.entries.map((e: { path: string }) => e.path)).not.toContain('ignored/x.ts');
    expect(shown.ignored).toBe(1);
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'answer|SENTINEL|core' })).files).toEqual(['src/main.ts']);
    expect(errorOf(await s.gate.call('a', 'read', { path: 'leaf.txt' })).code).toBe('SYMLINK_ESCAPE');
    expect(errorOf(await s.gate.call('a', 'write', { path: 'src/out-link/secret.txt', content: 'x' })).code).toBe('SYMLINK_ESCAPE');
    expect(errorOf(await s.gate.call('a', 'write', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' })).code).toBe('PROTECTED_PATH');
    expect(errorOf(await s.gate.call('a', 'read', { path: '.git/config' })).code).toBe('NOT_FOUND');
    expect(treeHash(outside)).toBe(outsideBefore);
  });

  it('a write through a hard link replaces the name; the outside inode keeps its bytes; mode is kept', async () => {
    const { s, copies, outside } = repoWithTwoCopies();
    linkSync(join(outside, 'secret.txt'), join(copies.a, 'hard.txt'));
    valueOf(await s.gate.call('a', 'write', { path: 'hard.txt', content: 'replaced' }));
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('SENTINEL');
    expect(readFileSync(join(copies.a, 'hard.txt'), 'utf8')).toBe('replaced');
    const script = join(copies.a, 'run.sh');
    writeFileSync(script, '#!/bin/sh\n', { mode: 0o755 });
    valueOf(await s.gate.call('a', 'edit', { path: 'run.sh', oldString: '#!/bin/sh\n', newString: '#!/bin/sh\necho hi\n' }));
    expect(statSync(script).mode & 0o777).toBe(0o755);
  });
});

describe('per-file serialization', () => {
  it('calls in different conversations never wait for each other; the same file in one workspace does', async () => {
    const s = setupGate();
    let releaseA!: () => void;
    const held = new Promise<void>((resolve) => (releaseA = resolve));
    const slow = new MemoryLayer({ files: { 'f.txt': 'a' } });
    const write = slow.writeFile.bind(slow);
    slow.writeFile = async (path: string, data: Uint8Array, options?: object): Promise<WriteResult> => {
      await held;
      return write(path, data, options);
    };
    addWorkspace(s, 'a', { layer: slow });
    addWorkspace(s, 'b', { files: { 'f.txt': 'b' } });
    const order: string[] = [];
    const aWrite = s.gate.call('a', 'write', { path: 'f.txt', content: 'A1' }).then(() => order.push('a1'));
    const aSecond = s.gate.call('a', 'edit', { path: 'f.txt', oldString: 'A1', newString: 'A2' }).then((r) => {
      order.push('a2');
      return r;
    });
    const bWrite = await s.gate.call('b', 'write', { path: 'f.txt', content: 'B' });
    order.push('b');
    expect(bWrite.ok).toBe(true);
    releaseA();
    await aWrite;
    expect(valueOf(await aSecond).replacements).toBe(1);
    expect(order).toEqual(['b', 'a1', 'a2']);
    expect(Buffer.from(await slow.readFile('f.txt')).toString()).toBe('A2');
  });
});
