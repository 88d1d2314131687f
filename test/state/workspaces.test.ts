/** Workspace records: put, get, list, update, delete, times from the clock, typed errors. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { WorkspaceError } from '../../src/workspace-error.js';

let clock: ManualClock;
let store: StateStore;
beforeEach(() => {
  clock = new ManualClock(1_000);
  store = StateStore.open(':memory:', { clock });
});
afterEach(() => store.close());

const draft = (conversation: string) =>
  ({ conversation, role: 'agent', backend: 'worktree', guarantee: 'confined', state: 'preparing' }) as const;

describe('workspace records', () => {
  it('put fills nullable fields with null, data with {}, and both times from the clock', () => {
    expect(store.workspaces.put(draft('c1'))).toEqual({
      ...draft('c1'),
      branch: null,
      baseRef: null,
      pinnedSha: null,
      checkoutPath: null,
      error: null,
      data: {},
      createdAt: 1_000,
      updatedAt: 1_000,
    });
    expect(store.workspaces.get('c1')?.createdAt).toBe(1_000);
  });

  it('get of an unknown conversation is null', () => {
    expect(store.workspaces.get('nobody')).toBeNull();
  });

  it('put again replaces the fields but keeps createdAt', () => {
    store.workspaces.put(draft('c1'));
    clock.advance(500);
    const again = store.workspaces.put({ ...draft('c1'), state: 'ready', branch: 'gatefs/c1', pinnedSha: 'f00d' });
    expect(again).toMatchObject({ state: 'ready', branch: 'gatefs/c1', pinnedSha: 'f00d', createdAt: 1_000, updatedAt: 1_500 });
  });

  it('a record read earlier can be spread and put back; its stale times are not trusted', () => {
    const first = store.workspaces.put(draft('c1'));
    clock.advance(20);
    expect(store.workspaces.put({ ...first, state: 'ready', createdAt: 0, updatedAt: 0 })).toMatchObject({
      state: 'ready',
      createdAt: 1_000,
      updatedAt: 1_020,
    });
  });

  it('list is sorted by conversation, whatever the insertion order', () => {
    for (const c of ['m', 'a', 'z', 'b']) store.workspaces.put(draft(c));
    expect(store.workspaces.list().map((w) => w.conversation)).toEqual(['a', 'b', 'm', 'z']);
  });

  it('update changes only the given fields and bumps updatedAt', () => {
    store.workspaces.put({ ...draft('c1'), branch: 'gatefs/c1', checkoutPath: '/host/wt/c1', data: { mounts: ['/data/out'] } });
    clock.advance(10);
    const updated = store.workspaces.update('c1', { state: 'ready', pinnedSha: 'abc123' });
    expect(updated).toMatchObject({
      state: 'ready',
      pinnedSha: 'abc123',
      branch: 'gatefs/c1',
      checkoutPath: '/host/wt/c1',
      data: { mounts: ['/data/out'] },
      createdAt: 1_000,
      updatedAt: 1_010,
    });
    expect(store.workspaces.get('c1')).toEqual(updated);
  });

  it('update replaces data whole and can set a field back to null', () => {
    store.workspaces.put({ ...draft('c1'), error: 'boom', data: { a: 1, b: 2 } });
    expect(store.workspaces.update('c1', { error: null, data: { c: 3 } })).toMatchObject({ error: null, data: { c: 3 } });
  });

  it('update of an unknown conversation is UNKNOWN_CONVERSATION naming it', () => {
    let caught: unknown;
    try {
      store.workspaces.update('ghost', { state: 'ready' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(WorkspaceError);
    expect(caught).toMatchObject({ code: 'UNKNOWN_CONVERSATION', data: { conversation: 'ghost' } });
    expect(store.workspaces.get('ghost')).toBeNull();
  });

  it('delete removes the record and says whether there was one', () => {
    store.workspaces.put(draft('c1'));
    expect(store.workspaces.delete('c1')).toBe(true);
    expect(store.workspaces.delete('c1')).toBe(false);
    expect(store.workspaces.list()).toEqual([]);
  });

  it('the database refuses a state outside the lifecycle', () => {
    expect(() => store.workspaces.put({ ...draft('c1'), state: 'done' as 'ready' })).toThrow(/CHECK constraint/);
    expect(store.workspaces.get('c1')).toBeNull();
  });

  it('a failed record keeps its reason; a released one is a tombstone that stays listed', () => {
    store.workspaces.put({ ...draft('a'), state: 'failed', error: 'git worktree add: exit 128' });
    store.workspaces.put({ ...draft('b'), state: 'released' });
    expect(store.workspaces.list().map((w) => [w.conversation, w.state, w.error])).toEqual([
      ['a', 'failed', 'git worktree add: exit 128'],
      ['b', 'released', null],
    ]);
  });
});
