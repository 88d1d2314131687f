/**
 * Gate overhead: read, write, edit and list-one-folder through `ToolGate.call` (validation,
 * registry lookup, path resolution, write checks, per-file lock, audit record into an in-memory
 * run log, and the tool's own work: sha256, line window, UTF-8 coding) against the same file
 * operation on the bare host layer over the same temp folder. Target ≤ 1.3×.
 *
 * Baselines ("the same operation"): read = `layer.readFile`; write = `layer.writeFile` (both
 * fsync); edit = `readFile` + string replace + `writeFile`; list = `readdir` + `stat` of each
 * entry (list returns sizes).
 *
 * The gate is set up as the disk host sets it up: the process-wide file locks plus lock files
 * for compare-and-swap calls (src/ports/lock-file-dir.ts), so the edit row pays for them. What
 * they cost against the old way, measured in the same run, is bench/suites/gate-locks.ts.
 *
 * The write policy (the manifest's `writes: { fsync }`, src/manifest/types.ts `WritePolicy`):
 * two more rows put a gated 4 KiB write under each policy against a plain `fs.promises.writeFile`
 * of the same bytes into the same folder (what the MCP reference server does: no fsync, written
 * in place), the cost an agent's write pays over the simplest possible one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHostLayer } from '../../vfs/host-layer.js';
import { childPath } from '../../vfs/layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { readTool } from '../../tools/read.js';
import { LockFileDir } from '../../src/ports/lock-file-dir.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'gate';

export async function run(report: Report): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-bench-gate-'));
  const layer = (() => {
    mkdirSync(join(dir, 'src', 'folder'), { recursive: true });
    const line = `${'x'.repeat(63)}\n`;
    writeFileSync(join(dir, 'src', 'read.txt'), line.repeat(64));
    writeFileSync(join(dir, 'src', 'edit.txt'), `${line.repeat(30)}marker-A\n${line.repeat(30)}`);
    for (let i = 0; i < 50; i++)
      writeFileSync(join(dir, 'src', 'folder', `f${String(i).padStart(2, '0')}.ts`), `export const v${i} = ${i};\n`);
    return openHostLayer(dir);
  })();
  const locks = new LockFileDir(join(dir, '.state', 'locks'));
  try {
    const registry = new Registry();
    const events: unknown[] = [];
    const runLog = {
      append: (e: unknown) => {
        events.push(e);
        if (events.length > 10_000) events.length = 0;
      },
    };
    const gate = new ToolGate({ registry, clock: systemClock, runLog, crossProcessLocks: locks });
    const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: true }] });
    registry.set({
      conversation: 'bench',
      state: 'ready',
      role: 'agent',
      tools: new Set(['read', 'write', 'edit', 'list']),
      namespace: ns,
    });
    const mustOk = async (p: Promise<{ ok: boolean }>) => {
      const r = await p;
      if (!r.ok) throw new Error(`gate call failed: ${JSON.stringify(r)}`);
    };

    const read = await measurePair(
      () => mustOk(gate.call('bench', 'read', { path: 'src/read.txt' })),
      () => layer.readFile('src/read.txt'),
      { iterations: 2000, warmup: 200 },
    );
    report.compare({
      suite: SUITE,
      name: 'read 4 KiB',
      ...read,
      baseline: 'host layer readFile',
      target: 1.3,
      note: 'includes the tool work: sha256, UTF-8 decode, line index',
    });
    // The same call split in two: what the gate adds on top of the read tool itself.
    const resolved = [ns.resolve('src/read.txt')];
    const direct = await measurePair(
      () => mustOk(gate.call('bench', 'read', { path: 'src/read.txt' })),
      () => mustOk(readTool.handler({ path: 'src/read.txt' }, { conversation: 'bench', namespace: ns, resolved })),
      { iterations: 2000, warmup: 200 },
    );
    report.compare({
      suite: SUITE,
      name: 'read 4 KiB, gate steps only',
      ...direct,
      baseline: 'read tool handler called directly',
      target: 1.3,
    });

    const content = 'y'.repeat(4096);
    const bytes = Buffer.from(content);
    const write = await measurePair(
      () => mustOk(gate.call('bench', 'write', { path: 'src/w1.txt', content })),
      () => layer.writeFile('src/w2.txt', bytes),
      { iterations: 300, warmup: 30 },
    );
    report.compare({ suite: SUITE, name: 'write 4 KiB', ...write, baseline: 'host layer writeFile', target: 1.3, note: 'both fsync' });

    // The two write policies against a plain writeFile (see the file comment).
    const unsynced = openHostLayer(dir, { fsync: false });
    registry.set({
      conversation: 'nosync',
      state: 'ready',
      role: 'agent',
      tools: new Set(['write']),
      namespace: new Namespace({ root: '/worktrees/nosync', mounts: [{ path: '/worktrees/nosync', layer: unsynced, writable: true }] }),
    });
    const raw = join(dir, 'src', 'raw.txt');
    const rawWrite = () => writeFile(raw, bytes);
    const rawDurable = async () => {
      const handle = await open(raw, 'w');
      try {
        await handle.writeFile(bytes);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    };
    try {
      const write = (conversation: string) => () => mustOk(gate.call(conversation, 'write', { path: 'src/policy.txt', content }));
      const options = { iterations: 300, warmup: 30 };
      const plain = await measurePair(write('nosync'), rawWrite, options);
      report.compare({
        suite: SUITE,
        name: 'write 4 KiB, writes: { fsync: false } (the default)',
        ...plain,
        baseline: 'fs.promises.writeFile (no fsync, in place)',
        target: 1.5,
        note: 'temp file + rename, no fsync',
      });
      const synced = await measurePair(write('bench'), rawDurable, options);
      report.compare({
        suite: SUITE,
        name: 'write 4 KiB, writes: { fsync: true }',
        ...synced,
        baseline: 'fs.promises writeFile + datasync (in place)',
        target: 1.5,
        note: 'temp file, fdatasync, rename, fsync of the folder',
      });
      const against = await measurePair(write('bench'), rawWrite, options);
      report.note(
        SUITE,
        `write 4 KiB with writes: { fsync: true } against a plain fs.promises.writeFile (no fsync): ${(against.subjectUs / 1000).toFixed(2)} ms vs ${(against.baselineUs / 1000).toFixed(2)} ms = ${(against.subjectUs / against.baselineUs).toFixed(2)}x (the price of the flush)`,
      );
    } finally {
      unsynced.close();
    }

    let gateFlip = false;
    let bareFlip = false;
    writeFileSync(join(dir, 'src', 'edit2.txt'), `${'x'.repeat(63)}\n`.repeat(30) + `marker-A\n${'x'.repeat(63)}\n`.repeat(30));
    const edit = await measurePair(
      () => {
        gateFlip = !gateFlip;
        return mustOk(
          gate.call('bench', 'edit', {
            path: 'src/edit.txt',
            oldString: gateFlip ? 'marker-A' : 'marker-B',
            newString: gateFlip ? 'marker-B' : 'marker-A',
          }),
        );
      },
      async () => {
        bareFlip = !bareFlip;
        const text = Buffer.from(await layer.readFile('src/edit2.txt')).toString('utf8');
        await layer.writeFile(
          'src/edit2.txt',
          Buffer.from(text.replace(bareFlip ? 'marker-A' : 'marker-B', bareFlip ? 'marker-B' : 'marker-A')),
        );
      },
      { iterations: 300, warmup: 30 },
    );
    report.compare({
      suite: SUITE,
      name: 'edit 4 KiB file',
      ...edit,
      baseline: 'host layer readFile+replace+writeFile',
      target: 1.3,
      note: 'with the lock file and the compare before the rename',
    });

    const list = await measurePair(
      () => mustOk(gate.call('bench', 'list', { path: 'src/folder' })),
      async () => {
        const entries = await layer.readdir('src/folder');
        await Promise.all(entries.map((e) => layer.stat(childPath('src/folder', e.name))));
      },
      { iterations: 1000, warmup: 100 },
    );
    report.compare({ suite: SUITE, name: 'list one folder (50 files)', ...list, baseline: 'host layer readdir+stat each', target: 1.3 });
  } finally {
    locks.close();
    layer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
