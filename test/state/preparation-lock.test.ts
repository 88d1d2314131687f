/** The per-conversation preparation lock within one process, with real pids. */
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateError, StateStore } from '../../src/state/index.js';
import { isProcessAlive } from '../../src/state/preparation-lock.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  expect(isProcessAlive(child.pid!)).toBe(false);
  return child.pid!;
}

let store: StateStore;
beforeEach(() => {
  store = StateStore.open(':memory:', { clock: new ManualClock(10) });
});
afterEach(() => store.close());

const me = { pid: process.pid, token: 'attempt-1' };

describe('preparationLocks.tryLock', () => {
  it('takes a free lock and records who holds it', () => {
    expect(store.preparationLocks.tryLock('c1', me)).toBe(true);
    expect(store.preparationLocks.get('c1')).toEqual({ conversation: 'c1', pid: process.pid, token: 'attempt-1', lockedAt: 10 });
  });

  it('is re-entrant for the same token', () => {
    store.preparationLocks.tryLock('c1', me);
    expect(store.preparationLocks.tryLock('c1', me)).toBe(true);
  });

  it('refuses another token while the holder is alive, even in the same process', () => {
    store.preparationLocks.tryLock('c1', me);
    expect(store.preparationLocks.tryLock('c1', { pid: process.pid, token: 'attempt-2' })).toBe(false);
    expect(store.preparationLocks.get('c1')?.token).toBe('attempt-1');
  });

  it('takes over a stale lock whose pid is dead', () => {
    store.preparationLocks.tryLock('c1', { pid: deadPid(), token: 'crashed' });
    expect(store.preparationLocks.tryLock('c1', me)).toBe(true);
    expect(store.preparationLocks.get('c1')).toMatchObject({ pid: process.pid, token: 'attempt-1' });
  });

  it('locks conversations independently', () => {
    store.preparationLocks.tryLock('c1', me);
    expect(store.preparationLocks.tryLock('c2', { pid: process.pid, token: 'other' })).toBe(true);
  });

  it('refuses a pid that is not a positive integer or an empty token', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) {
      expect(() => store.preparationLocks.tryLock('c1', { pid, token: 't' })).toThrow(StateError);
    }
    expect(() => store.preparationLocks.tryLock('c1', { pid: process.pid, token: '' })).toThrow(/token/);
    expect(store.preparationLocks.get('c1')).toBeNull();
  });

  it('uses the injected liveness check', () => {
    const s = StateStore.open(':memory:', { clock: new ManualClock(), isProcessAlive: () => false });
    try {
      s.preparationLocks.tryLock('c1', me);
      expect(s.preparationLocks.tryLock('c1', { pid: process.pid, token: 'other' })).toBe(true);
    } finally {
      s.close();
    }
  });
});

describe('preparationLocks.unlock', () => {
  it('releases only with the holding token', () => {
    store.preparationLocks.tryLock('c1', me);
    expect(store.preparationLocks.unlock('c1', 'someone-else')).toBe(false);
    expect(store.preparationLocks.get('c1')).not.toBeNull();
    expect(store.preparationLocks.unlock('c1', 'attempt-1')).toBe(true);
    expect(store.preparationLocks.get('c1')).toBeNull();
    expect(store.preparationLocks.tryLock('c1', { pid: process.pid, token: 'attempt-2' })).toBe(true);
  });
});

describe('locks name their process by pid and start time', () => {
  it('a lock whose pid runs with another start time is stale and taken over', () => {
    const liveness = {
      self: { pid: 10, start: 's1' },
      isAlive: (id: { pid: number; start: string | null }) => id.pid === 10 && id.start === 's1',
    };
    const s = StateStore.open(':memory:', { clock: new ManualClock(), liveness });
    try {
      s.preparationLocks.tryLock('c1', { pid: 10, token: 'old', start: 's0' });
      expect(s.preparationLocks.get('c1')).toMatchObject({ pid: 10, start: 's0' });
      expect(s.preparationLocks.tryLock('c1', { pid: 10, token: 'new', start: 's1' })).toBe(true);
      expect(s.preparationLocks.tryLock('c1', { pid: 10, token: 'newer', start: 's1' })).toBe(false);
    } finally {
      s.close();
    }
  });
});
