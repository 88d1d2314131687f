/**
 * Test support for class L: pathological globs, `.gitignore` rules and regexes run through the
 * real gate over real host folders, in a process of their own (nothing else runs in it), one
 * call at a time. The test bundles this file (rolldown) and runs it with one JSON argument,
 * `{ base, only? }`: it builds the folders under `base` (see `build`), then prints one JSON line
 * per scenario: the outcome (`ok` or the error code and message), the wall and CPU time of the
 * call, the worst event-loop delay measured during it (`perf_hooks.monitorEventLoopDelay`,
 * 10 ms resolution, delay includes the resolution), and how many reads of another conversation
 * were answered while it ran (and the slowest).
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../vfs/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { L_SCENARIOS, type ScenarioOutcome } from './l-matching-scenarios.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { base: string; only?: string[] };
const DEEP = 1000;

function write(file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** A chain `a/a/…/a` of `depth` folders under `root`, each holding `f.txt` (and `extra` files). */
function chain(root: string, depth: number, extra: Record<string, string> = {}): void {
  let dir = root;
  for (let i = 0; i < depth; i++) {
    dir = path.join(dir, 'a');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'f.txt'), 'x\n');
    for (const [name, content] of Object.entries(extra)) fs.writeFileSync(path.join(dir, name), content);
  }
}

/** The host folders, one per workspace (see `L_SCENARIOS` for what runs where). */
function build(base: string): void {
  const ws = path.join(base, 'ws');
  write(path.join(ws, 'long', 'a'.repeat(60)), 'x\n');
  write(path.join(ws, 'long', 'a'.repeat(255)), 'x\n');
  for (let i = 0; i < 200; i++) write(path.join(ws, 'long', `${'a'.repeat(58)}${String.fromCharCode(97 + (i % 26))}${i}`), 'x\n');
  chain(path.join(ws, 'deep'), DEEP);
  for (let d = 0; d < 50; d++) for (let f = 0; f < 100; f++) write(path.join(ws, 'many', `d${d}`, `f${f}.txt`), 'x\n');

  const manyRules = Array.from({ length: 5000 }, (_, i) => [`*a*a*a*a*a*a*a*b${i}`, `a/**/a/**/a/**/b${i}`, `[a-z]*${i}[0-9]`, `name${i}`, `*.ext${i}`][i % 5]);
  write(path.join(base, 'ig-many', '.gitignore'), manyRules.join('\n'));
  for (let i = 0; i < 2000; i++) write(path.join(base, 'ig-many', `d${i % 40}`, `${'a'.repeat(40)}${i}.txt`), 'x\n');

  const line = (i: number) => `*a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*${i}`.padEnd(60, 'z');
  let big = '';
  for (let i = 0; big.length < 1024 * 1024 - 64; i++) big += `${line(i)}\n`;
  write(path.join(base, 'ig-big', '.gitignore'), big.slice(0, 1024 * 1024));
  for (let i = 0; i < 500; i++) write(path.join(base, 'ig-big', `d${i % 10}`, `${'abcdefghijklmnopqrstuvw'.repeat(3)}${i}.txt`), 'x\n');

  const nested = `${'a/**/'.repeat(8)}b\n*a*a*a*a*a*a*a*a*b\n!f.txt\n${'[a-z]'.repeat(40)}\n`;
  chain(path.join(base, 'ig-nested'), 300, { '.gitignore': nested });

  write(path.join(base, 'ig-deep', '.gitignore'), `${Array.from({ length: 20 }, (_, i) => `${'a/**/'.repeat(20 + i)}b`).join('\n')}\n`);
  chain(path.join(base, 'ig-deep'), DEEP);

  write(path.join(base, 'big', 'huge.txt'), Buffer.alloc(20 * 1024 * 1024, 'a'));
  write(path.join(base, 'big', 'lines.txt'), `${'a'.repeat(1999)}b\n`.repeat(10_000));

  write(path.join(base, 'other', 'x.txt'), 'other\n');
}

async function main(): Promise<void> {
  build(input.base);
  const registry = new Registry();
  const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
  const layers: HostLayer[] = [];
  for (const id of ['ws', 'ig-many', 'ig-big', 'ig-nested', 'ig-deep', 'big', 'other']) {
    const layer = openHostLayer(path.join(input.base, id));
    layers.push(layer);
    const root = `/worktrees/${id}`;
    registry.set({ conversation: id, state: 'ready', role: 'agent', tools: new Set(['grep', 'list', 'read']), namespace: new Namespace({ root, mounts: [{ path: root, layer, writable: false }] }) });
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
    delay.disable();
    running = false;
    await other;
    const outcome: ScenarioOutcome = {
      name: s.name,
      code: r.ok ? 'ok' : r.error.code,
      message: r.ok ? undefined : r.error.message,
      value: r.ok ? JSON.stringify(r.value).slice(0, 300) : undefined,
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
