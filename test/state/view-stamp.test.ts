/**
 * The per-call freshness read of a view (src/state/view-stamp.ts): one statement answers what
 * `RunTable.lastHandoffOf` and `BindingTable.stateOf(c).version` answer, also for a change made
 * through a second connection to the same file (another process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';

const open: StateStore[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

function storeAt(file: string): StateStore {
  const store = StateStore.open(file, { clock: new ManualClock(100, 1) });
  open.push(store);
  return store;
}

/** What the two separate reads answer, in the stamp's shape. */
function separately(store: StateStore, run: string, conversation: string) {
  return { lastHandoff: store.runs.lastHandoffOf(run), bindingsVersion: store.bindings.stateOf(conversation)?.version ?? null };
}

function handOff(store: StateStore, conversation: string, run: string, role: string): void {
  const visit = store.runs.startVisit(conversation, run, role, () => true);
  if (!visit) throw new Error('no visit');
  store.runs.recordHandoff({
    run,
    conversation,
    role,
    visit: visit.visit,
    kind: 'handoff',
    to: 'taker',
    message: null,
    folder: null,
    artifacts: [],
  });
}

describe('view stamps', () => {
  it('no run and no agents row: no handoff and no version', () => {
    const store = storeAt(':memory:');
    expect(store.viewStamps.of('r', 'c')).toEqual({ lastHandoff: 0, bindingsVersion: null });
    expect(store.viewStamps.of('r', 'c')).toEqual(separately(store, 'r', 'c'));
  });

  it('follows bindings and handoffs as the separate reads do', () => {
    const store = storeAt(':memory:');
    store.bindings.register('c', 'impl', true);
    store.bindings.register('w', 'impl', true);
    expect(store.viewStamps.of('r', 'c')).toEqual({ lastHandoff: 0, bindingsVersion: 0 });
    store.bindings.attach('c', 'w', 'shared-read');
    handOff(store, 'm', 'r', 'maker');
    const stamp = store.viewStamps.of('r', 'c');
    expect(stamp.bindingsVersion).toBeGreaterThan(0);
    expect(stamp.lastHandoff).toBeGreaterThan(0);
    expect(stamp).toEqual(separately(store, 'r', 'c'));
    // Another run's handoffs are not this run's.
    expect(store.viewStamps.of('other', 'c').lastHandoff).toBe(0);
  });

  it('a change committed through another connection shows on the next read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-view-stamp-'));
    folders.push(dir);
    const here = storeAt(join(dir, 'gatefs.db'));
    const there = storeAt(join(dir, 'gatefs.db'));
    here.bindings.register('c', 'impl', true);
    there.bindings.register('w', 'impl', true);
    const before = here.viewStamps.of('r', 'c');
    there.bindings.attach('c', 'w', 'shared-read');
    handOff(there, 'm', 'r', 'maker');
    const after = here.viewStamps.of('r', 'c');
    expect(after.bindingsVersion).not.toBe(before.bindingsVersion);
    expect(after.lastHandoff).not.toBe(before.lastHandoff);
    expect(after).toEqual(separately(here, 'r', 'c'));
  });
});
