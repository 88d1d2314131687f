/**
 * Composed layers on real disk: read and stat of a 4 KiB file three folders deep through
 * `overlay(host over read-only host)` (the stack of the `copy` backend over a non-git folder: its
 * upper is a host folder, never cached, since the agent's shell may change it) and `sparse(host)`, against raw synchronous `node:fs` calls on the
 * same file (the "≤ 3× raw sync calls" target for the host layer, applied to the layers
 * built on it). Rows:
 * - overlay, lower file: the upper misses (a host lookup), then the lower host layer reads.
 * - overlay, copied-up file: served by the upper alone.
 * - sparse(host): one visibility lookup, then the host layer.
 * The bare host layer is measured too, as the floor the composed layers stand on.
 */
import { mkdirSync, mkdtempSync, readFileSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHostLayer } from '../../vfs/host-layer.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'vfs-overlay';
const FILE = 'a/b/c/file.bin';
const COPIED = 'a/b/c/copied.bin';
const OPTIONS = { iterations: 3000, warmup: 300 };

export async function run(report: Report): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-bench-overlay-'));
  const data = Buffer.alloc(4096, 7);
  mkdirSync(join(dir, 'a/b/c'), { recursive: true });
  writeFileSync(join(dir, FILE), data);
  writeFileSync(join(dir, COPIED), data);
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, `a/b/c/other-${i}.txt`), `${i}\n`);
  const host = openHostLayer(dir);
  const upperDir = mkdtempSync(join(tmpdir(), 'gatefs-bench-overlay-upper-'));
  const upper = openHostLayer(upperDir);
  try {
    const abs = join(dir, FILE);
    const rawRead = () => readFileSync(abs);
    const rawStat = () => lstatSync(abs);
    const over = overlay(upper, readOnly(host));
    await over.writeFile(COPIED, data);
    const projection = sparse(host, [FILE, COPIED, ...Array.from({ length: 20 }, (_, i) => `x/y/z/${i}.txt`)]);
    const mustBe4k = async (p: Promise<Uint8Array>) => {
      if ((await p).length !== 4096) throw new Error('wrong read size');
    };

    const rows: [string, () => Promise<unknown>, () => unknown, string][] = [
      ['host layer: read 4 KiB', () => mustBe4k(host.readFile(FILE)), rawRead, 'readFileSync'],
      ['host layer: stat', () => host.stat(FILE), rawStat, 'lstatSync'],
      ['overlay(host over host): read 4 KiB, lower file', () => mustBe4k(over.readFile(FILE)), rawRead, 'readFileSync'],
      ['overlay(host over host): stat, lower file', () => over.stat(FILE), rawStat, 'lstatSync'],
      ['overlay(host over host): read 4 KiB, copied-up file', () => mustBe4k(over.readFile(COPIED)), rawRead, 'readFileSync'],
      ['sparse(host): read 4 KiB', () => mustBe4k(projection.readFile(FILE)), rawRead, 'readFileSync'],
      ['sparse(host): stat', () => projection.stat(FILE), rawStat, 'lstatSync'],
    ];
    for (const [name, subject, baseline, baselineName] of rows) {
      const m = await measurePair(subject, baseline, OPTIONS);
      report.compare({ suite: SUITE, name, ...m, baseline: `raw ${baselineName}`, target: 3, note: 'three folders deep' });
    }
  } finally {
    host.close();
    upper.close();
    rmSync(upperDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
