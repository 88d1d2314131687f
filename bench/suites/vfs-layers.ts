/**
 * Per-layer costs against raw node:fs on the same files: a 4 KiB file three folders deep
 * (read, stat, write), a folder of 1,000 entries (readdir), and a recursive walk of the
 * project's own node_modules (a real tree no one here wrote).
 *
 * Targets (issue 2): host read and stat ≤ 0.3× raw fs.promises and ≤ 3× raw sync calls; host
 * write ≤ 1.2× a raw write + fsync + rename; host readdir and walk ≤ 1.5× raw
 * readdir(withFileTypes); memory layer read and stat ≤ 1.0× raw sync calls.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, measurePair, type Report } from '../harness.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { walkLayer } from '../../vfs/layer.js';

const SUITE = 'vfs-layers';
const REL = 'a/b/c/file.bin';

export async function run(report: Report): Promise<void> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-bench-layers-'));
  try {
    await runIn(base, report);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

async function runIn(base: string, report: Report): Promise<void> {
  const data = Buffer.alloc(4096, 7);
  const abs = path.join(base, REL);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
  const many = path.join(base, 'many');
  fs.mkdirSync(many);
  for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(many, `entry-${String(i).padStart(4, '0')}.txt`), '');
  const host = openHostLayer(base);
  report.note(SUITE, `host layer guarantee: ${host.guarantee}`);
  const memory = new MemoryLayer({ files: { [REL]: data } });
  const cmp = (name: string, r: { subjectUs: number; baselineUs: number }, baseline: string, target: number, note?: string) =>
    report.compare({ suite: SUITE, name, ...r, baseline, target, note });
  try {
    const iterations = 2000;
    cmp(
      'host read 4 KiB',
      await measurePair(
        () => host.readFile(REL),
        () => fs.promises.readFile(abs),
        { iterations },
      ),
      'fs.promises.readFile',
      0.3,
    );
    cmp(
      'host read 4 KiB',
      await measurePair(
        () => host.readFile(REL),
        () => fs.readFileSync(abs),
        { iterations },
      ),
      'fs.readFileSync',
      3,
    );
    cmp(
      'host stat',
      await measurePair(
        () => host.stat(REL),
        () => fs.promises.lstat(abs),
        { iterations },
      ),
      'fs.promises.lstat',
      0.3,
    );
    cmp(
      'host stat',
      await measurePair(
        () => host.stat(REL),
        () => fs.lstatSync(abs),
        { iterations },
      ),
      'fs.lstatSync',
      3,
    );
    cmp(
      'memory read 4 KiB',
      await measurePair(
        () => memory.readFile(REL),
        () => fs.readFileSync(abs),
        { iterations },
      ),
      'fs.readFileSync',
      1.0,
    );
    cmp(
      'memory stat',
      await measurePair(
        () => memory.stat(REL),
        () => fs.lstatSync(abs),
        { iterations },
      ),
      'fs.lstatSync',
      1.0,
    );
    const rawTemp = `${abs}.raw-tmp`;
    const rawWrite = () => {
      const fd = fs.openSync(rawTemp, 'w', 0o644);
      fs.writeSync(fd, data);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(rawTemp, abs);
    };
    cmp(
      'host write 4 KiB',
      await measurePair(() => host.writeFile(REL, data), rawWrite, { iterations: 300, warmup: 20 }),
      'write+fsync+rename',
      1.2,
      'both fsync the file, neither the folder',
    );
    const hostList = await measurePair(
      () => host.readdir('many'),
      () => fs.readdirSync(many, { withFileTypes: true }),
      { iterations: 300 },
    );
    cmp('host readdir 1,000 entries', hostList, 'fs.readdirSync(withFileTypes)', 1.5, 'gatefs also sorts and maps the entries');
    await benchWalk(report);
  } finally {
    host.close();
  }
}

async function benchWalk(report: Report): Promise<void> {
  const project = findProjectRoot(process.cwd()) ?? findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));
  const modules = path.join(project ?? '.', 'node_modules');
  if (!project || !fs.existsSync(modules)) {
    report.skip({ suite: SUITE, name: 'host walk node_modules', reason: 'no node_modules next to the project' });
    return;
  }
  const tree = openHostLayer(modules);
  try {
    let hostEntries = 0;
    let rawEntries = 0;
    const viaLayer = async () => {
      hostEntries = 0;
      for await (const dir of walkLayer(tree, '')) hostEntries += dir.entries.length;
    };
    const raw = () => {
      rawEntries = 0;
      const pending = [modules];
      while (pending.length > 0) {
        const dir = pending.pop()!;
        for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
          rawEntries++;
          if (d.isDirectory()) pending.push(path.join(dir, d.name));
        }
      }
    };
    // The first pass of each is the coldest this machine allows without dropping caches.
    const coldRaw = await measure(raw, { iterations: 1, warmup: 0 });
    const coldHost = await measure(viaLayer, { iterations: 1, warmup: 0 });
    report.note(SUITE, `first walks of node_modules: raw ${(coldRaw / 1000).toFixed(1)} ms, host ${(coldHost / 1000).toFixed(1)} ms`);
    const r = await measurePair(viaLayer, raw, { iterations: 10, warmup: 1, rounds: 5 });
    if (hostEntries !== rawEntries) throw new Error(`walks disagree: host ${hostEntries} entries, raw ${rawEntries}`);
    report.compare({
      suite: SUITE,
      name: 'host walk node_modules',
      ...r,
      baseline: 'readdirSync(withFileTypes) walk',
      target: 1.5,
      note: `${rawEntries} entries; gatefs also sorts and opens each folder through its parent's handle`,
    });
  } finally {
    tree.close();
  }
}

/** The nearest folder at or above `from` holding package.json and node_modules. */
function findProjectRoot(from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}
