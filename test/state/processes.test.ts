/**
 * Several processes on one state database, as with two `gatefs serve` and a `gatefs status`.
 * Real `node` child processes write either with plain SQL and the same pragmas, or through
 * `StateStore` itself, its TypeScript sources run through the project's module hooks
 * (test/run-typescript.ts), as every other child of the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gatefs-procs-'));

/** A child speaking in lines: it prints 'ready'/'locked'/… and waits for lines on stdin. */
const sqlScript = join(dir, 'sql-child.mjs');
writeFileSync(
  sqlScript,
  `
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
process.stdin.destroy();
`,
);

interface Child {
  proc: ChildProcess;
  /** Resolves once the child printed a line equal to `line` or matching it (rejects if it exits first). */
  waitFor(line: string | RegExp): Promise<void>;
  /** The lines printed so far. */
  lines(): string[];
  send(line: string): void;
  /** Resolves with the exit code; rejects with the child's stderr when it is not 0. */
  exited: Promise<number>;
}
const children: Child[] = [];

function startChild(script: string, ...args: string[]): Child {
  // The store's children run the TypeScript sources under test through the module hooks.
  const node = script.endsWith('store-child.mjs') ? RUN_TYPESCRIPT : [];
  const proc = spawn(process.execPath, [...node, script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<{ matches: () => boolean; resolve: () => void }>();
  const lines = () => out.split('\n').filter(Boolean);
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters)
      if (w.matches()) {
        waiters.delete(w);
        w.resolve();
      }
  });
  proc.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number>((resolve, reject) =>
    proc.on('exit', (code, signal) => (code === 0 ? resolve(0) : reject(new Error(`child exited ${code ?? signal}: ${err}`)))),
  );
  exited.catch(() => undefined);
  const child: Child = {
    proc,
    exited,
    lines,
    send: (line) => proc.stdin!.write(`${line}\n`),
    waitFor: (line) =>
      new Promise<void>((resolve, reject) => {
        const matches = () => lines().some((l) => (typeof line === 'string' ? l === line : line.test(l)));
        if (matches()) return resolve();
        waiters.add({ matches, resolve });
        exited.then(() => reject(new Error(`child exited before printing '${line}'`)), reject);
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

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('several processes on one state database', () => {
  it('appending concurrently loses no event and never fails with SQLITE_BUSY', async () => {
    const file = join(dir, 'append.db');
    const store = openStore(file);
    const perWriter = 200;
    const kids = [
      startChild(sqlScript, file, 'append', String(perWriter), 'k1'),
      startChild(sqlScript, file, 'append', String(perWriter), 'k2'),
    ];
    await Promise.all(kids.map((k) => k.waitFor('ready')));
    for (const k of kids) k.send('go');
    for (let i = 0; i < perWriter; i++) {
      store.runLog.append({ type: 'subagent.landed', conversation: 'p', data: { parent: 'root', head: 'h', commits: i } });
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(kids.map((k) => k.exited))).toEqual([0, 0]);

    expect(store.runLog.read().map((e) => e.seq)).toEqual(range(3 * perWriter).map((i) => i + 1));
    for (const who of ['p', 'k1', 'k2']) {
      // The children's events are plain SQL rows with data { i }; the parent's are catalogued ones counting in `commits`.
      expect(store.runLog.read({ conversation: who }).map((e) => (who === 'p' ? e.data.commits : e.data.i))).toEqual(range(perWriter));
    }
  });

  it("a writer waits for another process's open write transaction instead of failing", async () => {
    const file = join(dir, 'held.db');
    const store = openStore(file);
    const holder = startChild(sqlScript, file, 'hold-write', '300');
    await holder.waitFor('locked');
    holder.send('go');
    // Blocks in SQLite's busy handler until the child commits (at most the 5 s busy timeout).
    const mine = store.runLog.append({ type: 'recover.failed', conversation: null, data: { message: 'after' } });
    expect(await holder.exited).toBe(0);
    expect(store.runLog.read().map((e) => `${e.seq}:${e.type}`)).toEqual(['1:held', '2:recover.failed']);
    expect(mine.seq).toBe(2);
  });

  it('a reader in another process sees committed state without waiting for the writer', async () => {
    const file = join(dir, 'reader.db');
    const store = openStore(file);
    store.workspaces.put({ conversation: 'c1', role: 'agent', backend: 'worktree', guarantee: 'confined', state: 'ready' });
    const holder = startChild(sqlScript, file, 'hold-write', '0');
    await holder.waitFor('locked');
    const status = openStore(file);
    expect(status.workspaces.list().map((w) => w.conversation)).toEqual(['c1']);
    expect(status.runLog.read()).toEqual([]); // the child's uncommitted event is invisible
    holder.send('go');
    expect(await holder.exited).toBe(0);
    expect(status.runLog.read().map((e) => e.type)).toEqual(['held']);
  });

  it('a preparation lock held by a live process is refused; after that process is killed it is taken over', async () => {
    const file = join(dir, 'lock.db');
    const store = openStore(file);
    const other = startChild(sqlScript, file, 'prepare-lock', 'c1', 'their-token');
    await other.waitFor('locked');
    expect(store.preparationLocks.tryLock('c1', { pid: process.pid, token: 'mine' })).toBe(false);
    expect(store.preparationLocks.get('c1')).toMatchObject({ pid: other.proc.pid, token: 'their-token' });

    other.proc.kill('SIGKILL');
    await other.exited.catch(() => undefined);
    expect(store.preparationLocks.tryLock('c1', { pid: process.pid, token: 'mine' })).toBe(true);
    expect(store.preparationLocks.get('c1')).toMatchObject({ pid: process.pid, token: 'mine' });
  });
});

describe('several processes through StateStore', () => {
  it('racing to create the database, append, occupy and lock: one schema, no lost event, one winner each', async () => {
    const storeScript = join(dir, 'store-child.mjs');
    writeFileSync(
      storeScript,
      `
      import { StateStore } from ${JSON.stringify(pathToFileURL(join(root, 'src/state/index.ts')).href)};
      const [file, name, count] = process.argv.slice(2);
      const next = () => new Promise((resolve) => process.stdin.once('data', resolve));
      process.stdout.write('ready\\n');
      await next();
      const store = StateStore.open(file, { clock: { now: () => Date.now() } });
      for (let i = 0; i < Number(count); i++) store.runLog.append({ type: 'child', conversation: name, data: { i } });
      let occupancy;
      try {
        store.occupancy.acquire({ conversation: 'shared', holder: name, mode: 'exclusive-write' }).record;
        occupancy = { won: true };
      } catch (e) {
        occupancy = { won: false, error: e.name, code: e.code, holder: e.data?.holder };
      }
      const locked = store.preparationLocks.tryLock('shared', { pid: process.pid, token: name });
      process.stdout.write(JSON.stringify({ name, occupancy, locked }) + '\\n');
      await next(); // stay alive (holding the lock) until every child has tried
      store.close();
      process.stdin.destroy();
    `,
    );
    const file = join(dir, 'racing.db');
    const names = ['w1', 'w2', 'w3'];
    const perWriter = 100;
    const kids = names.map((name) => startChild(storeScript, file, name, String(perWriter)));
    await Promise.all(kids.map((k) => k.waitFor('ready')));
    for (const k of kids) k.send('go');
    await Promise.all(kids.map((k) => k.waitFor(/^\{/)));
    const results = kids.map(
      (k) =>
        JSON.parse(k.lines()[1]!) as {
          name: string;
          locked: boolean;
          occupancy: { won: boolean; error?: string; code?: string; holder?: string };
        },
    );
    for (const k of kids) k.send('exit');
    await Promise.all(kids.map((k) => k.exited));

    const store = openStore(file);
    expect(store.runLog.read().map((e) => e.seq)).toEqual(range(names.length * perWriter).map((i) => i + 1));
    for (const name of names) expect(store.runLog.read({ conversation: name }).map((e) => e.data.i)).toEqual(range(perWriter));

    const winners = results.filter((r) => r.occupancy.won).map((r) => r.name);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => !r.occupancy.won)) {
      expect(loser.occupancy).toEqual({ won: false, error: 'WorkspaceError', code: 'OCCUPIED', holder: winners[0] });
    }
    expect(store.occupancy.current('shared').map((o) => o.holder)).toEqual(winners);

    expect(results.filter((r) => r.locked)).toHaveLength(1);
    // Every child has exited now, so the lock left behind is stale and can be taken over.
    expect(store.preparationLocks.tryLock('shared', { pid: process.pid, token: 'parent' })).toBe(true);
  });
});
