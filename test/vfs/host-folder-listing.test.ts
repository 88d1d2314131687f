/**
 * A large host folder is listed in slices (vfs/host-folder-listing.ts): what a user sees is the
 * same sorted listing as for a small one, through readdir and through a whole-tree walk, and the
 * event loop keeps turning while it is read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LARGE_FOLDER_BYTES, sortInSlices } from '../../vfs/host-folder-listing.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { walkLayer } from '../../vfs/layer.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A folder of `n` files named in an order readdir does not keep, plus a sub-folder and a link. */
function bigFolder(n: number): { base: string; names: string[] } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-big-folder-'));
  made.push(base);
  const dir = path.join(base, 'big');
  fs.mkdirSync(dir);
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `entry-${(i * 7919) % n}-${'x'.repeat(i % 40)}.txt`;
    fs.writeFileSync(path.join(dir, name), 'x');
    names.push(name);
  }
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.writeFileSync(path.join(dir, 'sub', 'inner.txt'), 'y');
  fs.symlinkSync('sub', path.join(dir, 'link'));
  names.push('sub', 'link');
  return { base, names: names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

describe('a folder large enough to be listed in slices', () => {
  it('lists every entry sorted by name, links as links, the same through readdir and a walk', async () => {
    const { base, names } = bigFolder(8000);
    expect(fs.statSync(path.join(base, 'big')).size).toBeGreaterThan(LARGE_FOLDER_BYTES);
    const layer = openHostLayer(base);
    try {
      const listed = await layer.readdir('big');
      expect(listed.map((e) => e.name)).toEqual(names);
      expect(listed.find((e) => e.name === 'link')?.type).toBe('symlink');
      expect(listed.find((e) => e.name === 'sub')?.type).toBe('directory');
      const walked: string[] = [];
      for await (const folder of walkLayer(layer, 'big')) if (folder.path === 'big') walked.push(...folder.entries.map((e) => e.name));
      expect(walked).toEqual(names);
    } finally {
      layer.close();
    }
  });

  it('lets timers run while the folder is read and sorted', async () => {
    const { base } = bigFolder(8000);
    const layer = openHostLayer(base);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const listing = layer.readdir('big');
      let settled = false;
      void listing.then(() => (settled = true));
      await new Promise((r) => setImmediate(r));
      // The listing is not done in one turn of the loop: the timer gets turns before it ends.
      expect(settled).toBe(false);
      await listing;
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
      layer.close();
    }
  });

  it('sorts in slices exactly as one sort would, stable for equal names', async () => {
    const entries = Array.from({ length: 30_000 }, (_, i) => ({ name: `n${(i * 104729) % 20_000}`, type: 'file' as const, i }));
    const expected = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.i - b.i));
    expect(await sortInSlices(entries)).toEqual(expected);
    expect(await sortInSlices([])).toEqual([]);
  });
});
