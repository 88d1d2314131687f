/**
 * What "no lost updates" costs: `edit` and `write` with `expectedSha256` through the gate as the
 * disk host runs them now (the file's lock key, the process-wide lock, the lock file, the
 * compare before the rename) against the same calls as they ran before (the tools' own
 * handlers with the compare dropped: read, decide, plain write, in-process lock only),
 * interleaved in the same run. Target ≤ 1.2×. (The lock key itself is paid on both sides: the
 * gate computes it for every write; its cost is in a note.)
 *
 * The rows use a folder on the test machine's disk (both sides fsync, as in production). The
 * same pairs on tmpfs (/dev/shm, where fsync costs nothing) go to a note: that is the pure
 * overhead, an upper bound of the ratio on any disk. The uncontended cost of one lock file and
 * of one host lock key are notes too.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { Namespace, type NamespaceWriteOptions } from '../../vfs/namespace.js';
import type { Resolved } from '../../vfs/mount-table.js';
import { Registry } from '../../src/gate/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { LockFileDir } from '../../src/ports/lock-file-dir.js';
import { editTool } from '../../tools/edit.js';
import { writeTool } from '../../tools/write.js';
import { FILE_TOOLS } from '../../tools/file-tools.js';
import { sha256Hex } from '../../tools/text/text-content.js';
import { defineTool, type ToolDefinition } from '../../tools/tool.js';
import { measure, measurePair, type Report } from '../harness.js';

const SUITE = 'gate-locks';
const LINE = `${'x'.repeat(63)}\n`;
const EDIT_FILE = `${LINE.repeat(30)}marker-A\n${LINE.repeat(30)}`;
const CONTENT = 'y'.repeat(4096);

export async function run(report: Report): Promise<void> {
  const disk = await pairs(tmpdir());
  report.compare({
    suite: SUITE,
    name: 'edit 4 KiB file',
    ...disk.edit,
    baseline: 'the same edit before (plain write, in-process lock only)',
    target: 1.2,
    note: 'both fsync',
  });
  report.compare({
    suite: SUITE,
    name: 'write 4 KiB with expectedSha256',
    ...disk.cas,
    baseline: 'the same write before (plain write, in-process lock only)',
    target: 1.2,
    note: 'both fsync',
  });
  report.note(
    SUITE,
    `one lock file taken and given back (uncontended): ${disk.lockUs.toFixed(1)} µs median; a host lock key two folders deep: ${disk.keyUs.toFixed(1)} µs`,
  );
  if (existsSync('/dev/shm')) {
    const shm = await pairs('/dev/shm');
    const ratio = (p: { subjectUs: number; baselineUs: number }) =>
      `${p.subjectUs.toFixed(1)} µs vs ${p.baselineUs.toFixed(1)} µs = ${(p.subjectUs / p.baselineUs).toFixed(2)}×`;
    report.note(SUITE, `on tmpfs (no fsync cost, the pure overhead): edit ${ratio(shm.edit)}; write with expectedSha256 ${ratio(shm.cas)}`);
  }
}

/** Both pairs and the lock costs in a fresh folder under `parent`. */
async function pairs(parent: string) {
  const dir = mkdtempSync(join(parent, 'gatefs-bench-locks-'));
  mkdirSync(join(dir, 'src', 'folder'), { recursive: true });
  for (const name of ['edit-new.txt', 'edit-old.txt']) writeFileSync(join(dir, 'src', name), EDIT_FILE);
  for (const name of ['cas-new.txt', 'cas-old.txt']) writeFileSync(join(dir, 'src', name), CONTENT);
  const layer = openHostLayer(dir);
  const locks = new LockFileDir(join(dir, '.state', 'locks'));
  try {
    const call = gateOver(layer, locks);
    const flips = { new: false, old: false };
    const flip = (tool: string, file: string, which: 'new' | 'old') => {
      flips[which] = !flips[which];
      const [from, to] = flips[which] ? ['marker-A', 'marker-B'] : ['marker-B', 'marker-A'];
      return call(tool, { path: file, oldString: from, newString: to });
    };
    const edit = await measurePair(
      () => flip('edit', 'src/edit-new.txt', 'new'),
      () => flip('old_edit', 'src/edit-old.txt', 'old'),
      { iterations: 600, warmup: 30, rounds: 30 },
    );
    const digest = sha256Hex(Buffer.from(CONTENT));
    const cas = await measurePair(
      () => call('write', { path: 'src/cas-new.txt', content: CONTENT, expectedSha256: digest }),
      () => call('old_write', { path: 'src/cas-old.txt', content: CONTENT, expectedSha256: digest }),
      { iterations: 600, warmup: 30, rounds: 30 },
    );
    const lockId = layer.lockKey('src/cas-new.txt').id;
    const lockUs = await measure(async () => (await locks.acquire(lockId))!.release(), { iterations: 2000, warmup: 200 });
    const keyUs = await measure(() => layer.lockKey('src/folder/f.ts'), { iterations: 2000, warmup: 200 });
    return { edit, cas, lockUs, keyUs };
  } finally {
    locks.close();
    layer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A gate with the file tools plus the two "before" tools, over `layer` as conversation `bench`. */
function gateOver(layer: HostLayer, locks: LockFileDir) {
  const registry = new Registry();
  const gate = new ToolGate({
    registry,
    clock: systemClock,
    runLog: { append: () => undefined },
    tools: [...FILE_TOOLS, oldEdit, oldWrite],
    crossProcessLocks: locks,
  });
  const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: true }] });
  registry.set({
    conversation: 'bench',
    state: 'ready',
    role: 'agent',
    tools: new Set(['edit', 'write', 'old_edit', 'old_write']),
    namespace: ns,
  });
  return async (tool: string, args: object) => {
    const r = await gate.call('bench', tool, args);
    if (!r.ok) throw new Error(`gate call failed: ${JSON.stringify(r)}`);
  };
}

/**
 * A namespace that drops `ifMatch` from writes: a tool run over it does exactly what it did
 * before the compare-and-swap (read, decide, plain write).
 */
function withoutCompare(ns: Namespace): Namespace {
  return Object.create(ns, {
    writeFile: {
      value: (target: Resolved, data: Uint8Array, options: NamespaceWriteOptions = {}) =>
        ns.writeFile(target, data, { ...options, ifMatch: undefined }),
    },
  }) as Namespace;
}

/** A tool that runs `tool`'s own handler without the compare and without the lock file (no `compareAndSwap`). */
function asBefore(tool: ToolDefinition, name: string): ToolDefinition {
  return defineTool({
    name,
    description: `${tool.name} as it ran before the lock files (bench baseline)`,
    input: tool.inputSchema,
    output: tool.outputSchema,
    annotations: tool.annotations,
    writes: true,
    paths: (input) => tool.paths(input),
    handler: (input, ctx) => tool.handler(input, { ...ctx, namespace: withoutCompare(ctx.namespace) }),
  });
}

const oldEdit = asBefore(editTool, 'old_edit');
const oldWrite = asBefore(writeTool, 'old_write');
