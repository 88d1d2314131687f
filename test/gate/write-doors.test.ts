/**
 * The write doors (src/ports/write-door.ts, src/ports/write-door-dir.ts): a release shuts a
 * workspace's door only once every writer inside has left — in this process or another — and no
 * gated write enters while it is shut. Two `WriteDoorDir`s over one folder in this process
 * exclude each other exactly as two processes do (SQLite's locks); real child processes show a
 * dead writer never blocks a release and a stopped one makes it give up at its bound.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import buildOnce from '../build-once.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { ManualClock } from '../../src/ports/clock.js';
import { WriteDoorDir } from '../../src/ports/write-door-dir.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import { ROOT } from '../cli/run-gatefs.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-doors-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function doors(dir: string, shutWaitMs = 5000): WriteDoorDir {
  const d = new WriteDoorDir(join(dir, 'locks'), { shutWaitMs });
  cleanups.push(() => d.close());
  return d;
}

describe('write doors', () => {
  it('a shut door refuses gated writes with OCCUPIED (nothing written) and lets reads through; opened, writes go on', async () => {
    const dir = temp();
    const layer = openHostLayer(temp());
    cleanups.push(() => layer.close());
    const registry = new Registry();
    const ns = new Namespace({ root: '/worktrees/a', mounts: [{ path: '/worktrees/a', layer, writable: true }] });
    registry.set({ conversation: 'a', state: 'ready', role: 'agent', tools: new Set(['read', 'write', 'edit']), namespace: ns });
    const gate = new ToolGate({ registry, runLog: { append: () => undefined }, clock: new ManualClock(0, 1), writeDoor: doors(dir) });
    expect(await gate.call('a', 'write', { path: 'f.txt', content: 'one' })).toMatchObject({ ok: true });
    const release = doors(dir); // another process's release
    const shut = await release.shut('a');
    expect(shut).not.toBeNull();
    expect(await gate.call('a', 'write', { path: 'g.txt', content: 'two' })).toMatchObject({ ok: false, error: { code: 'OCCUPIED' } });
    expect(await gate.call('a', 'edit', { path: 'f.txt', oldString: 'one', newString: 'uno' })).toMatchObject({
      ok: false,
      error: { code: 'OCCUPIED' },
    });
    expect(await gate.call('a', 'read', { path: 'f.txt' })).toMatchObject({ ok: true, value: { content: 'one' } });
    expect(await layer.stat('g.txt').catch(() => null)).toBeNull();
    shut!.open();
    expect(await gate.call('a', 'write', { path: 'g.txt', content: 'two' })).toMatchObject({ ok: true });
  });

  it('shut waits for every writer inside, of any process, and gives up at its bound while one stays', async () => {
    const dir = temp();
    const here = doors(dir);
    const there = doors(dir); // another process's writers
    const a = here.enter('a');
    const b = there.enter('a');
    const c = there.enter('a');
    if (typeof a === 'string' || typeof b === 'string' || typeof c === 'string') throw new Error('expected to enter');
    // Another conversation's writers never hold this door.
    const other = there.enter('b');
    expect(typeof other).toBe('object');
    expect(await doors(dir, 100).shut('a')).toBeNull();
    const order: string[] = [];
    let shutAt = '';
    const waiting = doors(dir, 5000)
      .shut('a')
      .then((d) => ((shutAt = order.join(',')), d));
    await new Promise((r) => setTimeout(r, 50));
    order.push('a left');
    a.leave();
    await new Promise((r) => setTimeout(r, 50));
    order.push('b left');
    b.leave();
    b.leave(); // idempotent: c is still inside
    await new Promise((r) => setTimeout(r, 50));
    order.push('c left');
    c.leave();
    const shut = await waiting;
    expect(shut).not.toBeNull();
    expect(shutAt).toBe('a left,b left,c left');
    expect(here.enter('a')).toBe('shut');
    expect(there.enter('a')).toBe('shut');
    shut!.open();
    const again = here.enter('a');
    expect(typeof again).toBe('object');
    (again as { leave(): void }).leave();
    (other as { leave(): void }).leave();
  });
});

describe('write doors across processes', () => {
  beforeAll(() => buildOnce(), 300_000);

  it('a writer process killed inside the door blocks no release; a stopped one makes the release give up at its bound', async () => {
    const dir = temp();
    const stopped = await writerInside(dir, 'a');
    expect(await doors(dir, 300).shut('a')).toBeNull();
    stopped.kill('SIGSTOP');
    expect(await doors(dir, 300).shut('a')).toBeNull();
    stopped.kill('SIGKILL');
    await new Promise((resolve) => stopped.once('close', resolve));
    const shut = await doors(dir, 300).shut('a');
    expect(shut).not.toBeNull();
    shut!.open();
    expect(existsSync(join(dir, 'locks/door-a.lock'))).toBe(true);
    expect(readFileSync(join(dir, 'locks/door-a.lock')).length).toBeLessThan(8192);
  });
});

/** A separate process that enters `conversation`'s door with the built `WriteDoorDir` and stays inside until killed. */
async function writerInside(dir: string, conversation: string): Promise<ChildProcess> {
  const module = pathToFileURL(join(ROOT, 'dist/src/ports/write-door-dir.js')).href;
  const code = `
    const { WriteDoorDir } = await import(${JSON.stringify(module)});
    const pass = new WriteDoorDir(${JSON.stringify(join(dir, 'locks'))}).enter(${JSON.stringify(conversation)});
    process.stdout.write(typeof pass === 'object' ? 'inside\\n' : pass + '\\n');
    setInterval(() => {}, 1 << 30);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.kill('SIGKILL'));
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('error', reject);
    child.once('close', (c) => reject(new Error(`the writer exited (${c}) before entering`)));
  });
  expect(first).toBe('inside');
  return child;
}
