/**
 * Test support for class L: pathological globs, `.gitignore` rules and regexes run through the
 * real gate over real host folders, in a process of their own (nothing else runs in it), one
 * call at a time. The test runs this file from its source (test/run-typescript.ts) with one JSON
 * argument, `{ base, shared?, only? }`: it builds the folders under `base` (`buildScenarioFolders`;
 * the folder of 300,000 files under `shared` once, reused by a retry), then prints
 * one JSON line per scenario: the outcome (`ok` or the error code and message), the wall and CPU time of the
 * call, the worst event-loop delay measured during it (`perf_hooks.monitorEventLoopDelay`,
 * 10 ms resolution, delay includes the resolution, read after one more turn of the timers so a
 * block at the end of the call counts), and how many reads of another conversation were
 * answered while it ran (and the slowest). The test runs it with a 1 GiB heap: no call may hold
 * more than a bounded share of memory either.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import {
  L_SCENARIOS,
  L_WORKSPACES,
  L_WRITABLE,
  buildScenarioFolders,
  scenarioFolder,
  scenarioTools,
  type ScenarioOutcome,
} from './l-matching-scenarios.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { base: string; shared?: string; only?: string[] };

async function main(): Promise<void> {
  const shared = input.shared ?? input.base;
  buildScenarioFolders(input.base, shared);
  const registry = new Registry();
  const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
  const layers: HostLayer[] = [];
  for (const id of [...L_WORKSPACES, 'other']) {
    const layer = openHostLayer(scenarioFolder(input.base, shared, id));
    layers.push(layer);
    const root = `/worktrees/${id}`;
    registry.set({
      conversation: id,
      state: 'ready',
      role: 'agent',
      tools: scenarioTools(id),
      namespace: new Namespace({ root, mounts: [{ path: root, layer, writable: L_WRITABLE.has(id) }] }),
    });
  }
  for (const s of L_SCENARIOS) {
    if (input.only && !input.only.includes(s.name)) continue;
    // Another conversation reads every 5 ms while the call runs: it must keep being answered.
    let served = 0;
    let slowest = 0;
    let running = true;
    const other = (async () => {
      while (running) {
        const t = performance.now();
        await gate.call('other', 'read', { path: 'x.txt' });
        slowest = Math.max(slowest, performance.now() - t);
        served++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await gate.call(s.workspace, s.tool, s.args);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    // The histogram records a delay when its next timer runs: a block that ends with the call
    // is only seen if the loop gets to the timers once more before it is read.
    await new Promise((r) => setTimeout(r, 25));
    delay.disable();
    running = false;
    await other;
    const outcome: ScenarioOutcome = {
      name: s.name,
      code: r.ok ? 'ok' : r.error.code,
      message: r.ok ? undefined : r.error.message,
      value: r.ok ? JSON.stringify(r.value).slice(0, 300) : undefined,
      syntax: r.ok && typeof r.value === 'object' && r.value !== null && 'syntax' in r.value ? JSON.stringify(r.value.syntax) : undefined,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      maxDelayMs: Math.round(delay.max / 1e6),
      served,
      slowestOtherMs: Math.round(slowest),
    };
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
  }
  for (const l of layers) l.close();
}

await main();
