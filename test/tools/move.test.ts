/**
 * `move` through the gate: files, links and folders move inside one mount; nothing is replaced
 * silently; every refusal (another mount, a read-only mount, a protected path at either end, a
 * folder carrying one, onto or into itself, hostile paths in `from` and `to`) is a typed error
 * with the tree hash unchanged.
 */
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

const TOOLS = ['read', 'write', 'move'];

function setup(files: Record<string, string> = {}) {
  const s = setupGate();
  const layer = new MemoryLayer({
    root: '/ws',
    files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'src/x.ts': 'x\n', 'src/deep/y.ts': 'y\n', ...files },
  });
  layer.volume.mkdirSync('/outside');
  layer.volume.writeFileSync('/outside/secret.txt', 'SENTINEL');
  const campaign = new MemoryLayer({ files: { 'plan.md': 'plan\n' } });
  const out = new MemoryLayer({ files: { 'o.txt': 'o\n' } });
  const ref = new MemoryLayer({ files: { 'r.txt': 'r\n', 'sub/s.txt': 's\n' } });
  const mounted = new MemoryLayer({ files: { 'm.txt': 'm\n' } });
  addWorkspace(s, 'a', {
    layer,
    tools: TOOLS,
    mounts: [
      { path: '/worktrees/a/.campaign', layer: readOnly(campaign), writable: false },
      { path: '/worktrees/a/holder/inner', layer: mounted, writable: true },
      { path: '/data/out', layer: out, writable: true },
      { path: '/data/ref', layer: readOnly(ref), writable: false },
    ],
  });
  const stores = [layer, campaign, out, ref, mounted];
  const hash = async () => Promise.all(stores.map((l) => hashLayer(l)));
  return { ...s, layer, out, hash, move: (args: unknown) => s.gate.call('a', 'move', args) };
}

describe('move', () => {
  it('renames a file and moves it into a folder (made when missing); answers { from, to }', async () => {
    const { move, layer } = setup();
    const renamed = await move({ from: 'a.txt', to: 'c.txt' });
    expect(valueOf(renamed)).toEqual({ from: 'a.txt', to: 'c.txt' });
    expect(toolResultText('move', renamed)).toBe('moved a.txt to c.txt');
    expect(text(await layer.readFile('c.txt'))).toBe('alpha\n');
    await expect(layer.stat('a.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(valueOf(await move({ from: '/worktrees/a/c.txt', to: 'docs/new/c.txt' }))).toEqual({ from: 'c.txt', to: 'docs/new/c.txt' });
    expect(text(await layer.readFile('docs/new/c.txt'))).toBe('alpha\n');
    expect(valueOf(await move({ from: '/data/out/o.txt', to: '/data/out/p.txt' }))).toEqual({
      from: '/data/out/o.txt',
      to: '/data/out/p.txt',
    });
  });

  it('never overwrites silently: ALREADY_EXISTS unless overwrite; a folder is never replaced', async () => {
    const { move, layer, hash } = setup();
    const before = await hash();
    expect(errorOf(await move({ from: 'a.txt', to: 'b.txt' }))).toMatchObject({ code: 'ALREADY_EXISTS', path: 'b.txt' });
    expect(errorOf(await move({ from: 'a.txt', to: 'src' })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await move({ from: 'a.txt', to: 'src', overwrite: true })).code).toBe('IS_DIRECTORY');
    expect(errorOf(await move({ from: 'src', to: 'b.txt', overwrite: true })).code).toBe('ALREADY_EXISTS');
    expect(errorOf(await move({ from: 'a.txt', to: 'holder' })).code).toBe('IS_DIRECTORY');
    expect(await hash()).toEqual(before);
    expect(valueOf(await move({ from: 'a.txt', to: 'b.txt', overwrite: true })).to).toBe('b.txt');
    expect(text(await layer.readFile('b.txt'))).toBe('alpha\n');
  });

  it('moves a folder with everything in it; onto itself, into itself, a missing source are typed errors', async () => {
    const { move, layer, hash } = setup();
    const before = await hash();
    expect(errorOf(await move({ from: 'src', to: './src' })).code).toBe('INVALID_INPUT');
    expect(errorOf(await move({ from: 'src', to: 'src/deep/again' })).code).toBe('INVALID_INPUT');
    expect(errorOf(await move({ from: '.', to: 'elsewhere' })).code).toBe('INVALID_INPUT');
    expect(errorOf(await move({ from: 'missing.txt', to: 'found.txt' })).code).toBe('NOT_FOUND');
    expect(errorOf(await move({ from: 'a.txt', to: 'b.txt/inside' })).code).toBe('NOT_DIRECTORY');
    expect(await hash()).toEqual(before);
    expect(valueOf(await move({ from: 'src', to: 'lib/src' }))).toEqual({ from: 'src', to: 'lib/src' });
    expect(text(await layer.readFile('lib/src/deep/y.ts'))).toBe('y\n');
    await expect(layer.stat('src')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stays inside one writable mount: CROSS_MOUNT between mounts, READ_ONLY into, out of and within read-only ones', async () => {
    const { move, hash } = setup();
    const before = await hash();
    const cases: [object, string][] = [
      [{ from: 'a.txt', to: '/data/out/a.txt' }, 'CROSS_MOUNT'],
      [{ from: '/data/out/o.txt', to: 'o.txt' }, 'CROSS_MOUNT'],
      [{ from: 'a.txt', to: 'holder/inner/a.txt' }, 'CROSS_MOUNT'],
      // A folder holding another mount would carry it off.
      [{ from: 'holder', to: 'holder2' }, 'CROSS_MOUNT'],
      [{ from: 'a.txt', to: '.campaign/a.txt' }, 'READ_ONLY'],
      [{ from: '.campaign/plan.md', to: 'plan.md' }, 'READ_ONLY'],
      [{ from: '/data/ref/r.txt', to: '/data/ref/r2.txt' }, 'READ_ONLY'],
      [{ from: '/data/ref/sub', to: '/data/ref/sub2' }, 'READ_ONLY'],
      [{ from: '.campaign', to: 'campaign' }, 'READ_ONLY'],
      [{ from: 'a.txt', to: '/data/ref/a.txt' }, 'READ_ONLY'],
    ];
    for (const [args, code] of cases) expect({ args, code: errorOf(await move(args)).code }).toEqual({ args, code });
    expect(await hash()).toEqual(before);
  });

  it('never moves .git, onto .git, nor a folder holding one; hostile paths in from and to are refused', async () => {
    const { move, hash } = setup({ '.git/config': '[core]\n', 'pkg/.git': 'gitdir: /elsewhere\n', 'pkg/p.ts': 'p\n' });
    const before = await hash();
    const cases: [object, string][] = [
      [{ from: '.git/config', to: 'config' }, 'PROTECTED_PATH'],
      [{ from: '.git', to: 'git-copy' }, 'PROTECTED_PATH'],
      [{ from: 'a.txt', to: '.git/hooks/pre-commit' }, 'PROTECTED_PATH'],
      [{ from: 'a.txt', to: 'src/.GIT' }, 'PROTECTED_PATH'],
      [{ from: 'a.txt', to: 'git~1' }, 'PROTECTED_PATH'],
      [{ from: 'pkg', to: 'pkg2' }, 'PROTECTED_PATH'],
      [{ from: '../b/a.txt', to: 'x.txt' }, 'PATH_ESCAPE'],
      [{ from: 'a.txt', to: '../../etc/x' }, 'PATH_ESCAPE'],
      [{ from: 'a.txt', to: '/etc/x' }, 'OUTSIDE_MOUNTS'],
      [{ from: '/worktrees/ax/a.txt', to: 'x' }, 'OUTSIDE_MOUNTS'],
      [{ from: 'a.txt', to: 'x\\y' }, 'BAD_NAME'],
      [{ from: 'a\u0000', to: 'x' }, 'BAD_NAME'],
      [{ from: 'a.txt', to: `${'n'.repeat(256)}` }, 'NAME_TOO_LONG'],
      [{ from: 'a.txt' }, 'INVALID_INPUT'],
      [{ from: 'a.txt', to: 'x', overwrite: 'yes' }, 'INVALID_INPUT'],
      [{ from: ['a.txt'], to: 'x' }, 'INVALID_INPUT'],
      [{ from: 'a.txt', to: { path: 'x' } }, 'INVALID_INPUT'],
      [{ src: 'a.txt', dst: 'x' }, 'INVALID_INPUT'],
    ];
    for (const [args, code] of cases) expect({ args, code: errorOf(await move(args)).code }).toEqual({ args, code });
    expect(await hash()).toEqual(before);
  });

  it('moves a link as a link and replaces a link as a link; links on the way are followed inside the mount only', async () => {
    const { move, layer } = setup();
    layer.volume.symlinkSync('a.txt', '/ws/to-a');
    layer.volume.symlinkSync('/outside/secret.txt', '/ws/out');
    layer.volume.symlinkSync('/outside', '/ws/out-dir');
    layer.volume.symlinkSync('src', '/ws/linked');
    expect(valueOf(await move({ from: 'to-a', to: 'src/to-a' }))).toEqual({ from: 'to-a', to: 'src/to-a' });
    expect(layer.volume.readlinkSync('/ws/src/to-a')).toBe('a.txt');
    expect(text(await layer.readFile('a.txt'))).toBe('alpha\n');
    expect(valueOf(await move({ from: 'b.txt', to: 'out', overwrite: true })).to).toBe('out');
    expect(layer.volume.lstatSync('/ws/out').isFile()).toBe(true);
    expect(String(layer.volume.readFileSync('/outside/secret.txt'))).toBe('SENTINEL');
    // linked -> src: the path through it is the path to what it leads to.
    expect(valueOf(await move({ from: 'linked/x.ts', to: 'linked/deep/x.ts' }))).toEqual({ from: 'src/x.ts', to: 'src/deep/x.ts' });
    for (const args of [
      { from: 'out-dir/secret.txt', to: 'stolen.txt' },
      { from: 'a.txt', to: 'out-dir/planted.txt' },
    ]) {
      const r = await move(args);
      expect(errorOf(r).code).toBe('SYMLINK_ESCAPE');
      expect(JSON.stringify(r)).not.toContain('/outside');
    }
    expect(layer.volume.readdirSync('/outside')).toEqual(['secret.txt']);
  });
});

describe('move and delete under occupancy', () => {
  it('are refused with OCCUPIED while another holder has exclusive write, changing nothing', async () => {
    const s = setupGate({ occupancy: { blockingHolder: (conv, holder) => (conv === 'o' && holder !== 'owner' ? 'owner' : undefined) } });
    const { layer } = addWorkspace(s, 'o', { files: { 'f.txt': 'f\n' }, tools: ['move', 'delete'] });
    const before = await hashLayer(layer);
    expect(errorOf(await s.gate.call('o', 'move', { from: 'f.txt', to: 'g.txt' }, { holder: 'intruder' })).code).toBe('OCCUPIED');
    expect(errorOf(await s.gate.call('o', 'delete', { path: 'f.txt' }, { holder: 'intruder' })).code).toBe('OCCUPIED');
    expect(await hashLayer(layer)).toBe(before);
    expect(valueOf(await s.gate.call('o', 'move', { from: 'f.txt', to: 'g.txt' }, { holder: 'owner' })).to).toBe('g.txt');
  });
});

describe('move on disk', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('a hard link to an outside file moves by its name; the outside inode keeps its bytes and name', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-move-'));
    const ws = path.join(base, 'ws');
    fs.mkdirSync(path.join(ws, 'd'), { recursive: true });
    fs.writeFileSync(path.join(base, 'outside.txt'), 'outside bytes\n');
    fs.linkSync(path.join(base, 'outside.txt'), path.join(ws, 'hard.txt'));
    fs.writeFileSync(path.join(ws, 'other.txt'), 'other\n');
    const layer: HostLayer = openHostLayer(ws);
    cleanups.push(() => (layer.close(), fs.rmSync(base, { recursive: true, force: true })));
    const s = setupGate();
    addWorkspace(s, 'a', { layer, tools: TOOLS });
    const move = (args: unknown) => s.gate.call('a', 'move', args);
    expect(valueOf(await move({ from: 'hard.txt', to: 'd/hard.txt' })).to).toBe('d/hard.txt');
    expect(fs.readFileSync(path.join(base, 'outside.txt'), 'utf8')).toBe('outside bytes\n');
    expect(fs.statSync(path.join(base, 'outside.txt')).nlink).toBe(2);
    // Replacing the hard-linked name replaces the name: the outside file keeps its bytes.
    expect(valueOf(await move({ from: 'other.txt', to: 'd/hard.txt', overwrite: true })).to).toBe('d/hard.txt');
    expect(fs.readFileSync(path.join(ws, 'd/hard.txt'), 'utf8')).toBe('other\n');
    expect(fs.readFileSync(path.join(base, 'outside.txt'), 'utf8')).toBe('outside bytes\n');
    expect(fs.statSync(path.join(base, 'outside.txt')).nlink).toBe(1);
    // Two names of one file: the move leaves one name, as rename(2) alone would not.
    fs.linkSync(path.join(ws, 'd/hard.txt'), path.join(ws, 'twin.txt'));
    expect(valueOf(await move({ from: 'twin.txt', to: 'd/hard.txt', overwrite: true })).to).toBe('d/hard.txt');
    expect(fs.existsSync(path.join(ws, 'twin.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'd/hard.txt'), 'utf8')).toBe('other\n');
  });
});
