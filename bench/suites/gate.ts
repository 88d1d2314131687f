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
 * for compare-and-swap calls (src/ports/lock-file-dir.ts). Two more rows weigh what the
 * no-lost-updates work costs, against the old way measured in the same run: edit and
 * write(expectedSha256) through the gate with lock files and the compare-and-swap publish,
 * against the same call as it ran before (read, decide, plain write, in-process lock only).
 * Target ≤ 1.2×.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHostLayer } from '../../vfs/host-layer.js';
import { childPath } from '../../vfs/layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../vfs/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { readTool } from '../../tools/read.js';
import { editTool } from '../../tools/edit.js';
import { writeTool } from '../../tools/write.js';
import { readExpected, checkExpectedSha } from '../../tools/expected-sha.js';
import { encodeText, sha256Hex } from '../../tools/text-content.js';
import { defineTool, type ToolDefinition } from '../../tools/tool.js';
import { ok } from '../../tools/result.js';
import { FILE_TOOLS } from '../../tools/file-tools.js';
import { LockFileDir } from '../../src/ports/lock-file-dir.js';
import { measure, measurePair, type Report } from '../harness.js';

const SUITE = 'gate';

export async function run(report: Report): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-bench-gate-'));
  const layer = (() => {
    mkdirSync(join(dir, 'src', 'folder'), { recursive: true });
    const line = `${'x'.repeat(63)}\n`;
    writeFileSync(join(dir, 'src', 'read.txt'), line.repeat(64));
    writeFileSync(join(dir, 'src', 'edit.txt'), `${line.repeat(30)}marker-A\n${line.repeat(30)}`);
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, 'src', 'folder', `f${String(i).padStart(2, '0')}.ts`), `export const v${i} = ${i};\n`);
    return openHostLayer(dir);
  })();
  const locks = new LockFileDir(join(dir, '.state', 'locks'));
  try {
    const registry = new Registry();
    const events: unknown[] = [];
    const gate = new ToolGate({
      registry,
      clock: systemClock,
      runLog: { append: (e) => { events.push(e); if (events.length > 10_000) events.length = 0; } },
      tools: [...FILE_TOOLS, oldEdit, oldWrite],
      crossProcessLocks: locks,
    });
    const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: true }] });
    registry.set({ conversation: 'bench', state: 'ready', role: 'agent', tools: new Set(['read', 'write', 'edit', 'list', 'old_edit', 'old_write']), namespace: ns });
    const mustOk = async (p: Promise<{ ok: boolean }>) => {
      const r = await p;
      if (!r.ok) throw new Error(`gate call failed: ${JSON.stringify(r)}`);
    };

    const read = await measurePair(
      () => mustOk(gate.call('bench', 'read', { path: 'src/read.txt' })),
      () => layer.readFile('src/read.txt'),
      { iterations: 2000, warmup: 200 },
    );
    report.compare({ suite: SUITE, name: 'read 4 KiB', ...read, baseline: 'host layer readFile', target: 1.3, note: 'includes the tool work: sha256, UTF-8 decode, line index' });
    // The same call split in two: what the gate adds on top of the read tool itself.
    const resolved = [ns.resolve('src/read.txt')];
    const registration = registry.lookup('bench')!;
    const direct = await measurePair(
      () => mustOk(gate.call('bench', 'read', { path: 'src/read.txt' })),
      () => mustOk(readTool.handler({ path: 'src/read.txt' }, { conversation: 'bench', registration, namespace: ns, resolved })),
      { iterations: 2000, warmup: 200 },
    );
    report.compare({ suite: SUITE, name: 'read 4 KiB, gate steps only', ...direct, baseline: 'read tool handler called directly', target: 1.3 });

    const content = 'y'.repeat(4096);
    const bytes = Buffer.from(content);
    const write = await measurePair(
      () => mustOk(gate.call('bench', 'write', { path: 'src/w1.txt', content })),
      () => layer.writeFile('src/w2.txt', bytes),
      { iterations: 300, warmup: 30 },
    );
    report.compare({ suite: SUITE, name: 'write 4 KiB', ...write, baseline: 'host layer writeFile', target: 1.3, note: 'both fsync' });

    let gateFlip = false;
    let bareFlip = false;
    writeFileSync(join(dir, 'src', 'edit2.txt'), `${'x'.repeat(63)}\n`.repeat(30) + `marker-A\n${'x'.repeat(63)}\n`.repeat(30));
    const edit = await measurePair(
      () => {
        gateFlip = !gateFlip;
        return mustOk(gate.call('bench', 'edit', { path: 'src/edit.txt', oldString: gateFlip ? 'marker-A' : 'marker-B', newString: gateFlip ? 'marker-B' : 'marker-A' }));
      },
      async () => {
        bareFlip = !bareFlip;
        const text = Buffer.from(await layer.readFile('src/edit2.txt')).toString('utf8');
        await layer.writeFile('src/edit2.txt', Buffer.from(text.replace(bareFlip ? 'marker-A' : 'marker-B', bareFlip ? 'marker-B' : 'marker-A')));
      },
      { iterations: 300, warmup: 30 },
    );
    report.compare({ suite: SUITE, name: 'edit 4 KiB file', ...edit, baseline: 'host layer readFile+replace+writeFile', target: 1.3, note: 'lock files and compare-and-swap included' });

    // The cost of no lost updates: the same edit as it ran before (plain write, in-process lock).
    writeFileSync(join(dir, 'src', 'edit3.txt'), `${'x'.repeat(63)}\n`.repeat(30) + `marker-A\n${'x'.repeat(63)}\n`.repeat(30));
    let oldFlip = false;
    const locked = await measurePair(
      () => {
        gateFlip = !gateFlip;
        return mustOk(gate.call('bench', 'edit', { path: 'src/edit.txt', oldString: gateFlip ? 'marker-A' : 'marker-B', newString: gateFlip ? 'marker-B' : 'marker-A' }));
      },
      () => {
        oldFlip = !oldFlip;
        return mustOk(gate.call('bench', 'old_edit', { path: 'src/edit3.txt', oldString: oldFlip ? 'marker-A' : 'marker-B', newString: oldFlip ? 'marker-B' : 'marker-A' }));
      },
      { iterations: 300, warmup: 30 },
    );
    report.compare({ suite: SUITE, name: 'edit 4 KiB file, no-lost-updates vs before', ...locked, baseline: 'the same edit with a plain write and the in-process lock only', target: 1.2, note: 'lock file + compare before the rename' });

    writeFileSync(join(dir, 'src', 'cas1.txt'), content);
    writeFileSync(join(dir, 'src', 'cas2.txt'), content);
    const digest = sha256Hex(bytes);
    const cas = await measurePair(
      () => mustOk(gate.call('bench', 'write', { path: 'src/cas1.txt', content, expectedSha256: digest })),
      () => mustOk(gate.call('bench', 'old_write', { path: 'src/cas2.txt', content, expectedSha256: digest })),
      { iterations: 300, warmup: 30 },
    );
    const lockId = layer.lockKey('src/cas1.txt').id;
    const lockUs = await measure(async () => (await locks.acquire(lockId))!.release(), { iterations: 2000, warmup: 200 });
    const keyUs = await measure(() => layer.lockKey('src/folder/f01.ts'), { iterations: 2000, warmup: 200 });
    report.note(SUITE, `one lock file taken and given back (uncontended): ${lockUs.toFixed(1)} µs median; a host lock key two folders deep: ${keyUs.toFixed(1)} µs`);
    report.compare({ suite: SUITE, name: 'write 4 KiB with expectedSha256, no-lost-updates vs before', ...cas, baseline: 'the same write with a plain write and the in-process lock only', target: 1.2, note: 'lock file + compare before the rename' });

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

/** `edit` as it ran before the lock files: read, replace, plain write (no compare, no lock file). */
const oldEdit: ToolDefinition = defineTool({
  name: 'old_edit',
  description: 'edit without compare-and-swap (bench baseline)',
  input: editTool.inputSchema,
  output: editTool.outputSchema,
  annotations: editTool.annotations,
  writes: true,
  paths: (input: { path: string }) => [input.path],
  async handler(input: { path: string; oldString: string; newString: string }, ctx) {
    const [target] = ctx.resolved;
    const text = Buffer.from(await ctx.namespace.readFile(target, { maxBytes: 10 * 1024 * 1024 })).toString('utf8');
    const parts = text.split(input.oldString);
    const data = encodeText(parts.join(input.newString));
    await ctx.namespace.writeFile(target, data);
    return ok({ path: input.path, replacements: parts.length - 1, sha256: sha256Hex(data) });
  },
});

/** `write` with expectedSha256 as it ran before: read, check, plain write. */
const oldWrite: ToolDefinition = defineTool({
  name: 'old_write',
  description: 'write(expectedSha256) without compare-and-swap (bench baseline)',
  input: writeTool.inputSchema,
  output: writeTool.outputSchema,
  annotations: writeTool.annotations,
  writes: true,
  paths: (input: { path: string }) => [input.path],
  async handler(input: { path: string; content: string; expectedSha256: string }, ctx) {
    const [target] = ctx.resolved;
    checkExpectedSha(await readExpected(ctx.namespace, target, input.path, 10 * 1024 * 1024), input.expectedSha256, input.path);
    const data = encodeText(input.content);
    await ctx.namespace.writeFile(target, data);
    return ok({ path: input.path, bytes: data.byteLength, sha256: sha256Hex(data), created: false });
  },
});
