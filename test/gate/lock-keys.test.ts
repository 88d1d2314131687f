/**
 * Lock keys (vfs/lock-key.ts): one key per file, whatever route reaches it — two layer objects
 * over one folder, a layer over a sub-folder, every wrapper (read-only, path rules, sparse,
 * disclosure hints, overlay → its upper), a folder renamed between two opens — and different
 * keys for different files. What a user would notice if this were wrong is a lost update; the
 * keys are what the gate's locks queue on.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Volume } from 'memfs';
import { withPathRules } from '../../vfs/path-rules-layer.js';
import { isVfsError } from '../../vfs/errors.js';
import { withDisclosureHints } from '../../vfs/disclosure-hint-layer.js';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import type { Layer } from '../../vfs/layer.js';
import { HOST_FILES, lockKeyOf } from '../../vfs/lock-key.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-keys-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

function host(dir: string): HostLayer {
  const layer = openHostLayer(dir);
  cleanups.push(() => layer.close());
  return layer;
}

describe('host lock keys', () => {
  it('two layer objects over one folder, and a layer over its sub-folder, give one key per file', () => {
    const dir = tempTree({ 'data/deep/f.txt': 'x', 'data/g.txt': 'y' });
    const a = host(dir);
    const b = host(dir);
    const sub = host(join(dir, 'data'));
    expect(a.lockKey('data/deep/f.txt')).toEqual(b.lockKey('data/deep/f.txt'));
    expect(sub.lockKey('deep/f.txt')).toEqual(a.lockKey('data/deep/f.txt'));
    expect(a.lockKey('data/deep/f.txt').scope).toBe(HOST_FILES);
    expect(a.lockKey('data/g.txt')).not.toEqual(a.lockKey('data/deep/f.txt'));
    expect(a.lockKey('data/deep/g.txt')).not.toEqual(a.lockKey('data/g.txt'));
  });

  it('the weaker lstat walk (no procfs) computes the same keys', () => {
    const dir = tempTree({ 'data/deep/f.txt': 'x' });
    const fallback = openHostLayer(dir, { forceFallback: true });
    cleanups.push(() => fallback.close());
    expect(fallback.guarantee).toBe('lstat-fallback');
    expect(fallback.lockKey('data/deep/f.txt')).toEqual(host(dir).lockKey('data/deep/f.txt'));
    expect(fallback.lockKey('data/new/f.txt')).toEqual(host(dir).lockKey('data/new/f.txt'));
  });

  it('names a file that does not exist yet the same way from every route, including folders still to be created', () => {
    const dir = tempTree({ 'data/f.txt': 'x' });
    const a = host(dir);
    const sub = host(join(dir, 'data'));
    expect(a.lockKey('data/new.txt')).toEqual(sub.lockKey('new.txt'));
    expect(a.lockKey('data/x/y/new.txt')).toEqual(sub.lockKey('x/y/new.txt'));
    expect(a.lockKey('data/x/y/new.txt')).not.toEqual(a.lockKey('data/x/new.txt'));
  });

  it('follows the folder, not its name: a root renamed between two opens, or opened through a link, keeps its keys', () => {
    const base = tempTree({ 'one/f.txt': 'x' });
    const before = host(join(base, 'one'));
    const key = before.lockKey('f.txt');
    renameSync(join(base, 'one'), join(base, 'two'));
    symlinkSync(join(base, 'two'), join(base, 'alias'));
    expect(host(join(base, 'two')).lockKey('f.txt')).toEqual(key);
    expect(host(join(base, 'alias')).lockKey('f.txt')).toEqual(key);
  });

  it('never follows a link on the way (the key stops where the walk would refuse) and never creates anything', async () => {
    const outside = tempTree({ 'f.txt': 'outside' });
    const dir = tempTree({ 'in/f.txt': 'x' });
    symlinkSync(outside, join(dir, 'link'));
    const layer = host(dir);
    const viaLink = layer.lockKey('link/f.txt');
    expect(viaLink).not.toEqual(host(outside).lockKey('f.txt'));
    expect(() => layer.lockKey('in/missing/deeper/f.txt')).not.toThrow();
    await expect(layer.readdir('in/missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a closed layer answers INTERNAL, re-anchored at the namespace path by Namespace.lockKey', () => {
    const dir = tempTree({ 'f.txt': 'x' });
    const layer = openHostLayer(dir);
    const ns = new Namespace({ root: '/worktrees/a', mounts: [{ path: '/worktrees/a', layer, writable: true }] });
    const r = ns.resolve('f.txt');
    expect(ns.lockKey(r)).toEqual(layer.lockKey('f.txt'));
    layer.close();
    let thrown: unknown;
    try {
      ns.lockKey(r);
    } catch (e) {
      thrown = e;
    }
    expect(isVfsError(thrown, 'INTERNAL') && thrown.path).toBe('/worktrees/a/f.txt');
  });
});

describe('every wrapper forwards the key of the layer that is written', () => {
  it('read-only, path rules, sparse, disclosure hints and overlay (its upper) all agree with the host layer', () => {
    const dir = tempTree({ 'src/a.ts': 'a', 'docs/b.md': 'b' });
    const base = host(dir);
    const key = base.lockKey('src/a.ts');
    const projection = sparse(host(dir), ['src/a.ts']);
    const stacks: [string, Layer][] = [
      ['readOnly', readOnly(host(dir))],
      ['withPathRules', withPathRules(host(dir), { hidden: '.gatefs', readOnly: ['docs'] })],
      ['sparse', projection],
      ['disclosure hints', withDisclosureHints(projection, { isUndisclosed: async () => false })],
      ['overlay over a memory lower', overlay(host(dir), new MemoryLayer({ files: { 'src/a.ts': 'lower' } }))],
      ['read-only over path rules over sparse', readOnly(withPathRules(sparse(host(dir), []), { readOnly: ['x'] }))],
    ];
    for (const [name, layer] of stacks) expect(lockKeyOf(layer, 'src/a.ts'), name).toEqual(key);
  });

  it('an overlay keys by its upper: two overlays over one upper agree, over two uppers they do not', () => {
    const upperDir = tempTree({ 'keep.txt': '' });
    const otherDir = tempTree({ 'keep.txt': '' });
    const lower = new MemoryLayer({ files: { 'f.txt': 'lower' } });
    expect(overlay(host(upperDir), lower).lockKey('f.txt')).toEqual(overlay(host(upperDir), lower).lockKey('f.txt'));
    expect(overlay(host(upperDir), lower).lockKey('f.txt')).not.toEqual(overlay(host(otherDir), lower).lockKey('f.txt'));
  });

  it('memory layers key by volume and volume path: a sub-folder layer of one volume agrees, another volume does not', () => {
    const volume = new Volume();
    const whole = new MemoryLayer({ volume, root: '/repo', files: { 'data/f.txt': 'x' } });
    const sub = new MemoryLayer({ volume, root: '/repo/data' });
    const elsewhere = new MemoryLayer({ root: '/repo', files: { 'data/f.txt': 'x' } });
    expect(sub.lockKey('f.txt')).toEqual(whole.lockKey('data/f.txt'));
    expect(elsewhere.lockKey('data/f.txt')).not.toEqual(whole.lockKey('data/f.txt'));
    expect(whole.lockKey('data/f.txt').scope).toBe(volume);
  });

  it('a layer without identities is keyed by itself and the path', () => {
    const plain: Layer = {
      kind: 'plain',
      stat: async () => ({ type: 'file', size: 0, mode: 0o644, mtimeMs: 0 }),
      readFile: async () => new Uint8Array(),
      readdir: async () => [],
    };
    expect(lockKeyOf(plain, 'a/b')).toEqual({ scope: plain, id: 'a/b' });
    expect(lockKeyOf(readOnly(plain), 'a/b')).toEqual({ scope: plain, id: 'a/b' });
  });
});
