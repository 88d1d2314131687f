/**
 * Fair sharing of the regex workers (issue 19, class L): one conversation's trivial regex grep
 * while another conversation runs 16 hostile greps at once (a regex that backtracks to its
 * budget on the file), as a ratio to the same grep with nothing else running. Target: 3×.
 *
 * The trivial grep searches 200 small files with a regex (every file holds the regex's literal,
 * so every file goes to the pool, in several batches); the hostile greps each search one file of
 * 3,000-character lines with `(a*)\1*b` (a backreference keeps V8 on its backtracking engine:
 * cubic, seconds a line, so each call ends at its budget with `INVALID_INPUT`). Through the real gate over host folders; nothing is asserted here.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openHostLayer } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { median, type Report } from '../harness.js';

const SUITE = 'fair-sharing';
const HOSTILE_CALLS = 16;
const ROUNDS = 3;

export async function run(report: Report): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'gatefs-bench-fair-'));
  const registry = new Registry();
  const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
  const layers = [];
  try {
    mkdirSync(join(base, 'hostile'));
    writeFileSync(join(base, 'hostile', 'lines.txt'), `${`${'a'.repeat(3000)}\n`.repeat(20)}b\n`);
    mkdirSync(join(base, 'quiet'));
    for (let i = 0; i < 200; i++)
      writeFileSync(join(base, 'quiet', `f${i}.txt`), `line one\nvalue x${i}y here\n${'filler text\n'.repeat(60)}`);
    for (const id of ['hostile', 'quiet']) {
      const layer = openHostLayer(join(base, id));
      layers.push(layer);
      const root = `/worktrees/${id}`;
      registry.set({
        conversation: id,
        state: 'ready',
        role: 'agent',
        tools: new Set(['grep']),
        namespace: new Namespace({ root, mounts: [{ path: root, layer, writable: false }] }),
      });
    }
    const trivial = async () => {
      const t = performance.now();
      const r = await gate.call('quiet', 'grep', { pattern: 'x\\d+y', output: 'count' });
      if (!r.ok || (r.value as { counts: unknown[] }).counts.length !== 200)
        throw new Error(`trivial grep: ${JSON.stringify(r).slice(0, 200)}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 5; i++) await trivial();
    const alone: number[] = [];
    for (let i = 0; i < 15; i++) alone.push(await trivial());

    // Each round: 16 hostile greps, then (once their batches are in the pool) one trivial grep.
    const contended: number[] = [];
    const answeredBefore: number[] = [];
    const codes = new Set<string>();
    let hostileMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let answered = 0;
      const t0 = performance.now();
      const hostile = Array.from({ length: HOSTILE_CALLS }, () =>
        gate.call('hostile', 'grep', { pattern: '(a*)\\1*b', path: 'lines.txt', output: 'count' }).then((r) => {
          answered++;
          codes.add(r.ok ? 'ok' : r.error.code);
        }),
      );
      await sleep(100);
      contended.push(await trivial());
      answeredBefore.push(answered);
      await Promise.all(hostile);
      hostileMs += performance.now() - t0;
    }
    report.compare({
      suite: SUITE,
      name: `another conversation's trivial grep (200 files) while one conversation runs ${HOSTILE_CALLS} hostile greps`,
      subjectUs: median(contended) * 1000,
      baselineUs: median(alone) * 1000,
      baseline: 'the same grep with nothing else running',
      target: 3,
      note: `median of ${ROUNDS} rounds`,
    });
    report.note(
      SUITE,
      `trivial grep alone ${median(alone).toFixed(1)} ms, beside ${HOSTILE_CALLS} hostile greps ${contended.map((t) => t.toFixed(0)).join(', ')} ms (hostile greps answered before it: ${answeredBefore.join(', ')}); the hostile greps answered ${[...codes].join(', ')}, ${(hostileMs / ROUNDS / 1000).toFixed(1)} s a round`,
    );
  } finally {
    for (const l of layers) l.close();
    rmSync(base, { recursive: true, force: true });
  }
}
