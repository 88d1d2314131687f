/** `transaction(fn)`: all of fn's changes land together, or none do. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';

let store: StateStore;
beforeEach(() => {
  store = StateStore.open(':memory:', { clock: new ManualClock() });
});
afterEach(() => store.close());

const draft = { conversation: 'c1', role: 'agent', backend: 'worktree', guarantee: 'confined', state: 'preparing' } as const;

describe('transaction', () => {
  it("commits every change and returns fn's result", () => {
    const seq = store.transaction(() => {
      store.putWorkspace(draft);
      store.acquireOccupancy({ conversation: 'c1', holder: 'h', mode: 'shared-read' });
      return store.appendEvent({ type: 'prepare', conversation: 'c1', data: {} }).seq;
    });
    expect(seq).toBe(1);
    expect(store.getWorkspace('c1')).not.toBeNull();
    expect(store.occupancy('c1')).toHaveLength(1);
  });

  it('rolls back every change when fn throws, and rethrows the same error', () => {
    store.putWorkspace(draft);
    const boom = new Error('boom');
    expect(() =>
      store.transaction(() => {
        store.updateWorkspace('c1', { state: 'ready', pinnedSha: 'abc' });
        store.putWorkspace({ ...draft, conversation: 'c2' });
        store.appendEvent({ type: 'prepare', conversation: 'c1', data: {} });
        store.acquireOccupancy({ conversation: 'c1', holder: 'h', mode: 'exclusive-write' });
        store.tryLockPreparation('c1', { pid: process.pid, token: 't' });
        throw boom;
      }),
    ).toThrow(boom);
    expect(store.getWorkspace('c1')).toMatchObject({ state: 'preparing', pinnedSha: null });
    expect(store.getWorkspace('c2')).toBeNull();
    expect(store.events()).toEqual([]);
    expect(store.occupancy('c1')).toEqual([]);
    expect(store.preparationLock('c1')).toBeNull();
  });

  it('a nested transaction that throws rolls back only itself when the outer one catches', () => {
    store.transaction(() => {
      store.appendEvent({ type: 'outer', conversation: null, data: {} });
      try {
        store.transaction(() => {
          store.appendEvent({ type: 'inner', conversation: null, data: {} });
          throw new Error('inner fails');
        });
      } catch {
        /* the outer transaction goes on */
      }
    });
    expect(store.events().map((e) => e.type)).toEqual(['outer']);
  });

  it('refuses an async function instead of committing half of it', () => {
    expect(() =>
      store.transaction((async () => {
        store.appendEvent({ type: 'x', conversation: null, data: {} });
      }) as unknown as () => void),
    ).toThrow(TypeError);
    expect(store.events()).toEqual([]);
  });
});
