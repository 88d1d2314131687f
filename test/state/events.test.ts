/** The run log: append-only, ordered, filtered, and stored as deterministic JSON. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { stableStringify, StateStore, type EventDraft } from '../../src/state/index.js';

let store: StateStore;
beforeEach(() => {
  store = StateStore.open(':memory:', { clock: new ManualClock(5_000, 10) });
});
afterEach(() => store.close());

/** A draft as a JavaScript caller (or JSON from elsewhere) may pass it: the type system does not check its data, the store must. */
const untyped = (data: unknown) => ({ type: 'recover.failed', conversation: 'c', data }) as EventDraft;

/** A tool-call record whose duration is `n`, to tell records apart. */
const toolCall = (n: number): EventDraft => ({
  type: 'tool_call',
  conversation: 'c',
  data: { tool: 'read', outcome: 'ok', durationMs: n },
});

describe('runLog.append', () => {
  it('assigns increasing seq from 1 and the clock time', () => {
    const a = store.runLog.append({ type: 'work.commit', conversation: 'c1', data: { sha: 'abc', files: 2 } });
    const b = store.runLog.append({ type: 'host.start', conversation: null, data: { confinement: 'memory', workspaces: 0 } });
    expect([a, b]).toEqual([
      { seq: 1, at: 5_000, type: 'work.commit', conversation: 'c1', data: { sha: 'abc', files: 2 } },
      { seq: 2, at: 5_010, type: 'host.start', conversation: null, data: { confinement: 'memory', workspaces: 0 } },
    ]);
  });

  it('returns exactly what events() will later return (undefined dropped, dates as strings)', () => {
    const e = store.runLog.append(untyped({ gone: undefined, when: new Date(0), list: [undefined, 1] }));
    expect(e.data).toEqual({ when: '1970-01-01T00:00:00.000Z', list: [null, 1] });
    expect(store.runLog.read()).toEqual([e]);
  });

  it('refuses data that is not JSON (a bigint, a cycle) and writes nothing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => store.runLog.append(untyped({ n: 1n }))).toThrow(TypeError);
    expect(() => store.runLog.append(untyped(cyclic))).toThrow(/cycle/);
    expect(store.runLog.read()).toEqual([]);
  });
});

describe('runLog.appendSoon (the tool-call audit records)', () => {
  it('keeps the order of appends: its time is taken at once, its seq before any later append', () => {
    store.runLog.appendSoon(toolCall(1));
    store.runLog.appendSoon(toolCall(2));
    store.runLog.append({ type: 'occupancy.release', conversation: 'c', data: { holder: 'h' } });
    store.runLog.appendSoon(toolCall(3));
    expect(store.runLog.read().map((e) => [e.seq, e.at, e.type, e.data.durationMs])).toEqual([
      [1, 5_000, 'tool_call', 1],
      [2, 5_010, 'tool_call', 2],
      [3, 5_020, 'occupancy.release', undefined],
      [4, 5_030, 'tool_call', 3],
    ]);
  });

  it('is on disk soon after (one commit for the calls of a burst), and at close, for another connection to read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-events-'));
    try {
      const file = join(dir, 'gatefs.db');
      const s = StateStore.open(file, { clock: new ManualClock() });
      const reader = new Database(file, { readonly: true });
      const count = () => reader.prepare("SELECT count(*) FROM events WHERE type = 'tool_call'").pluck().get();
      for (let i = 0; i < 5; i++) s.runLog.appendSoon(toolCall(i));
      expect(count()).toBe(0); // held: one commit writes the burst
      await vi.waitFor(() => expect(count()).toBe(5), { timeout: 10_000, interval: 5 });
      s.runLog.appendSoon(toolCall(5));
      s.close();
      expect(count()).toBe(6);
      reader.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses data that is not JSON at once, holding nothing', () => {
    expect(() => store.runLog.appendSoon(untyped({ n: 1n }))).toThrow(TypeError);
    expect(store.runLog.read()).toEqual([]);
  });
});

describe('runLog.read(filter)', () => {
  beforeEach(() => {
    for (let i = 0; i < 6; i++) {
      const conversation = i < 3 ? 'a' : 'b';
      if (i % 2) store.runLog.append({ type: 'subagent.land', conversation, data: { parent: 'p', from: 'f', to: 't', commits: i } });
      else store.runLog.append({ type: 'subagent.landed', conversation, data: { parent: 'p', head: 'h', commits: i } });
    }
  });
  const is = (filter: Parameters<StateStore['runLog']['read']>[0]) => store.runLog.read(filter).map((e) => e.data.commits);

  it('all, oldest first', () => expect(is(undefined)).toEqual([0, 1, 2, 3, 4, 5]));
  it('by conversation', () => expect(is({ conversation: 'b' })).toEqual([3, 4, 5]));
  it('by type', () => expect(is({ type: 'subagent.land' })).toEqual([1, 3, 5]));
  it('after a seq (tailing)', () => expect(is({ afterSeq: 4 })).toEqual([4, 5]));
  it('combined', () => expect(is({ conversation: 'a', type: 'subagent.landed', afterSeq: 1 })).toEqual([2]));
  it('limited to the oldest n', () => expect(is({ limit: 2, afterSeq: 2 })).toEqual([2, 3]));
  it('no match is empty', () => expect(is({ conversation: 'zzz' })).toEqual([]));
});

describe('deterministic JSON', () => {
  it('stableStringify converts like JSON.stringify (NaN, Infinity, functions, symbols)', () => {
    expect(stableStringify({ n: NaN, i: -Infinity, s: 'é"\n' })).toBe(JSON.stringify({ i: null, n: null, s: 'é"\n' }));
    expect(stableStringify(undefined)).toBe('null');
    expect(stableStringify([() => 1, Symbol('x')])).toBe('[null,null]');
  });

  it('stores the same bytes whatever the key order, in the database itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-events-'));
    try {
      const file = join(dir, 'gatefs.db');
      const s = StateStore.open(file, { clock: new ManualClock() });
      s.runLog.append(untyped({ zeta: 1, alpha: { y: 2, x: 1 } }));
      s.runLog.append(untyped({ alpha: { x: 1, y: 2 }, zeta: 1 }));
      s.close();
      const db = new Database(file, { readonly: true });
      const rows = db.prepare('SELECT data FROM events ORDER BY seq').pluck().all();
      db.close();
      expect(rows).toEqual(['{"alpha":{"x":1,"y":2},"zeta":1}', '{"alpha":{"x":1,"y":2},"zeta":1}']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the same scenario on a manual clock gives a byte-identical run log', () => {
    const scenario = () => {
      const s = StateStore.open(':memory:', { clock: new ManualClock(Date.UTC(2026, 0, 1), 7) });
      s.workspaces.put({ conversation: 'c1', role: 'agent', backend: 'copy', guarantee: 'confined', state: 'ready' });
      s.runLog.append({
        type: 'prepare.start',
        conversation: 'c1',
        data: { backend: 'copy', role: 'agent', baseRef: null, pinnedSha: 'abc' },
      });
      s.occupancy.acquire({ conversation: 'c1', holder: 'mcp-1', mode: 'exclusive-write' }).record;
      s.runLog.append({ type: 'tool_call', conversation: 'c1', data: { tool: 'write', outcome: 'ok', durationMs: 0 } });
      const log = JSON.stringify(s.runLog.read());
      s.close();
      return log;
    };
    const first = scenario();
    expect(first).toContain('"seq":2');
    expect(scenario()).toBe(first);
  });
});
