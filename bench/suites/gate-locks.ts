/**
 * What "no lost updates" costs: `edit` and `write` with `expectedSha256` through the gate as the
 * disk host runs them now (the file's lock key, the process-wide lock, the lock file, the
 * compare before the rename) against the same calls as they ran before (read, decide, plain
 * write, in-process lock only), interleaved in the same run. Target ≤ 1.2×.
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
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../vfs/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { LockFileDir } from '../../src/ports/lock-file-dir.js';
import { editTool } from '../../tools/edit.js';
import { writeTool } from '../../tools/write.js';
import { checkExpectedSha, readExpected } from '../../tools/expected-sha.js';
import { FILE_TOOLS } from '../../tools/file-tools.js';
import { ok } from '../../tools/result.js';
import { encodeText, sha256Hex } from '../../tools/text-content.js';
import { defineTool, type ToolDefinition } from '../../tools/tool.js';
import { measure, measurePair, type Report } from '../harness.js';

const SUITE = 'gate-locks';
const LINE = `${'x'.repeat(63)}\n`;
const EDIT_FILE = `${LINE.repeat(30)}marker-A\n${LINE.repeat(30)}`;
const CONTENT = 'y'.repeat(4096);

export async function run(report: Report): Promise<void> {
  const disk = await pairs(tmpdir());
  report.compare({ suite: SUITE, name: 'edit 4 KiB file', ...disk.edit, baseline: 'the same edit before (plain write, in-process lock only)', target: 1.2, note: 'both fsync' });
  report.compare({ suite: SUITE, name: 'write 4 KiB with expectedSha256', ...disk.cas, baseline: 'the same write before (plain write, in-process lock only)', target: 1.2, note: 'both fsync' });
  report.note(SUITE, `one lock file taken and given back (uncontended): ${disk.lockUs.toFixed(1)} µs median; a host lock key two folders deep: ${disk.keyUs.toFixed(1)} µs`);
  if (existsSync('/dev/shm')) {
    const shm = await pairs('/dev/shm');
    const ratio = (p: { subjectUs: number; baselineUs: number }) => `${p.subjectUs.toFixed(1)} µs vs ${p.baselineUs.toFixed(1)} µs = ${(p.subjectUs / p.baselineUs).toFixed(2)}×`;
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
      { iterations: 300, warmup: 30 },
    );
    const digest = sha256Hex(Buffer.from(CONTENT));
    const cas = await measurePair(
      () => call('write', { path: 'src/cas-new.txt', content: CONTENT, expectedSha256: digest }),
      () => call('old_write', { path: 'src/cas-old.txt', content: CONTENT, expectedSha256: digest }),
      { iterations: 300, warmup: 30 },
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
  const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => undefined }, tools: [...FILE_TOOLS, oldEdit, oldWrite], crossProcessLocks: locks });
  const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: true }] });
  registry.set({ conversation: 'bench', state: 'ready', role: 'agent', tools: new Set(['edit', 'write', 'old_edit', 'old_write']), namespace: ns });
  return async (tool: string, args: object) => {
    const r = await gate.call('bench', tool, args);
    if (!r.ok) throw new Error(`gate call failed: ${JSON.stringify(r)}`);
  };
}

/** `edit` as it ran before: read, replace, plain write (no compare, no lock file). */
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
