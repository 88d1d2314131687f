/**
 * Opening the state database: migrations from empty, reopening keeps data, refusing a newer
 * schema, a failing migration rolled back whole, and the pragmas several processes rely on.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateError, StateStore } from '../../src/state/index.js';
import { migrate, SCHEMA_VERSION, type Migration } from '../../src/state/migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'gatefs-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const opened: { close(): void }[] = [];
afterEach(() => {
  while (opened.length) opened.pop()!.close();
});

let n = 0;
const freshFile = () => join(dir, `db-${++n}.db`);
function open(file: string): StateStore {
  const s = StateStore.open(file, { clock: new ManualClock(1000, 1) });
  opened.push(s);
  return s;
}
function raw(file: string): Database.Database {
  const db = new Database(file);
  opened.push(db);
  return db;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('opening', () => {
  it('creates every table on an empty file and records the schema version', () => {
    const file = freshFile();
    open(file).close();
    const db = raw(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      'agents',
      'artifacts',
      'bindings',
      'events',
      'handoffs',
      'lineage',
      'messages',
      'meta',
      'occupancy',
      'patches',
      'preparation_locks',
      'runs',
      'snapshot_heads',
      'snapshot_restores',
      'snapshot_stamps',
      'snapshots',
      'submissions',
      'visits',
      'window_claims',
      'workspaces',
    ]);
  });

  it('uses WAL, synchronous=NORMAL and a 5 s busy timeout on a file', () => {
    const file = freshFile();
    open(file);
    const db = raw(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const store = open(file) as unknown as { db: Database.Database };
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('reopening keeps workspaces, events and occupancy, and does not migrate again', () => {
    const file = freshFile();
    const a = open(file);
    a.workspaces.put({ conversation: 'c1', role: 'agent', backend: 'worktree', guarantee: 'confined', state: 'ready', pinnedSha: 'abc' });
    a.runLog.append({ type: 'prepare.reused', conversation: 'c1', data: { pinnedSha: 'abc' } });
    a.occupancy.acquire({ conversation: 'c1', holder: 'h', mode: 'exclusive-write' }).record;
    a.close();
    const b = open(file);
    expect(b.workspaces.get('c1')).toMatchObject({ state: 'ready', pinnedSha: 'abc' });
    expect(b.runLog.read()).toEqual([{ seq: 1, at: 1001, type: 'prepare.reused', conversation: 'c1', data: { pinnedSha: 'abc' } }]);
    expect(b.occupancy.blockingHolder('c1', 'other')).toBe('h');
    expect(migrate((b as unknown as { db: Database.Database }).db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });

  it('refuses a database written by a newer gatefs and leaves it untouched', () => {
    const file = freshFile();
    const db = raw(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    const e = thrown(() => open(file)) as StateError;
    expect(e).toBeInstanceOf(StateError);
    expect(e.code).toBe('SCHEMA_TOO_NEW');
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get()).toBe(0);
  });

  it('a missing folder is OPEN_FAILED naming the file', () => {
    const file = join(dir, 'missing', 'gatefs.db');
    const e = thrown(() => open(file)) as StateError;
    expect(e.code).toBe('OPEN_FAILED');
    expect(e.message).toContain(file);
  });

  it('a file that is not a database is OPEN_FAILED', () => {
    const file = freshFile();
    writeFileSync(file, 'this is not sqlite, just some text that is long enough to have a header'.repeat(20));
    expect((thrown(() => open(file)) as StateError).code).toBe('OPEN_FAILED');
  });
});

describe('migrate', () => {
  const steps: Migration[] = [
    { version: 1, description: 'a', sql: 'CREATE TABLE a (x INTEGER);' },
    { version: 2, description: 'b', sql: 'CREATE TABLE b (x INTEGER); CREATE TABLE broken (;' },
  ];

  it('applies each step in its own transaction: a failing step leaves the previous version whole', () => {
    const db = raw(':memory:');
    expect(() => migrate(db, steps)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['a']);
  });

  it('from empty runs every step once; again, none', () => {
    const db = raw(':memory:');
    expect(migrate(db, steps.slice(0, 1))).toEqual({ from: 0, to: 1 });
    expect(migrate(db, steps.slice(0, 1))).toEqual({ from: 1, to: 1 });
  });
});
