/**
 * The gate's write locks: the process-wide in-process lock (one queue per file, FIFO, released
 * whatever the call's outcome) and the cross-process lock on lock files (real `LockFileDir`s:
 * two instances in one process exclude each other exactly as two processes do). Checked as a
 * user would see it: which calls wait, which answer `BUSY`, and the bytes on disk.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import buildOnce from '../build-once.js';
import { ROOT } from '../cli/run-gatefs.js';
import { FileLocks, processFileLocks } from '../../vfs/file-lock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { ManualClock } from '../../src/ports/clock.js';
import { LockFileDir } from '../../src/ports/lock-file-dir.js';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import type { WriteOptions, WriteResult } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import type { ToolResult } from '../../tools/result.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const key = (id: string, scope: object = processFileLocks) => ({ scope, id });

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatefs-locks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function lockDir(dir: string, waitMs: number): LockFileDir {
  const locks = new LockFileDir(dir, { waitMs });
  cleanups.push(() => locks.close());
  return locks;
}

/** A gate over one host folder as the workspace of conversation `a`, with cross-process locks. */
function gateOver(
  dir: string,
  locks?: LockFileDir,
): { gate: ToolGate; layer: HostLayer; call: (tool: string, args: object) => Promise<ToolResult> } {
  const layer = openHostLayer(dir);
  cleanups.push(() => layer.close());
  const registry = new Registry();
  const ns = new Namespace({ root: '/worktrees/a', mounts: [{ path: '/worktrees/a', layer, writable: true }] });
  registry.set({ conversation: 'a', state: 'ready', role: 'agent', tools: new Set(['read', 'edit', 'write']), namespace: ns });
  const gate = new ToolGate({
    registry,
    runLog: { append: () => undefined },
    clock: new ManualClock(0, 1),
    ...(locks ? { crossProcessLocks: locks } : {}),
  });
  return { gate, layer, call: (tool, args) => gate.call('a', tool, args) };
}

describe('in-process file locks', () => {
  it('queue callers of one key in arrival order and never hold up another key', async () => {
    const locks = new FileLocks();
    const order: string[] = [];
    const first = await locks.acquire(key('f'));
    const second = locks.acquire(key('f')).then((release) => (order.push('second'), release));
    const third = locks.acquire(key('f')).then((release) => (order.push('third'), release));
    const other = await locks.acquire(key('g'));
    order.push('other');
    other();
    expect(order).toEqual(['other']);
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(['other', 'second', 'third']);
    expect(locks.isBusy(key('f'))).toBe(false);
  });

  it('keep scopes apart: one id in two scopes is two locks', async () => {
    const locks = new FileLocks();
    const a = await locks.acquire(key('f', {}));
    const b = await locks.acquire(key('f', {}));
    a();
    b();
  });

  it('a release called twice frees the lock once (the next waiter is not let in early)', async () => {
    const locks = new FileLocks();
    const first = await locks.acquire(key('f'));
    let secondIn = false;
    const second = locks.acquire(key('f')).then((r) => ((secondIn = true), r));
    let thirdIn = false;
    const third = locks.acquire(key('f')).then((r) => ((thirdIn = true), r));
    first();
    first();
    const releaseSecond = await second;
    await new Promise((r) => setTimeout(r, 5));
    expect([secondIn, thirdIn]).toEqual([true, false]);
    releaseSecond();
    (await third)();
  });

  it('a call that fails, or throws something unexpected, leaves its file unlocked for the next one', async () => {
    class Flaky extends MemoryLayer {
      failures = 1;
      override async writeFile(path: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
        if (this.failures-- > 0) throw new TypeError('disk on fire');
        return super.writeFile(path, data, options);
      }
    }
    const layer = new Flaky({ files: { 'f.txt': 'one\n' } });
    const registry = new Registry();
    const ns = new Namespace({ root: '/worktrees/a', mounts: [{ path: '/worktrees/a', layer, writable: true }] });
    registry.set({ conversation: 'a', state: 'ready', role: 'agent', tools: new Set(['edit']), namespace: ns });
    const gate = new ToolGate({ registry, runLog: { append: () => undefined }, clock: new ManualClock(0, 1) });
    expect(await gate.call('a', 'edit', { path: 'f.txt', oldString: 'none', newString: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'NO_MATCH' },
    });
    expect(await gate.call('a', 'edit', { path: 'f.txt', oldString: 'one', newString: 'two' })).toMatchObject({
      ok: false,
      error: { code: 'INTERNAL' },
    });
    expect(processFileLocks.isBusy(layer.lockKey('f.txt'))).toBe(false);
    expect(await gate.call('a', 'edit', { path: 'f.txt', oldString: 'one', newString: 'two' })).toMatchObject({ ok: true });
    expect(String(layer.volume.readFileSync('/f.txt'))).toBe('two\n');
  });
});

describe('cross-process locks (lock files)', () => {
  it('while another holder has the file: edit and write(expectedSha256) answer BUSY and change nothing; reads, plain writes and create-only writes go ahead', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'f.txt'), 'v1\n');
    const locksDir = join(temp(), 'locks');
    const { call, layer } = gateOver(dir, lockDir(locksDir, 150));
    const other = lockDir(locksDir, 150);
    const hold = await other.acquire(layer.lockKey('f.txt').id);
    expect(hold).not.toBeNull();

    const edit = await call('edit', { path: 'f.txt', oldString: 'v1', newString: 'v2' });
    expect(edit).toMatchObject({ ok: false, error: { code: 'BUSY', path: 'f.txt' } });
    expect((edit as { error: { message: string } }).error.message).not.toContain(dir);
    expect(await call('write', { path: 'f.txt', content: 'v3\n', expectedSha256: sha('v1\n') })).toMatchObject({
      ok: false,
      error: { code: 'BUSY' },
    });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('v1\n');

    expect(await call('read', { path: 'f.txt' })).toMatchObject({ ok: true, value: { content: 'v1\n' } });
    expect(await call('write', { path: 'f.txt', content: 'plain\n' })).toMatchObject({ ok: true });
    expect(await call('write', { path: 'new.txt', content: 'new\n', expectedSha256: null })).toMatchObject({
      ok: true,
      value: { created: true },
    });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('plain\n');

    hold!.release();
    expect(await call('edit', { path: 'f.txt', oldString: 'plain', newString: 'edited' })).toMatchObject({ ok: true });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('edited\n');
  });

  it('an edit waits for a holder that lets go within the bound instead of answering BUSY', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'f.txt'), 'v1\n');
    const locksDir = join(temp(), 'locks');
    const { call, layer } = gateOver(dir, lockDir(locksDir, 5000));
    const hold = (await lockDir(locksDir, 100).acquire(layer.lockKey('f.txt').id))!;
    const pending = call('edit', { path: 'f.txt', oldString: 'v1', newString: 'v2' });
    setTimeout(() => {
      writeFileSync(join(dir, 'f.txt'), 'v1 and more\n');
      hold.release();
    }, 50);
    expect(await pending).toMatchObject({ ok: true });
    // The edit read the file after the holder's change, so it applies on top of it.
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('v2 and more\n');
  });

  it('two files whose keys share a lock file both get through in one process (no deadlock), one after the other', async () => {
    const locks = lockDir(join(temp(), 'locks'), 1000);
    const stripe = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 2);
    const first = 'file-0';
    let second = 'file-1';
    for (let i = 1; stripe(second) !== stripe(first); i++) second = `file-${i}`;
    const one = (await locks.acquire(first))!;
    let secondHeld = false;
    const two = locks.acquire(second).then((h) => ((secondHeld = true), h));
    await new Promise((r) => setTimeout(r, 20));
    expect(secondHeld).toBe(false);
    one.release();
    const held = await two;
    expect(held).not.toBeNull();
    held!.release();
  });

  it('keeps at most 256 lock files, whatever the number of files locked', async () => {
    const dir = join(temp(), 'locks');
    const locks = lockDir(dir, 1000);
    for (let i = 0; i < 600; i++) (await locks.acquire(`file-${i}`))!.release();
    const files = readdirSync(dir);
    expect(files.length).toBeLessThanOrEqual(256);
    expect(files.every((f) => /^[0-9a-f]{2}\.lock$/.test(f))).toBe(true);
  });
});

describe('cross-process locks with two hosts in one process', () => {
  beforeAll(() => buildOnce(), 300_000);

  it('a second LockFileDir of this process opening a held lock file does not hand the lock to another process', async () => {
    const dir = join(temp(), 'locks');
    const stripe = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 2);
    let sibling = 'other-1';
    for (let i = 1; stripe(sibling) !== stripe('held'); i++) sibling = `other-${i}`;
    const first = lockDir(dir, 1000);
    const second = lockDir(dir, 100); // another host of this process, over the same state directory
    const hold = (await first.acquire('held'))!;
    const otherProcess = () => {
      const module = pathToFileURL(join(ROOT, 'dist/src/ports/lock-file-dir.js')).href;
      const code = `const { LockFileDir } = await import(${JSON.stringify(module)});
        const h = await new LockFileDir(${JSON.stringify(dir)}, { waitMs: 300 }).acquire('held');
        process.stdout.write(h ? 'got it' : 'busy');`;
      return spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }).stdout;
    };
    expect(otherProcess()).toBe('busy');
    // The sibling key shares the lock file: the second instance opens it and waits in vain.
    expect(await second.acquire(sibling)).toBeNull();
    expect(otherProcess()).toBe('busy');
    hold.release();
    expect(otherProcess()).toBe('got it');
  });
});
