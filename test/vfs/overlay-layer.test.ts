import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { OVERLAY_META } from '../../vfs/whiteout-set.js';
import { hashLayer } from '../conformance/fixture.js';
import { hashHostTree, hostFixture, type HostFixture } from '../conformance/host-fixture.js';

const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const names = async (layer: { readdir(p: string): Promise<{ name: string }[]> }, p: string) => (await layer.readdir(p)).map((e) => e.name);

let fx: HostFixture | undefined;
const open: HostLayer[] = [];
afterEach(() => {
  for (const l of open.splice(0)) l.close();
  fx?.cleanup();
  fx = undefined;
});

/** A host lower seeded with the fixture (NOT wrapped read-only: the overlay itself must not write it). */
function hostLower() {
  fx = hostFixture();
  const lowerDir = fx.folder('lower', true);
  const lower = openHostLayer(lowerDir);
  open.push(lower);
  return { lowerDir, lower, fx };
}

function hostUpper(dir: string) {
  const upper = openHostLayer(dir);
  open.push(upper);
  return upper;
}

describe('overlay', () => {
  it('sends every change to the upper and never modifies the lower', async () => {
    const { lowerDir, lower } = hostLower();
    const before = hashHostTree(lowerDir);
    const upper = new MemoryLayer();
    const layer = overlay(upper, lower);
    await layer.writeFile('src/nested/deep/new.txt', enc('new'));
    await layer.writeFile('README.md', enc('changed'));
    await layer.remove('src/a.ts');
    await layer.remove('docs/guide.md');
    await layer.remove('docs');
    await layer.mkdir('empty/sub');
    await layer.remove('empty/sub');
    await layer.remove('empty');
    expect(hashHostTree(lowerDir)).toBe(before);
    expect(text(await lower.readFile('README.md'))).toBe('# fixture\n');
    // Copy-up created only the folders leading to the written file, not their other files.
    expect(await names(upper, 'src/nested/deep')).toEqual(['new.txt']);
    expect(await names(upper, 'src')).toEqual(['nested']);
    expect(await names(layer, '')).not.toContain('docs');
    expect(await layer.whiteouts()).toEqual(['docs', 'empty', 'src/a.ts']);
  });

  it('keeps a deleted lower file hidden from stat, read and listing', async () => {
    const { lower } = hostLower();
    const layer = overlay(new MemoryLayer(), lower);
    await layer.remove('src/a.ts');
    await expect(layer.stat('src/a.ts')).rejects.toMatchObject({ code: 'NOT_FOUND', path: 'src/a.ts' });
    await expect(layer.readFile('src/a.ts')).rejects.toMatchObject({ code: 'NOT_FOUND', path: 'src/a.ts' });
    expect(await names(layer, 'src')).toEqual(['b.ts', 'nested']);
    expect(text(await lower.readFile('src/a.ts'))).toBe('export const a = 1;\n');
    expect(await layer.writeFile('src/a.ts', enc('again'))).toEqual({ created: true });
    expect(text(await layer.readFile('src/a.ts'))).toBe('again');
  });

  it('makes a removed and re-created folder opaque: old lower entries stay hidden', async () => {
    const { lower } = hostLower();
    const layer = overlay(new MemoryLayer(), lower);
    await layer.remove('src/nested/deep/c.txt');
    await layer.remove('src/nested/deep');
    await layer.remove('src/nested');
    await layer.mkdir('src/nested');
    expect(await layer.readdir('src/nested')).toEqual([]);
    await expect(layer.stat('src/nested/deep/c.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await layer.mkdir('src/nested/deep');
    expect(await layer.readdir('src/nested/deep')).toEqual([]);
    expect(await names(lower, 'src/nested/deep')).toEqual(['c.txt']);
  });

  it('refuses to remove a folder that still shows entries, from either layer', async () => {
    const { lower } = hostLower();
    const layer = overlay(new MemoryLayer(), lower);
    await expect(layer.remove('docs')).rejects.toMatchObject({ code: 'NOT_EMPTY', path: 'docs' });
    await layer.mkdir('fresh');
    await layer.writeFile('fresh/f.txt', enc('f'));
    await expect(layer.remove('fresh')).rejects.toMatchObject({ code: 'NOT_EMPTY', path: 'fresh' });
    expect(text(await layer.readFile('docs/guide.md'))).toBe('guide\n');
  });

  it('keeps whiteouts and opaque folders durable across reopening the same upper folder', async () => {
    const { lower, fx } = hostLower();
    const upperDir = fx.folder('upper', false);
    const first = overlay(hostUpper(upperDir), lower);
    await first.remove('src/a.ts');
    await first.remove('docs/guide.md');
    await first.remove('docs');
    await first.mkdir('docs');
    await first.writeFile('docs/new.md', enc('new'));
    await first.remove('README.md');
    const view = await hashLayer(first);

    const reopened = overlay(hostUpper(upperDir), lower);
    expect(await hashLayer(reopened)).toBe(view);
    await expect(reopened.stat('src/a.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await names(reopened, 'docs')).toEqual(['new.md']);
    expect(await names(reopened, '')).not.toContain('README.md');
    expect(await reopened.whiteouts()).toEqual(['README.md', 'docs', 'src/a.ts']);
  });

  it('saves every whiteout of concurrent deletes', async () => {
    const { lower, fx } = hostLower();
    const upperDir = fx.folder('upper', false);
    const layer = overlay(hostUpper(upperDir), lower);
    const victims = ['README.md', 'Zebra.md', 'apple.md', 'src/a.ts', 'src/b.ts', 'bin.dat', 'docs/guide.md'];
    await Promise.all(victims.map((v) => layer.remove(v)));
    const reopened = overlay(hostUpper(upperDir), lower);
    expect(await reopened.whiteouts()).toEqual([...victims].sort());
  });

  it('reserves its metadata folder: never listed, refused with BAD_NAME for every operation', async () => {
    const { lowerDir, fx } = hostLower();
    mkdirSync(join(lowerDir, OVERLAY_META));
    writeFileSync(join(lowerDir, OVERLAY_META, 'whiteouts.json'), '{"whiteouts":["README.md"]}');
    const upperDir = fx.folder('upper', false);
    const lower = openHostLayer(lowerDir);
    open.push(lower);
    const layer = overlay(hostUpper(upperDir), lower);
    await layer.remove('src/a.ts');
    expect(await names(layer, '')).not.toContain(OVERLAY_META);
    expect(text(await layer.readFile('README.md'))).toBe('# fixture\n');
    const meta = `${OVERLAY_META}/whiteouts.json`;
    for (const call of [
      () => layer.stat(OVERLAY_META),
      () => layer.readFile(meta),
      () => layer.readdir(OVERLAY_META),
      () => layer.writeFile(meta, enc('{"whiteouts":[]}')),
      () => layer.mkdir(`${OVERLAY_META}/x`),
      () => layer.remove(meta),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'BAD_NAME' });
    }
    await expect(layer.stat('src/a.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports a corrupt whiteout record as INTERNAL without a host path', async () => {
    const { lower, fx } = hostLower();
    const upperDir = fx.folder('upper', false);
    mkdirSync(join(upperDir, OVERLAY_META));
    writeFileSync(join(upperDir, OVERLAY_META, 'whiteouts.json'), 'not json');
    const layer = overlay(hostUpper(upperDir), lower);
    const error = await layer.readdir('').catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect((error as Error).message).not.toContain(fx.base);
  });

  it('keeps the mode of a lower file it replaces', async () => {
    const { lowerDir, fx } = hostLower();
    chmodSync(join(lowerDir, 'src/a.ts'), 0o755);
    const lower = openHostLayer(lowerDir);
    open.push(lower);
    const layer = overlay(hostUpper(fx.folder('upper', false)), lower);
    await layer.writeFile('src/a.ts', enc('exec'));
    expect((await layer.stat('src/a.ts')).mode & 0o777).toBe(0o755);
  });

  it('lets an upper file shadow a lower folder: paths below it are NOT_DIRECTORY, never the lower files', async () => {
    const { lower } = hostLower();
    const layer = overlay(new MemoryLayer(), lower);
    expect(text(await layer.readFile('docs/guide.md'))).toBe('guide\n');
    await layer.remove('docs/guide.md');
    await layer.remove('docs');
    await layer.writeFile('docs', enc('now a file'));
    await expect(layer.readFile('docs/guide.md')).rejects.toMatchObject({ code: 'NOT_DIRECTORY' });
    await expect(layer.stat('docs/guide.md')).rejects.toMatchObject({ code: 'NOT_DIRECTORY' });
    await expect(layer.readdir('docs')).rejects.toMatchObject({ code: 'NOT_DIRECTORY' });
    expect(text(await layer.readFile('docs'))).toBe('now a file');
  });

  it('serves each read from the layer that holds the newest bytes while writes interleave', async () => {
    const { lower } = hostLower();
    const layer = overlay(new MemoryLayer(), lower);
    const reads: Promise<string>[] = [];
    for (let i = 0; i < 20; i++) {
      reads.push(layer.readFile('src/b.ts').then(text));
      await layer.writeFile(`src/w${i}.ts`, enc(String(i)));
      if (i === 10) await layer.writeFile('src/b.ts', enc('changed'));
    }
    expect(text(await layer.readFile('src/b.ts'))).toBe('changed');
    expect(text(await layer.readFile('src/w19.ts'))).toBe('19');
    const seen = await Promise.all(reads);
    expect(seen.slice(0, 11).every((t) => t === 'export const b = 2;\n')).toBe(true);
    expect(seen.slice(11).every((t) => t === 'changed')).toBe(true);
  });
});

describe('overlay walk (walkTree over two host layers)', () => {
  /** A host upper over a host lower holding the fixture, with a history of changes through the overlay. */
  async function changedOverlay() {
    const { lower } = hostLower();
    const upper = hostUpper(fx!.folder('upper', false));
    const layer = overlay(upper, lower);
    await layer.writeFile('src/a.ts', enc('copied up\n'));
    await layer.writeFile('src/nested/new.ts', enc('new in a lower folder\n'));
    await layer.mkdir('fresh');
    await layer.writeFile('fresh/only-up.txt', enc('upper only\n'));
    await layer.remove('src/nested/deep/c.txt');
    await layer.remove('src/nested/deep');
    await layer.remove('docs/guide.md');
    await layer.remove('docs');
    await layer.writeFile('docs', enc('a file where the lower has a folder\n'));
    return layer;
  }

  /** Every folder and its entries, walked by readdir (the reference the walk must equal). */
  async function byReaddir(layer: { readdir(p: string): Promise<{ name: string; type: string }[]> }, start: string) {
    const out: { path: string; entries: { name: string; type: string }[] }[] = [];
    const visit = async (p: string) => {
      const entries = await layer.readdir(p);
      out.push({ path: p, entries });
      for (const e of entries) if (e.type === 'directory') await visit(p === '' ? e.name : `${p}/${e.name}`);
    };
    await visit(start);
    return out;
  }

  it('yields exactly the merged folders readdir shows, in depth-first listing order, and reads each file through the held folders', async () => {
    const layer = await changedOverlay();
    const walked: { path: string; entries: { name: string; type: string }[] }[] = [];
    const read: Record<string, string> = {};
    for await (const w of layer.walkTree('')) {
      walked.push({ path: w.path, entries: w.entries });
      expect(w.files).toBeDefined();
      for (const e of w.entries) {
        const p = w.path === '' ? e.name : `${w.path}/${e.name}`;
        expect({ p, stat: w.files!.stat(e.name) }).toEqual({ p, stat: await layer.stat(p) });
        if (e.type === 'file') read[p] = text(await w.files!.readFile(e.name));
      }
    }
    expect(walked).toEqual(await byReaddir(layer, ''));
    expect(walked.map((w) => w.path)).not.toContain('src/nested/deep');
    expect(walked.map((w) => w.path)).not.toContain('docs');
    expect(walked.map((w) => w.path)).toContain('fresh');
    expect(read['src/a.ts']).toBe('copied up\n');
    expect(read['src/nested/new.ts']).toBe('new in a lower folder\n');
    expect(read.docs).toBe('a file where the lower has a folder\n');
    expect(read['src/b.ts']).toBe('export const b = 2;\n');
  });

  it('asks descend once per merged sub-folder, after its parent, and skips what it refuses on both sides', async () => {
    const layer = await changedOverlay();
    await layer.writeFile('src/nested/up.txt', enc('x'));
    const asked: string[] = [];
    const walked: string[] = [];
    for await (const w of layer.walkTree('', {
      descend: (p) => {
        asked.push(p);
        expect(walked).toContain(p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
        return p !== 'src/nested';
      },
    }))
      walked.push(w.path);
    const merged = ['empty', 'fresh', 'nest', 'nest/again', 'nest/again/docs', 'nest/again/empty', 'nest/again/src'];
    expect(asked.sort()).toEqual([...merged, 'nest/again/src/nested', 'nest/again/src/nested/deep', 'src', 'src/nested'].sort());
    expect(walked).not.toContain('src/nested');
  });

  it('never hands out a whited-out lower entry or the record folder, and its access dies when the walk moves on', async () => {
    const layer = await changedOverlay();
    let srcNested: { readFile(n: string): unknown; stat(n: string): unknown } | undefined;
    let root: { readFile(n: string): unknown; stat(n: string): unknown } | undefined;
    for await (const w of layer.walkTree('')) {
      if (w.path === '') {
        root = w.files;
        expect(() => w.files!.stat(OVERLAY_META)).toThrow(expect.objectContaining({ code: 'BAD_NAME' }));
        expect(() => w.files!.stat('..')).toThrow(expect.objectContaining({ code: 'BAD_NAME' }));
      }
      if (w.path === 'src/nested') {
        srcNested = w.files;
        expect(() => w.files!.stat('deep')).toThrow(expect.objectContaining({ code: 'NOT_FOUND', path: 'src/nested/deep' }));
        expect(() => w.files!.readFile('deep')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
      }
    }
    expect(() => root!.stat('README.md')).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    expect(() => srcNested!.stat('new.ts')).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });

  it('starts below the root on the merged view: an upper-only folder, a merged one, a file or a whited-out folder', async () => {
    const layer = await changedOverlay();
    const paths = async (p: string) => {
      const out: string[] = [];
      for await (const w of layer.walkTree(p)) out.push(w.path);
      return out;
    };
    expect(await paths('fresh')).toEqual(['fresh']);
    expect(await paths('src')).toEqual(['src', 'src/nested']);
    await expect(paths('docs')).rejects.toMatchObject({ code: 'NOT_DIRECTORY' });
    await expect(paths('src/nested/deep')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(paths(OVERLAY_META)).rejects.toMatchObject({ code: 'BAD_NAME' });
  });
});
