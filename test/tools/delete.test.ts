/**
 * `delete` through the gate: one file (or a link itself) goes, folders and special files are
 * refused, `expectedSha256` is a compare-and-swap, and every refusal leaves the tree as it was.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { toolResultText } from '../../src/mcp/text/tool-text.js';
import { hashLayer } from '../conformance/fixture.js';
import { addWorkspace, errorOf, setupGate, text, valueOf } from './workspace-fixture.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const TOOLS = ['read', 'delete'];

function setup(files: Record<string, string> = { 'a.txt': 'alpha\n', 'src/b.ts': 'beta\n', 'keep/k.txt': 'k\n' }) {
  const s = setupGate();
  const layer = new MemoryLayer({ root: '/ws', files });
  layer.volume.mkdirSync('/ws/empty');
  layer.volume.mkdirSync('/outside');
  layer.volume.writeFileSync('/outside/secret.txt', 'SENTINEL');
  const ref = new MemoryLayer({ files: { 'r.txt': 'r' } });
  addWorkspace(s, 'a', { layer, tools: TOOLS, mounts: [{ path: '/data/ref', layer: readOnly(ref), writable: false }] });
  return { ...s, layer, ref, del: (args: unknown) => s.gate.call('a', 'delete', args) };
}

describe('delete', () => {
  it('removes one file and answers { path, deleted }; its folder stays', async () => {
    const { del, layer } = setup();
    const result = await del({ path: 'src/b.ts' });
    expect(valueOf(result)).toEqual({ path: 'src/b.ts', deleted: true });
    expect(toolResultText('delete', result)).toBe('deleted src/b.ts');
    await expect(layer.stat('src/b.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await layer.readdir('src')).toEqual([]);
    expect(valueOf(await del({ path: '/worktrees/a/./keep//k.txt' })).path).toBe('keep/k.txt');
  });

  it('refuses folders (empty ones too), missing files and bad input, changing nothing', async () => {
    const { del, layer } = setup();
    const before = await hashLayer(layer);
    expect(errorOf(await del({ path: 'src' }))).toMatchObject({ code: 'IS_DIRECTORY', path: 'src' });
    expect(errorOf(await del({ path: 'empty' })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await del({ path: '.' })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await del({ path: 'missing.txt' }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(errorOf(await del({ path: 'a.txt/x' })).code).toBe('NOT_DIRECTORY');
    for (const args of [
      {},
      { path: 1 },
      { path: ['a.txt'] },
      { path: 'a.txt', force: true },
      { path: 'a.txt', expectedSha256: 'abc' },
      { path: '' },
    ]) {
      expect(errorOf(await del(args)).code).toBe('INVALID_INPUT');
    }
    expect(errorOf(await del({ path: '../b/a.txt' })).code).toBe('PATH_ESCAPE');
    expect(errorOf(await del({ path: '/etc/hostname' })).code).toBe('OUTSIDE_MOUNTS');
    expect(errorOf(await del({ path: 'a\u0000.txt' })).code).toBe('BAD_NAME');
    expect(await hashLayer(layer)).toBe(before);
  });

  it('refuses read-only mounts and .git with nothing changed', async () => {
    const { del, layer, ref } = setup({ 'a.txt': 'a', '.git/config': '[core]\n', 'sub/.git': 'gitdir: x\n' });
    const before = [await hashLayer(layer), await hashLayer(ref)];
    expect(errorOf(await del({ path: '/data/ref/r.txt' })).code).toBe('READ_ONLY');
    for (const p of ['.git/config', 'sub/.git', '.GIT/config', 'sub/./x/../.git'])
      expect(errorOf(await del({ path: p })).code).toBe('PROTECTED_PATH');
    expect([await hashLayer(layer), await hashLayer(ref)]).toEqual(before);
  });

  it('expectedSha256 deletes only the bytes that were read (STALE_CONTENT otherwise, or when already gone)', async () => {
    const { del, layer } = setup();
    const before = await hashLayer(layer);
    expect(errorOf(await del({ path: 'a.txt', expectedSha256: sha('other\n') }))).toMatchObject({ code: 'STALE_CONTENT', path: 'a.txt' });
    expect(errorOf(await del({ path: 'gone.txt', expectedSha256: sha('alpha\n') })).code).toBe('STALE_CONTENT');
    expect(await hashLayer(layer)).toBe(before);
    expect(valueOf(await del({ path: 'a.txt', expectedSha256: sha('alpha\n').toUpperCase() }))).toEqual({ path: 'a.txt', deleted: true });
    await expect(layer.stat('a.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('removes a link itself, never its target; follows links on the way inside the mount', async () => {
    const { del, layer } = setup();
    layer.volume.symlinkSync('a.txt', '/ws/to-a');
    layer.volume.symlinkSync('/outside/secret.txt', '/ws/out');
    layer.volume.symlinkSync('/outside', '/ws/out-dir');
    layer.volume.symlinkSync('keep', '/ws/kept');
    expect(errorOf(await del({ path: 'to-a', expectedSha256: sha('alpha\n') })).code).toBe('NOT_REGULAR_FILE');
    expect(valueOf(await del({ path: 'to-a' }))).toEqual({ path: 'to-a', deleted: true });
    expect(text(await layer.readFile('a.txt'))).toBe('alpha\n');
    expect(valueOf(await del({ path: 'out' })).deleted).toBe(true);
    expect(String(layer.volume.readFileSync('/outside/secret.txt'))).toBe('SENTINEL');
    const escaped = await del({ path: 'out-dir/secret.txt' });
    expect(errorOf(escaped).code).toBe('SYMLINK_ESCAPE');
    expect(JSON.stringify(escaped)).not.toContain('/outside');
    expect(String(layer.volume.readFileSync('/outside/secret.txt'))).toBe('SENTINEL');
    // Through an in-mount folder link: the file it leads to goes, shown under its real path.
    expect(valueOf(await del({ path: 'kept/k.txt' }))).toEqual({ path: 'keep/k.txt', deleted: true });
    expect(layer.volume.lstatSync('/ws/kept').isSymbolicLink()).toBe(true);
  });
});

describe('delete on disk', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  function hostSetup() {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-delete-'));
    const ws = path.join(base, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(base, 'outside.txt'), 'outside bytes\n');
    fs.linkSync(path.join(base, 'outside.txt'), path.join(ws, 'hard.txt'));
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    const layer: HostLayer = openHostLayer(ws);
    cleanups.push(() => (layer.close(), fs.rmSync(base, { recursive: true, force: true })));
    const s = setupGate();
    addWorkspace(s, 'a', { layer, tools: TOOLS });
    return { base, ws, del: (args: unknown) => s.gate.call('a', 'delete', args) };
  }

  it('leaves special files alone and removes a hard link by its name only', async () => {
    const { base, ws, del } = hostSetup();
    expect(errorOf(await del({ path: 'pipe' })).code).toBe('NOT_REGULAR_FILE');
    expect(fs.lstatSync(path.join(ws, 'pipe')).isFIFO()).toBe(true);
    expect(valueOf(await del({ path: 'hard.txt', expectedSha256: sha('outside bytes\n') })).deleted).toBe(true);
    expect(fs.existsSync(path.join(ws, 'hard.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(base, 'outside.txt'), 'utf8')).toBe('outside bytes\n');
  });
});
