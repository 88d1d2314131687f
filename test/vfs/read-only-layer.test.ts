import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { isVfsError } from '../../vfs/errors.js';
import { walkLayer, type Layer, type WalkEntries, type WritableLayer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const dirs: string[] = [];
const layers: HostLayer[] = [];
afterEach(() => {
  for (const l of layers.splice(0)) l.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function walked(layer: Layer): Promise<WalkEntries[]> {
  const out: WalkEntries[] = [];
  for await (const w of walkLayer(layer, '')) out.push(w);
  return out;
}

describe('readOnly() walks', () => {
  it('hands on the host walk with reads and stats through the held folder, and nothing else', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-ro-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a/f.txt'), 'in a');
    fs.writeFileSync(path.join(dir, 'a/b/g.txt'), 'in b');
    fs.symlinkSync('/etc/hostname', path.join(dir, 'a/link'));
    const host = openHostLayer(dir);
    layers.push(host);
    const ro = readOnly(host);
    const strip = (ws: WalkEntries[]) => ws.map((w) => ({ path: w.path, entries: w.entries }));
    expect(strip(await walked(ro))).toEqual(strip(await walked(host)));

    for await (const w of ro.walkTree('a')) {
      if (w.path !== 'a') continue;
      // readFiles (reads in other threads) where the host layer offers it: under procfs.
      expect(Object.keys(w.files!).sort()).toEqual(host.guarantee === 'procfs' ? ['readFile', 'readFiles', 'stat'] : ['readFile', 'stat']);
      expect(text(await w.files!.readFile('f.txt'))).toBe('in a');
      expect(w.files!.stat('f.txt')).toMatchObject({ type: 'file', size: 4 });
      expect(w.files!.stat('link').type).toBe('symlink');
      const refused = await (async () => w.files!.readFile('link'))().catch((e: unknown) => e);
      expect(isVfsError(refused, 'SYMLINK_ESCAPE')).toBe(true);
    }
    const writable: WritableLayer = ro;
    await expect(writable.writeFile('a/f.txt', Buffer.from('x'))).rejects.toMatchObject({ code: 'READ_ONLY' });
    expect(fs.readFileSync(path.join(dir, 'a/f.txt'), 'utf8')).toBe('in a');
  });

  it('walks a layer without the fast path by its listings, as the layer itself would be', async () => {
    const memory = new MemoryLayer({ files: { 'a/f.txt': 'f', 'a/b/g.txt': 'g', 'top.txt': 't' } });
    const ro = await walked(readOnly(memory));
    expect(ro).toEqual(await walked(memory));
    expect(ro.map((w) => w.path)).toEqual(['', 'a', 'a/b']);
    expect(ro.every((w) => w.files === undefined)).toBe(true);
  });
});
