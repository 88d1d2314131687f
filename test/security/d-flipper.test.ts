/**
 * Attack class D, stress half: a worker thread swaps a folder of the workspace with a symlink
 * to the sentinel tree in a loop (bounded in swaps and time, and stopped by the main thread),
 * while the main thread reads, lists and writes through it thousands of times.
 *
 * A naive reader (fs.readFileSync by host path) runs interleaved as a control: it must see the
 * sentinel bytes at least once, which proves the race is really exercised; the confined layer
 * must return them zero times. Only the procfs guarantee is claimed to hold under this race
 * (the lstat fallback is documented as weaker).
 *
 * A second flipper repoints a link the namespace follows (vfs/link-resolution.ts) between a
 * folder inside the workspace and the sentinel tree, while reads, writes and renames go
 * through it: the link is followed only while it stays inside, and nothing outside is read or
 * changed.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { hasProcFd } from '../../vfs/host-walk.js';
import { Registry } from '../../src/gate/registry.js';
import { ManualClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { sandboxed } from './sandbox.js';

const FLIPPER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { dir, real, target, maxSwaps, maxMs } = workerData;
const stop = new Int32Array(workerData.stop);
const deadline = Date.now() + maxMs;
let swaps = 0;
parentPort.postMessage({ started: true });
while (Atomics.load(stop, 0) === 0 && swaps < maxSwaps && Date.now() < deadline) {
  fs.renameSync(dir, real);
  fs.symlinkSync(target, dir);
  fs.unlinkSync(dir);
  fs.renameSync(real, dir);
  swaps++;
}
parentPort.postMessage({ swaps });
`;

const LINK_FLIPPER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { link, inside, outside, maxSwaps, maxMs } = workerData;
const stop = new Int32Array(workerData.stop);
const deadline = Date.now() + maxMs;
let swaps = 0;
parentPort.postMessage({ started: true });
while (Atomics.load(stop, 0) === 0 && swaps < maxSwaps && Date.now() < deadline) {
  fs.unlinkSync(link);
  fs.symlinkSync(outside, link);
  fs.unlinkSync(link);
  fs.symlinkSync(inside, link);
  swaps++;
}
parentPort.postMessage({ swaps });
`;

interface Flipper {
  stop(): Promise<number>;
}

async function startFlipper(dir: string, target: string): Promise<Flipper> {
  return startWorker(FLIPPER, { dir, real: `${dir}.real`, target });
}

/** Repoints the link `link` between `inside` and `outside` (link texts) in a loop. */
function startLinkFlipper(link: string, inside: string, outside: string): Promise<Flipper> {
  return startWorker(LINK_FLIPPER, { link, inside, outside });
}

async function startWorker(source: string, data: Record<string, string>): Promise<Flipper> {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(source, {
    eval: true,
    workerData: { ...data, maxSwaps: 2_000_000, maxMs: 8_000, stop },
  });
  const done = new Promise<number>((resolve, reject) => {
    worker.on('message', (m: { swaps?: number }) => m.swaps !== undefined && resolve(m.swaps));
    worker.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    async stop() {
      Atomics.store(new Int32Array(stop), 0, 1);
      const swaps = await done;
      await worker.terminate();
      return swaps;
    },
  };
}

const READS = 3_000;
const ALLOWED = new Set(['SYMLINK_ESCAPE', 'NOT_FOUND']);

describe.skipIf(!hasProcFd())('D: a flipper thread swapping a folder for a link (procfs)', () => {
  it(
    `returns zero outside bytes over ${READS} reads, lists and writes while a naive reader leaks`,
    sandboxed(async (sb) => {
      const flip = path.join(sb.work, 'flip');
      fs.mkdirSync(flip);
      fs.writeFileSync(path.join(flip, 'a.ts'), 'inside flip\n');
      const flipper = await startFlipper(flip, sb.sentinel);
      const tally = { ok: 0, refused: 0, naiveLeaks: 0, listed: 0, written: 0 };
      try {
        for (let i = 0; i < READS; i++) {
          const read = await sb.attempt(() => sb.ns.readFile('flip/a.ts'));
          if (read.ok) {
            expect(Buffer.from(read.value).toString()).toBe('inside flip\n');
            tally.ok++;
          } else {
            expect([...ALLOWED]).toContain(read.code);
            tally.refused++;
          }
          try {
            if (fs.readFileSync(path.join(flip, 'a.ts'), 'utf8').includes(sb.marker)) tally.naiveLeaks++;
          } catch {
            /* the naive reader hit the gap between two swaps */
          }
          if (i % 6 === 0) {
            const list = await sb.attempt(() => sb.ns.readdir('flip'));
            if (list.ok) {
              expect(['a.ts', 'a.ts,w.txt']).toContain(list.value.map((e) => e.name).join(','));
              tally.listed++;
            } else expect([...ALLOWED]).toContain(list.code);
          }
          if (i % 10 === 0) {
            const write = await sb.attempt(() => sb.ns.writeFile('flip/w.txt', Buffer.from(`w${i}`)));
            if (write.ok) tally.written++;
            else expect([...ALLOWED]).toContain(write.code);
          }
        }
      } finally {
        const swaps = await flipper.stop();
        expect(swaps).toBeGreaterThan(0);
      }
      // The race was real: the naive reader leaked, and the layer both served and refused reads.
      expect(tally.naiveLeaks).toBeGreaterThan(0);
      expect(tally.ok + tally.refused).toBe(READS);
      expect(tally.ok).toBeGreaterThan(0);
      expect(tally.refused).toBeGreaterThan(0);
      expect(tally.written).toBeGreaterThan(0);
      expect(fs.readdirSync(sb.sentinel).sort()).toEqual(['a.ts', 'f.txt', 'secret.txt', 'sub']);
    }),
  );

  it(
    'grep (its file reads in worker threads) never returns outside bytes while a file and a folder flip to links',
    sandboxed(async (sb) => {
      const flip = path.join(sb.work, 'flip');
      fs.mkdirSync(flip);
      fs.writeFileSync(path.join(flip, 'a.ts'), 'inside flip\n');
      fs.writeFileSync(path.join(sb.work, 'leaf.ts'), 'inside leaf\n');
      const registry = new Registry();
      const gate = new ToolGate({ registry, clock: new ManualClock(0, 1), runLog: { append: () => {} } });
      registry.set({ conversation: 'a', state: 'ready', role: 'agent', tools: new Set(['grep']), namespace: sb.ns });
      const folder = await startFlipper(flip, sb.sentinel);
      const leaf = await startFlipper(path.join(sb.work, 'leaf.ts'), path.join(sb.sentinel, 'secret.txt'));
      const found = new Map<string, number>();
      let naiveLeaks = 0;
      try {
        for (let i = 0; i < 300; i++) {
          const r = await gate.call('a', 'grep', { pattern: `inside|${sb.marker}`, output: 'content' });
          expect(r.ok).toBe(true);
          const text = JSON.stringify(r);
          expect(text).not.toContain(sb.marker);
          for (const m of (r as { value: { matches: { path: string }[] } }).value.matches) found.set(m.path, (found.get(m.path) ?? 0) + 1);
          try {
            if (fs.readFileSync(path.join(sb.work, 'leaf.ts'), 'utf8').includes(sb.marker)) naiveLeaks++;
          } catch {
            /* between two swaps */
          }
        }
      } finally {
        expect(await folder.stop()).toBeGreaterThan(0);
        expect(await leaf.stop()).toBeGreaterThan(0);
      }
      expect(naiveLeaks).toBeGreaterThan(0);
      // Both flipping files were found at times, under their names or where the flipper parks the
      // real ones (*.real) while a link stands in for them (which of the two a grep meets depends
      // on the flipper's timing: on a loaded machine one name can go unseen for 300 greps), and
      // only inside files ever were.
      const seen = (...names: string[]) => names.reduce((n, name) => n + (found.get(name) ?? 0), 0);
      expect(seen('flip/a.ts', 'flip.real/a.ts')).toBeGreaterThan(0);
      expect(seen('leaf.ts', 'leaf.ts.real')).toBeGreaterThan(0);
      for (const p of found.keys()) expect(['d/f.txt', 'flip/a.ts', 'flip.real/a.ts', 'leaf.ts', 'leaf.ts.real']).toContain(p);
    }),
  );
});

describe.skipIf(!hasProcFd())('D: a flipper thread repointing a followed link between inside and outside (procfs)', () => {
  it(
    `returns zero outside bytes and changes nothing outside over ${READS} reads, writes and moves through the link`,
    sandboxed(async (sb) => {
      const inside = path.join(sb.work, 'real');
      fs.mkdirSync(inside);
      fs.writeFileSync(path.join(inside, 'a.ts'), 'inside real\n');
      fs.writeFileSync(path.join(inside, 'm0.txt'), 'moving\n');
      const link = path.join(sb.work, 'lnk');
      fs.symlinkSync('real', link);
      const flipper = await startLinkFlipper(link, 'real', sb.sentinel);
      const tally = { ok: 0, refused: 0, naiveLeaks: 0, written: 0, moved: 0 };
      let at = 0;
      try {
        for (let i = 0; i < READS; i++) {
          const read = await sb.attempt(async () => sb.ns.readFile(await sb.ns.resolveLinks('lnk/a.ts', 'read')));
          if (read.ok) {
            expect(Buffer.from(read.value).toString()).toBe('inside real\n');
            tally.ok++;
          } else {
            expect([...ALLOWED]).toContain(read.code);
            tally.refused++;
          }
          try {
            if (fs.readFileSync(path.join(link, 'a.ts'), 'utf8').includes(sb.marker)) tally.naiveLeaks++;
          } catch {
            /* the naive reader hit the gap between two swaps */
          }
          if (i % 10 === 0) {
            const write = await sb.attempt(async () =>
              sb.ns.writeFile(await sb.ns.resolveLinks('lnk/w.txt', 'write'), Buffer.from(`w${i}`)),
            );
            if (write.ok) tally.written++;
            else expect([...ALLOWED]).toContain(write.code);
          }
          if (i % 10 === 5) {
            const move = await sb.attempt(async () => {
              const from = await sb.ns.resolveLinks(`lnk/m${at}.txt`, 'move', { followFinal: false });
              const to = await sb.ns.resolveLinks(`lnk/m${at + 1}.txt`, 'move', { followFinal: false });
              await sb.ns.rename(from, to);
            });
            if (move.ok) {
              at++;
              tally.moved++;
            } else expect([...ALLOWED]).toContain(move.code);
          }
        }
      } finally {
        const swaps = await flipper.stop();
        expect(swaps).toBeGreaterThan(0);
      }
      expect(tally.naiveLeaks).toBeGreaterThan(0);
      expect(tally.ok + tally.refused).toBe(READS);
      expect(tally.ok).toBeGreaterThan(0);
      expect(tally.refused).toBeGreaterThan(0);
      expect(tally.written).toBeGreaterThan(0);
      expect(tally.moved).toBeGreaterThan(0);
      // Every move landed inside: the file is at its last name in the real folder.
      expect(fs.readFileSync(path.join(inside, `m${at}.txt`), 'utf8')).toBe('moving\n');
      expect(fs.readdirSync(sb.sentinel).sort()).toEqual(['a.ts', 'f.txt', 'secret.txt', 'sub']);
    }),
  );
});
