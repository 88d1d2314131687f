/**
 * Several processes on one state database, as with two `gatefs serve` and a `gatefs status`:
 * real `node` child processes write with plain SQL and the same pragmas (Node 20 cannot run
 * the TypeScript store in a child), while this process writes through `StateStore`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gatefs-procs-'));
const script = join(dir, 'child.mjs');
writeFileSync(script, `
import { createRequire } from 'node:module';
const Database = createRequire(${JSON.stringify(join(root, 'package.json'))})('better-sqlite3');
const [file, mode, ...args] = process.argv.slice(2);
const db = new Database(file, { timeout: 5000 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const say = (line) => process.stdout.write(line + '\\n');
const go = () => new Promise((resolve) => process.stdin.once('data', resolve));
if (mode === 'append') {
  const [count, name] = args;
  const insert = db.prepare('INSERT INTO events (at, type, conversation, data) VALUES (?, ?, ?, ?)');
  say('ready');
  await go();
  for (let i = 0; i < Number(count); i++) insert.run(Date.now(), 'child', name, JSON.stringify({ i }));
  say('done');
} else if (mode === 'hold-write') {
  db.exec('BEGIN IMMEDIATE');
  db.prepare('INSERT INTO events (at, type, conversation, data) VALUES (?, ?, ?, ?)').run(Date.now(), 'held', null, '{}');
  say('locked');
  await go();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(args[0]));
  db.exec('COMMIT');
  say('done');
} else if (mode === 'prepare-lock') {
  const [conversation, token] = args;
  db.prepare('INSERT INTO preparation_locks (conversation, pid, token, locked_at) VALUES (?, ?, ?, ?)').run(conversation, process.pid, token, Date.now());
  say('locked');
  await go();
}
db.close();
`);

interface Child { proc: ChildProcess; waitFor(line: string): Promise<void>; go(): void; exited: Promise<number | null>; stderr(): string }
const children: Child[] = [];

function startChild(file: string, mode: string, ...args: string[]): Child {
  const proc = spawn(process.execPath, [script, file, mode, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of [...waiters]) if (out.split('\n').includes(w.line)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
  });
  proc.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const child: Child = {
    proc,
    exited,
    stderr: () => err,
    go: () => proc.stdin!.end('go\n'),
    waitFor: (line) => new Promise<void>((resolve, reject) => {
      if (out.split('\n').includes(line)) return resolve();
      waiters.push({ line, resolve });
      void exited.then((code) => reject(new Error(`child exited (${code}) before '${line}': ${err}`)));
    }),
  };
  children.push(child);
  return child;
}

const stores: StateStore[] = [];
function openStore(file: string): StateStore {
  const s = StateStore.open(file, { clock: systemClock });
  stores.push(s);
  return s;
}
afterEach(() => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  for (const s of stores.splice(0)) s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('several processes on one state database', () => {
  it('appending concurrently loses no event and never fails with SQLITE_BUSY', async () => {
    const file = join(dir, 'append.db');
    const store = openStore(file);
    const perWriter = 200;
    const kids = [startChild(file, 'append', String(perWriter), 'k1'), startChild(file, 'append', String(perWriter), 'k2')];
    await Promise.all(kids.map((k) => k.waitFor('ready')));
    for (const k of kids) k.go();
    for (let i = 0; i < perWriter; i++) {
      store.appendEvent({ type: 'parent', conversation: 'p', data: { i } });
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(kids.map((k) => k.waitFor('done')));
    expect(await Promise.all(kids.map((k) => k.exited))).toEqual([0, 0]);

    const all = store.events();
    expect(all).toHaveLength(3 * perWriter);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 3 * perWriter }, (_, i) => i + 1));
    for (const who of ['p', 'k1', 'k2']) {
      expect(store.events({ conversation: who }).map((e) => e.data.i)).toEqual(Array.from({ length: perWriter }, (_, i) => i));
    }
  });

  it('a writer waits for another process\'s open write transaction instead of failing', async () => {
    const file = join(dir, 'held.db');
    const store = openStore(file);
    const holder = startChild(file, 'hold-write', '300');
    await holder.waitFor('locked');
    holder.go();
    // Blocks in SQLite's busy handler until the child commits (at most the 5 s busy timeout).
    const mine = store.appendEvent({ type: 'after', conversation: null, data: {} });
    expect(await holder.exited).toBe(0);
    expect(store.events().map((e) => `${e.seq}:${e.type}`)).toEqual(['1:held', `${mine.seq}:after`]);
    expect(mine.seq).toBe(2);
  });

  it('a reader in another process sees committed state without waiting for the writer', async () => {
    const file = join(dir, 'reader.db');
    const store = openStore(file);
    store.putWorkspace({ conversation: 'c1', role: 'agent', backend: 'worktree', guarantee: 'confined', state: 'ready' });
    const holder = startChild(file, 'hold-write', '0');
    await holder.waitFor('locked');
    const status = openStore(file);
    expect(status.listWorkspaces().map((w) => w.conversation)).toEqual(['c1']);
    expect(status.events()).toEqual([]); // the child's uncommitted event is invisible
    holder.go();
    expect(await holder.exited).toBe(0);
    expect(status.events().map((e) => e.type)).toEqual(['held']);
  });

  it('a preparation lock held by a live process is refused; after that process is killed it is taken over', async () => {
    const file = join(dir, 'lock.db');
    const store = openStore(file);
    const other = startChild(file, 'prepare-lock', 'c1', 'their-token');
    await other.waitFor('locked');
    expect(store.tryLockPreparation('c1', { pid: process.pid, token: 'mine' })).toBe(false);
    expect(store.preparationLock('c1')).toMatchObject({ pid: other.proc.pid, token: 'their-token' });

    other.proc.kill('SIGKILL');
    await other.exited;
    expect(store.tryLockPreparation('c1', { pid: process.pid, token: 'mine' })).toBe(true);
    expect(store.preparationLock('c1')).toMatchObject({ pid: process.pid, token: 'mine' });
  });
});
