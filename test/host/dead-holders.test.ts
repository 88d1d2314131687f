/**
 * Dead holders and interrupted releases, with real processes: a child host that occupies a
 * workspace (as `gatefs serve` does) and is SIGKILLed no longer blocks anyone — the next write
 * or acquire, in any process, ends its occupancy and goes on; a pid now used by another process
 * (another start time) counts as dead; a release killed half-way is undone (killed while
 * checking) or finished (killed while removing) on the next start, never guessed.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { processStart } from '../../src/ports/node-process-liveness.js';
import { systemClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { runChild, type ChildRun } from './child-process.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n' };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function repo(): TempRepo {
  const r = makeTempRepo(files);
  cleanups.push(() => r.cleanup());
  return r;
}

async function open(dir: string): Promise<Host> {
  const host = await createHost({ repo: dir });
  cleanups.push(() => host.close());
  return host;
}

async function kill(run: ChildRun): Promise<void> {
  process.kill(-run.child.pid!, 'SIGKILL');
  expect((await run.done).signal).toBe('SIGKILL');
}

/** A `git` on PATH that runs the real one, but for `argv` it touches `marker` and sleeps. */
function gitThatHangsOn(r: TempRepo, words: [string, string], marker: string): NodeJS.ProcessEnv {
  const bin = join(r.dir, '..', 'bin');
  mkdirSync(bin, { recursive: true });
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  // The wrapper finds the command word after any `-c key=value` options.
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nskip=0; for a in "$@"; do if [ $skip = 1 ]; then skip=0; continue; fi; case "$a" in -c) skip=1; continue;; esac; first="$a"; break; done\n` +
      `if [ "$first" = "${words[0]}" ] && { [ "${words[1]}" = "" ] || echo "$*" | grep -q " ${words[1]}"; }; then touch "${marker}"; sleep 60; fi\nexec "${realGit}" "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
}

async function until(path: string): Promise<void> {
  for (let i = 0; i < 400 && !existsSync(path); i++) await sleep(50);
  expect(existsSync(path)).toBe(true);
}

describe('a holder whose process is gone', { timeout: 180_000 }, () => {
  it('a child that occupies the workspace and is SIGKILLed: a write through another host succeeds at once', async () => {
    const r = repo();
    const prep = await open(r.dir);
    await prep.prepare({ conversation: 'a' });
    const run = await runChild({ repo: r.dir, steps: [{ op: 'acquire', conversation: 'a', holder: 'mcp-child' }, { op: 'hang' }] });
    await run.reached('hang');
    expect(prep.status()).toMatchObject([{ conversation: 'a', holder: 'mcp-child' }]);
    expect(await prep.gate.call('a', 'write', { path: 'x.txt', content: 'blocked' })).toMatchObject({
      ok: false,
      error: { code: 'OCCUPIED' },
    });
    const pid = run.child.pid!;
    await kill(run);
    // A fresh host, as `gatefs call` would be: no new serve needed.
    const caller = await open(r.dir);
    expect(await caller.gate.call('a', 'write', { path: 'x.txt', content: 'after the crash' })).toMatchObject({ ok: true });
    expect(readFileSync(join(r.dir, '.gatefs/worktrees/a/x.txt'), 'utf8')).toBe('after the crash');
    expect(caller.events().filter((e) => e.type === 'occupancy.holder_gone')).toMatchObject([
      { conversation: 'a', data: { holder: 'mcp-child', pid, by: 'write' } },
    ]);
    expect(caller.status()).toMatchObject([{ conversation: 'a', holder: null }]);
    // the host that was open all along sees it too
    expect(await prep.gate.call('a', 'write', { path: 'y.txt', content: 'me too' })).toMatchObject({ ok: true });
  });

  it('acquire ends a dead holder too: a new server takes the workspace a killed one held', async () => {
    const r = repo();
    (await open(r.dir)).close();
    const run = await runChild({
      repo: r.dir,
      steps: [{ op: 'prepare', conversation: 'a' }, { op: 'acquire', conversation: 'a', holder: 'mcp-old' }, { op: 'hang' }],
    });
    await run.reached('hang');
    const next = await open(r.dir);
    expect(() => next.acquire('a', 'mcp-new')).toThrow(expect.objectContaining({ code: 'OCCUPIED' }));
    await kill(run);
    expect(next.acquire('a', 'mcp-new')).toMatchObject({ holder: 'mcp-new', mode: 'exclusive-write' });
    expect(next.events().filter((e) => e.type === 'occupancy.holder_gone')).toMatchObject([{ data: { holder: 'mcp-old', by: 'acquire' } }]);
  });

  it('a pid that now belongs to another process (another start time) is not the holder', async () => {
    const r = repo();
    const host = await open(r.dir);
    await host.prepare({ conversation: 'a' });
    const store = StateStore.open(join(r.dir, '.gatefs/gatefs.db'), { clock: systemClock });
    cleanups.push(() => store.close());
    const mine = processStart(process.pid);
    expect(mine).toMatch(/^.+:\d+$/);
    const [boot, ticks] = [mine!.slice(0, mine!.lastIndexOf(':')), Number(mine!.slice(mine!.lastIndexOf(':') + 1))];
    // Same pid as this process, started at another time: a recycled pid.
    store.occupancy.acquire({
      conversation: 'a',
      holder: 'recycled',
      mode: 'exclusive-write',
      process: { pid: process.pid, start: `${boot}:${ticks + 1}` },
    }).record;
    expect(await host.gate.call('a', 'write', { path: 'x.txt', content: 'x' })).toMatchObject({ ok: true });
    // The same pid with its real start time is alive and blocks.
    store.occupancy.acquire({ conversation: 'a', holder: 'alive', mode: 'exclusive-write', process: { pid: process.pid, start: mine } })
      .record;
    expect(await host.gate.call('a', 'write', { path: 'x.txt', content: 'y' })).toMatchObject({ ok: false, error: { code: 'OCCUPIED' } });
  });
});

describe('a release killed half-way', { timeout: 180_000 }, () => {
  it('killed while checking: the next start undoes it, the work is there and the workspace serves', async () => {
    const r = repo();
    const marker = join(r.dir, '..', 'status-reached');
    const host = await open(r.dir);
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'work.txt', content: 'precious' });
    await host.close();
    const run = await runChild({ repo: r.dir, steps: [{ op: 'release', conversation: 'a' }] }, gitThatHangsOn(r, ['status', ''], marker));
    await until(marker);
    await kill(run);
    const next = await open(r.dir);
    expect(next.events().filter((e) => e.type === 'release.undone')).toMatchObject([{ conversation: 'a', data: { step: 'checking' } }]);
    expect(next.status()).toMatchObject([{ conversation: 'a', state: 'ready', holder: null }]);
    expect(await next.gate.call('a', 'read', { path: 'work.txt' })).toMatchObject({ ok: true, value: { content: 'precious' } });
    expect(await next.gate.call('a', 'write', { path: 'more.txt', content: 'serving' })).toMatchObject({ ok: true });
  });

  it('killed while checking, seen by a host that stayed open: writes are refused until it is undone, then go on', async () => {
    const r = repo();
    const marker = join(r.dir, '..', 'status-reached');
    const host = await open(r.dir);
    await host.prepare({ conversation: 'a' });
    const run = await runChild({ repo: r.dir, steps: [{ op: 'release', conversation: 'a' }] }, gitThatHangsOn(r, ['status', ''], marker));
    await until(marker);
    expect(await host.gate.call('a', 'write', { path: 'x.txt', content: 'x' })).toMatchObject({ ok: false, error: { code: 'OCCUPIED' } });
    await kill(run);
    let result = await host.gate.call('a', 'write', { path: 'x.txt', content: 'x' });
    for (let i = 0; i < 100 && !result.ok; i++) {
      await sleep(20);
      result = await host.gate.call('a', 'write', { path: 'x.txt', content: 'x' });
    }
    expect(result).toMatchObject({ ok: true });
    expect(host.events().map((e) => e.type)).toContain('release.undone');
  });

  it('killed while removing: the next start finishes it; the branch is kept', async () => {
    const r = repo();
    const marker = join(r.dir, '..', 'remove-reached');
    const host = await open(r.dir);
    await host.prepare({ conversation: 'a' });
    await host.close();
    const run = await runChild(
      { repo: r.dir, steps: [{ op: 'release', conversation: 'a' }] },
      gitThatHangsOn(r, ['worktree', 'remove'], marker),
    );
    await until(marker);
    await kill(run);
    expect(existsSync(join(r.dir, '.gatefs/worktrees/a/README.md'))).toBe(true);
    const next = await open(r.dir);
    expect(next.events().filter((e) => e.type === 'release.finished')).toMatchObject([{ conversation: 'a' }]);
    expect(existsSync(join(r.dir, '.gatefs/worktrees/a'))).toBe(false);
    expect(next.status()).toMatchObject([{ conversation: 'a', state: 'released', holder: null }]);
    expect(r.git('branch', '--list', 'gatefs/a')).toContain('gatefs/a');
    expect(r.git('worktree', 'list', '--porcelain')).not.toContain('worktrees/a');
    expect(await next.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
  });

  it('killed while removing, and another program wrote a file meanwhile: undone, the file kept', async () => {
    const r = repo();
    const marker = join(r.dir, '..', 'remove-reached');
    const host = await open(r.dir);
    await host.prepare({ conversation: 'a' });
    await host.close();
    const run = await runChild(
      { repo: r.dir, steps: [{ op: 'release', conversation: 'a' }] },
      gitThatHangsOn(r, ['worktree', 'remove'], marker),
    );
    await until(marker);
    await kill(run);
    writeFileSync(join(r.dir, '.gatefs/worktrees/a/editor-wrote.txt'), 'not gatefs, but work');
    const next = await open(r.dir);
    expect(next.events().filter((e) => e.type === 'release.undone')).toMatchObject([
      { conversation: 'a', data: { step: 'removing', problem: expect.stringContaining('editor-wrote.txt') } },
    ]);
    expect(readFileSync(join(r.dir, '.gatefs/worktrees/a/editor-wrote.txt'), 'utf8')).toBe('not gatefs, but work');
    expect(next.status()).toMatchObject([{ conversation: 'a', state: 'ready', holder: null }]);
    expect(await next.gate.call('a', 'read', { path: 'editor-wrote.txt' })).toMatchObject({ ok: true });
  });
});
