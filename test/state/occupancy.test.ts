/**
 * Occupancy rules: shared-read holders coexist, exclusive-write excludes everyone else, the
 * refusal names the current holder, and `blockingHolder` answers what the gate needs per write.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { WorkspaceError } from '../../src/workspace-error.js';

let clock: ManualClock;
let store: StateStore;
beforeEach(() => {
  clock = new ManualClock(100, 1);
  store = StateStore.open(':memory:', { clock });
});
afterEach(() => store.close());

const acquire = (holder: string, mode: 'shared-read' | 'exclusive-write', conversation = 'c1') =>
  store.occupancy.acquire({ conversation, holder, mode }).record;

function refusal(fn: () => unknown): WorkspaceError {
  try {
    fn();
  } catch (e) {
    if (e instanceof WorkspaceError) return e;
    throw e;
  }
  throw new Error('expected OCCUPIED');
}

describe('occupancy.acquire', () => {
  it('records holder, mode and time', () => {
    expect(acquire('a', 'shared-read')).toEqual({
      conversation: 'c1',
      holder: 'a',
      mode: 'shared-read',
      acquiredAt: 100,
      releasedAt: null,
    });
  });

  it('lets several holders read together', () => {
    acquire('a', 'shared-read');
    acquire('b', 'shared-read');
    expect(store.occupancy.current('c1').map((o) => o.holder)).toEqual(['a', 'b']);
  });

  it('refuses exclusive-write while another holder reads, naming that holder', () => {
    acquire('reader', 'shared-read');
    const e = refusal(() => acquire('writer', 'exclusive-write'));
    expect(e.code).toBe('OCCUPIED');
    expect(e.data).toEqual({
      conversation: 'c1',
      holder: 'reader',
      mode: 'shared-read',
      requestedBy: 'writer',
      requestedMode: 'exclusive-write',
    });
    expect(e.message).toContain("'reader'");
  });

  it('refuses any mode while another holder writes', () => {
    acquire('writer', 'exclusive-write');
    expect(refusal(() => acquire('x', 'shared-read')).data.holder).toBe('writer');
    expect(refusal(() => acquire('y', 'exclusive-write')).data.holder).toBe('writer');
    expect(store.occupancy.current('c1').map((o) => o.holder)).toEqual(['writer']);
  });

  it('re-acquiring the same mode is fine and keeps the original record', () => {
    const first = acquire('w', 'exclusive-write');
    expect(acquire('w', 'exclusive-write')).toEqual(first);
    expect(store.occupancy.historyOf('c1')).toHaveLength(1);
  });

  it('the sole holder may upgrade and downgrade; history keeps each step', () => {
    acquire('w', 'shared-read');
    expect(acquire('w', 'exclusive-write').mode).toBe('exclusive-write');
    expect(acquire('w', 'shared-read').mode).toBe('shared-read');
    expect(store.occupancy.current('c1')).toHaveLength(1);
    expect(store.occupancy.historyOf('c1').map((o) => [o.mode, o.releasedAt === null])).toEqual([
      ['shared-read', false],
      ['exclusive-write', false],
      ['shared-read', true],
    ]);
  });

  it('an upgrade is refused while another holder reads, and the reader keeps its mode', () => {
    acquire('a', 'shared-read');
    acquire('b', 'shared-read');
    expect(refusal(() => acquire('a', 'exclusive-write')).data.holder).toBe('b');
    expect(store.occupancy.current('c1').map((o) => `${o.holder}:${o.mode}`)).toEqual(['a:shared-read', 'b:shared-read']);
  });

  it('conversations are independent', () => {
    acquire('w', 'exclusive-write', 'c1');
    expect(acquire('other', 'exclusive-write', 'c2').holder).toBe('other');
  });
});

describe('occupancy.release', () => {
  it('frees the conversation for the next writer and keeps the released record', () => {
    acquire('w', 'exclusive-write');
    clock.advance(50);
    expect(store.occupancy.release('c1', 'w')).toBe(true);
    expect(store.occupancy.current('c1')).toEqual([]);
    expect(acquire('next', 'exclusive-write').holder).toBe('next');
    const [released] = store.occupancy.historyOf('c1');
    expect(released).toMatchObject({ holder: 'w', releasedAt: 151 });
  });

  it('releasing what is not held says false and changes nothing', () => {
    acquire('a', 'shared-read');
    expect(store.occupancy.release('c1', 'b')).toBe(false);
    expect(store.occupancy.current('c1')).toHaveLength(1);
  });
});

describe('occupancy.blockingHolder', () => {
  it('is null when nobody writes', () => {
    expect(store.occupancy.blockingHolder('c1', 'me')).toBeNull();
    acquire('reader', 'shared-read');
    expect(store.occupancy.blockingHolder('c1', 'me')).toBeNull();
    expect(store.occupancy.blockingHolder('c1', undefined)).toBeNull();
  });

  it('names the writer to everyone but the writer, anonymous callers included', () => {
    acquire('w', 'exclusive-write');
    expect(store.occupancy.blockingHolder('c1', 'w')).toBeNull();
    expect(store.occupancy.blockingHolder('c1', 'other')).toBe('w');
    expect(store.occupancy.blockingHolder('c1', undefined)).toBe('w');
    expect(store.occupancy.blockingHolder('c2', 'other')).toBeNull();
  });

  it('stops blocking once the writer releases', () => {
    acquire('w', 'exclusive-write');
    store.occupancy.release('c1', 'w');
    expect(store.occupancy.blockingHolder('c1', 'other')).toBeNull();
  });
});

describe('holders whose process is gone', () => {
  const proc = (pid: number) => ({ pid, start: `boot:${pid}` });

  it('records the process that took each occupancy', () => {
    expect(
      store.occupancy.acquire({ conversation: 'c1', holder: 'a', mode: 'exclusive-write', process: proc(42) }, () => false).record,
    ).toMatchObject({ holder: 'a', process: { pid: 42, start: 'boot:42' } });
    expect(store.occupancy.current('c1')[0]?.process).toEqual({ pid: 42, start: 'boot:42' });
  });

  it('occupy ends the gone holders in the same transaction and reports them; live ones still refuse', () => {
    store.occupancy.acquire({ conversation: 'c1', holder: 'dead', mode: 'exclusive-write', process: proc(1) }, () => false);
    const gone = (r: { process?: { pid: number } }) => r.process?.pid === 1;
    const taken = store.occupancy.acquire({ conversation: 'c1', holder: 'next', mode: 'exclusive-write', process: proc(2) }, gone);
    expect(taken.record.holder).toBe('next');
    expect(taken.ended.map((r) => r.holder)).toEqual(['dead']);
    expect(store.occupancy.historyOf('c1').find((r) => r.holder === 'dead')?.releasedAt).not.toBeNull();
    expect(() => store.occupancy.acquire({ conversation: 'c1', holder: 'third', mode: 'shared-read', process: proc(3) }, gone)).toThrow(
      WorkspaceError,
    );
  });

  it('occupancy.blockingOccupant names the blocker with its process; occupancy.end ends it once', () => {
    expect(store.occupancy.blockingOccupant('c1', 'me')).toBeNull();
    store.occupancy.acquire({ conversation: 'c1', holder: 'w', mode: 'exclusive-write', process: proc(5) }, () => false);
    const blocker = store.occupancy.blockingOccupant('c1', 'me')!;
    expect(blocker).toMatchObject({ holder: 'w', process: { pid: 5 } });
    expect(store.occupancy.blockingOccupant('c1', 'w')).toBeNull();
    expect(store.occupancy.end(blocker.id)).toBe(true);
    expect(store.occupancy.end(blocker.id)).toBe(false);
    expect(store.occupancy.blockingOccupant('c1', 'me')).toBeNull();
  });
});
