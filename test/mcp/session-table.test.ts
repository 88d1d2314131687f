/**
 * The bookkeeping behind the HTTP caps, on a manual clock: slots being opened count against the
 * caps (two initializes racing for the last slot cannot both win), a cancelled slot frees its
 * place, only sessions with nothing in flight are ever reapable, and the creation budget refuses
 * past its total and its concurrency with the kind of refusal the server maps to a status.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { SessionTable, type SessionSlot, type SessionRefusal } from '../../src/mcp/http/session-table.js';
import { CreationBudget, CreationRefusal } from '../../src/mcp/http/creation-budget.js';

const limits = { perConversation: 2, total: 3, idleMs: 1000, detachedMs: 100 };
const isSlot = (s: SessionSlot<string> | SessionRefusal): s is SessionSlot<string> => 'commit' in s;

describe('SessionTable', () => {
  it('counts slots being opened against both caps; a cancelled one frees its place', () => {
    const table = new SessionTable<string>(limits, new ManualClock());
    const a = table.reserve('c');
    const b = table.reserve('c');
    expect(isSlot(a) && isSlot(b)).toBe(true);
    expect(table.reserve('c')).toEqual({ scope: 'conversation', open: 2, limit: 2 });
    (b as SessionSlot<string>).cancel();
    (b as SessionSlot<string>).cancel(); // twice is harmless
    const c = table.reserve('c');
    expect(isSlot(c)).toBe(true);
    (a as SessionSlot<string>).commit('s1', 'one');
    expect(isSlot(table.reserve('d'))).toBe(true);
    expect(table.reserve('e')).toEqual({ scope: 'server', open: 3, limit: 3 });
  });

  it('reaps only sessions with nothing in flight and no stream, after their idle time', () => {
    const clock = new ManualClock();
    const table = new SessionTable<string>(limits, clock);
    const slot = (id: string) => (table.reserve('c') as SessionSlot<string>).commit(id, id);
    slot('quiet');
    slot('busy');
    const endRequest = table.begin('busy', 'request');
    clock.advance(5000);
    expect(table.reapable().map((r) => r.id)).toEqual(['quiet']);
    endRequest();
    expect(table.reapable().map((r) => r.id)).toEqual(['quiet']); // busy was active just now
    const endStream = table.begin('busy', 'stream');
    clock.advance(5000);
    expect(table.reapable().map((r) => r.id)).toEqual(['quiet']); // an open stream is active
    endStream();
    clock.advance(99);
    expect(table.reapable().map((r) => r.id)).toEqual(['quiet']);
    clock.advance(1);
    expect(table.reapable().map((r) => r.id)).toEqual(['quiet', 'busy']); // dropped stream: 100 ms
  });
});

describe('CreationBudget', () => {
  it('without allow, refuses every preparation, naming the command to run', () => {
    const budget = new CreationBudget({ allow: false, total: 5, concurrent: 5 });
    expect(() => budget.take('x')).toThrow(/conversation "x" has no workspace; prepare it first: gatefs prepare x/);
    expect(() => budget.take('x', 'preparing')).toThrow(
      /is still being prepared by another gatefs process; retry once "gatefs status" shows it ready/,
    );
  });

  it('refuses past its concurrency (retry) and past its total (for this run), failed attempts included', () => {
    const budget = new CreationBudget({ allow: true, total: 3, concurrent: 2 });
    const first = budget.take('a');
    budget.take('b');
    const busy = (() => {
      try {
        budget.take('c');
      } catch (e) {
        return e as CreationRefusal;
      }
    })();
    expect(busy?.code).toBe('CONCURRENT_LIMIT');
    first();
    first(); // settling twice frees one place only
    budget.take('c');
    expect(() => budget.take('d')).toThrow(CreationRefusal);
    try {
      budget.take('d');
    } catch (e) {
      expect((e as CreationRefusal).code).toBe('TOTAL_LIMIT'); // three started: the total is used up
    }
  });

  it('counts attempts: after `total` preparations, even settled ones, the next is refused for this run', () => {
    const budget = new CreationBudget({ allow: true, total: 2, concurrent: 2 });
    budget.take('a')();
    budget.take('b')();
    expect(() => budget.take('c')).toThrow(/already prepared 2 new conversations \(the --allow-new limit is 2 per run\)/);
  });
});
