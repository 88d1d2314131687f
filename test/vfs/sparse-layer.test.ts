import { describe, expect, it } from 'vitest';
import { isVfsError } from '../../vfs/errors.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { hashLayer } from '../conformance/fixture.js';

const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

function setup() {
  const inner = new MemoryLayer({
    files: {
      'src/a.ts': 'A',
      'src/hidden.ts': 'HIDDEN',
      'src/deep/x.ts': 'X',
      'secret/key.pem': 'KEY',
      'README.md': 'readme',
    },
  });
  const layer = sparse(inner, ['src/a.ts']);
  return { inner, layer };
}

/** What an agent can observe of a failed call: code, operation and detail (the path aside). */
async function observed(p: Promise<unknown>) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!isVfsError(e)) throw new Error(`expected a VfsError, got ${String(e)}`);
  return { code: e.code, op: e.op, detail: e.detail, message: e.message.replace(e.path, '<path>') };
}

describe('sparse projection', () => {
  it('shows only the visible files and the folders leading to them', async () => {
    const { layer } = setup();
    expect(await layer.readdir('')).toEqual([{ name: 'src', type: 'directory' }]);
    expect(await layer.readdir('src')).toEqual([{ name: 'a.ts', type: 'file' }]);
    expect(text(await layer.readFile('src/a.ts'))).toBe('A');
  });

  it('makes a hidden file indistinguishable from an absent one through stat, read and readdir', async () => {
    const { layer } = setup();
    for (const [hidden, absent] of [
      ['src/hidden.ts', 'src/absent.ts'],
      ['secret', 'nothing'],
      ['secret/key.pem', 'nothing/key.pem'],
      ['src/deep', 'src/nodir'],
      ['README.md', 'README.txt'],
    ]) {
      for (const op of ['stat', 'readFile', 'readdir'] as const) {
        const call = (p: string) => (layer[op] as (p: string) => Promise<unknown>).call(layer, p);
        expect(await observed(call(hidden))).toEqual(await observed(call(absent)));
      }
    }
    await expect(layer.stat('src/hidden.ts')).rejects.toMatchObject({ code: 'NOT_FOUND', path: 'src/hidden.ts' });
  });

  it('widens with disclose (idempotent) and answers isVisible / isHidden', async () => {
    const { layer } = setup();
    expect(await layer.isHidden('src/hidden.ts')).toBe(true);
    expect(await layer.isHidden('src/absent.ts')).toBe(false);
    expect(await layer.isHidden('src/a.ts')).toBe(false);
    expect(layer.disclose(['src/hidden.ts', 'secret/key.pem'])).toEqual(['src/hidden.ts', 'secret/key.pem']);
    expect(layer.disclose(['src/hidden.ts'])).toEqual([]);
    expect(layer.isVisible('secret')).toBe(true);
    expect(text(await layer.readFile('src/hidden.ts'))).toBe('HIDDEN');
    expect(await layer.readdir('')).toEqual([
      { name: 'secret', type: 'directory' },
      { name: 'src', type: 'directory' },
    ]);
    expect(layer.visiblePaths()).toEqual(['secret/key.pem', 'src/a.ts', 'src/hidden.ts']);
  });

  it('shows a disclosed folder without what it holds', async () => {
    const { layer } = setup();
    layer.disclose(['secret']);
    expect((await layer.stat('secret')).type).toBe('directory');
    expect(await layer.readdir('secret')).toEqual([]);
    await expect(layer.readFile('secret/key.pem')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses malformed disclosures with BAD_NAME and adds none of the batch', async () => {
    const { layer } = setup();
    for (const bad of ['', '/etc/passwd', 'src/../secret/key.pem', 'src//a.ts', './src/a.ts', 'src\\a.ts', 'src/a\u0000.ts', 'x/\ud800']) {
      expect(() => layer.disclose(['src/hidden.ts', bad])).toThrow(expect.objectContaining({ code: 'BAD_NAME' }));
    }
    expect(layer.isVisible('src/hidden.ts')).toBe(false);
  });

  it('lets an agent create new files in visible folders; they become visible', async () => {
    const { inner, layer } = setup();
    expect(await layer.writeFile('src/new.ts', enc('new'))).toEqual({ created: true });
    expect(await layer.readdir('src')).toEqual([
      { name: 'a.ts', type: 'file' },
      { name: 'new.ts', type: 'file' },
    ]);
    expect(text(await inner.readFile('src/new.ts'))).toBe('new');
    await expect(layer.writeFile('nowhere/new.ts', enc('x'))).rejects.toMatchObject({ code: 'NOT_FOUND', path: 'nowhere' });
  });

  it('never clobbers or reveals a hidden file a write or mkdir lands on', async () => {
    const { inner, layer } = setup();
    const before = await hashLayer(inner);
    for (const call of [
      () => layer.writeFile('src/hidden.ts', enc('clobber')),
      () => layer.writeFile('src/hidden.ts', enc('clobber'), { exclusive: true }),
      () => layer.writeFile('src/deep', enc('clobber')),
      () => layer.mkdir('src/hidden.ts'),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    }
    await expect(layer.remove('src/hidden.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await hashLayer(inner)).toBe(before);
    expect(layer.isVisible('src/hidden.ts')).toBe(false);
    await expect(layer.stat('src/hidden.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shows a hidden folder empty after mkdir, keeping its hidden content hidden', async () => {
    const { inner, layer } = setup();
    await layer.mkdir('secret');
    expect(await layer.readdir('secret')).toEqual([]);
    await layer.writeFile('secret/mine.txt', enc('mine'));
    expect(await layer.readdir('secret')).toEqual([{ name: 'mine.txt', type: 'file' }]);
    await expect(layer.readFile('secret/key.pem')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(layer.remove('secret/mine.txt')).resolves.toBeUndefined();
    await expect(layer.remove('secret')).rejects.toMatchObject({ code: 'NOT_EMPTY' });
    expect(text(await inner.readFile('secret/key.pem'))).toBe('KEY');
  });

  it('keeps a folder visible after its last visible file is removed', async () => {
    const { inner, layer } = setup();
    await layer.remove('src/a.ts');
    expect(await layer.readdir('src')).toEqual([]);
    await layer.writeFile('src/b.ts', enc('B'));
    expect(await layer.readdir('src')).toEqual([{ name: 'b.ts', type: 'file' }]);
    expect(text(await inner.readFile('src/hidden.ts'))).toBe('HIDDEN');
    await expect(layer.readFile('src/hidden.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses every write with READ_ONLY when the inner layer cannot write', async () => {
    const inner = new MemoryLayer({ files: { 'src/a.ts': 'A' } });
    const layer = sparse(readOnly(inner), ['src/a.ts']);
    await expect(layer.writeFile('src/new.ts', enc('x'))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await expect(layer.writeFile('src/a.ts', enc('x'))).rejects.toMatchObject({ code: 'READ_ONLY' });
    await expect(layer.mkdir('src/d')).rejects.toMatchObject({ code: 'READ_ONLY' });
    expect(text(await inner.readFile('src/a.ts'))).toBe('A');
  });

  it('works under a namespace: creating parents never exposes what a hidden folder holds', async () => {
    const { inner, layer } = setup();
    const ns = new Namespace({ root: '/worktrees/s', mounts: [{ path: '/worktrees/s', layer, writable: true }] });
    await ns.writeFile('secret/notes/today.md', enc('notes'), { createParents: true });
    expect((await ns.readdir('secret')).map((e) => e.name)).toEqual(['notes']);
    await expect(ns.readFile('secret/key.pem')).rejects.toMatchObject({ code: 'NOT_FOUND', path: '/worktrees/s/secret/key.pem' });
    await expect(ns.writeFile('secret/key.pem', enc('x'), { createParents: true })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(text(await inner.readFile('secret/key.pem'))).toBe('KEY');
  });
});
