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
      store.workspaces.put(draft);
      store.occupancy.acquire({ conversation: 'c1', holder: 'h', mode: 'shared-read' }).record;
      return store.runLog.append({ type: 'prepare.reused', conversation: 'c1', data: { pinnedSha: null } }).seq;
    });
    expect(seq).toBe(1);
    expect(store.workspaces.get('c1')).not.toBeNull();
    expect(store.occupancy.current('c1')).toHaveLength(1);
  });

  it('rolls back every change when fn throws, and rethrows the same error', () => {
    store.workspaces.put(draft);
    const boom = new Error('boom');
    expect(() =>
      store.transaction(() => {
        store.workspaces.update('c1', { state: 'ready', pinnedSha: 'abc' });
        store.workspaces.put({ ...draft, conversation: 'c2' });
        store.runLog.append({ type: 'prepare.reused', conversation: 'c1', data: { pinnedSha: null } });
        store.occupancy.acquire({ conversation: 'c1', holder: 'h', mode: 'exclusive-write' }).record;
        store.preparationLocks.tryLock('c1', { pid: process.pid, token: 't' });
        throw boom;
      }),
    ).toThrow(boom);
    expect(store.workspaces.get('c1')).toMatchObject({ state: 'preparing', pinnedSha: null });
    expect(store.workspaces.get('c2')).toBeNull();
    expect(store.runLog.read()).toEqual([]);
    expect(store.occupancy.current('c1')).toEqual([]);
    expect(store.preparationLocks.get('c1')).toBeNull();
  });

  it('a nested transaction that throws rolls back only itself when the outer one catches', () => {
    store.transaction(() => {
      store.runLog.append({ type: 'recover.failed', conversation: null, data: { message: 'outer' } });
      try {
        store.transaction(() => {
          store.runLog.append({ type: 'recover.failed', conversation: null, data: { message: 'inner' } });
          throw new Error('inner fails');
        });
      } catch {
        /* the outer transaction goes on */
      }
    });
    expect(store.runLog.read().map((e) => e.data.message)).toEqual(['outer']);
  });

  it('refuses an async function instead of committing half of it', () => {
    expect(() =>
      store.transaction((async () => {
        store.runLog.append({ type: 'recover.failed', conversation: null, data: { message: 'x' } });
      }) as unknown as () => void),
    ).toThrow(TypeError);
    expect(store.runLog.read()).toEqual([]);
  });
});
