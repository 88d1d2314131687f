/**
 * The agent model's state (src/state/binding-table.ts): a conversation's own workspace held
 * exclusive-write from registration, shared-read bindings beside one writer, one writer per
 * workspace (also against a second connection to the same file), mode changes kept as history,
 * the active workspace falling back to the own one, and a release ending every binding of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';
import { isWorkspaceError } from '../../src/workspace-error.js';

let clock: ManualClock;
let store: StateStore;
beforeEach(() => {
  clock = new ManualClock(100, 1);
  store = StateStore.open(':memory:', { clock });
  store.bindings.register('a', 'impl', true);
  store.bindings.register('b', 'review', true);
  store.bindings.register('s', 'agent', false);
});
afterEach(() => store.close());

function occupiedBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    if (isWorkspaceError(e, 'OCCUPIED')) return e.data.holder;
    throw e;
  }
  throw new Error('expected OCCUPIED');
}

const modes = (holder: string) => store.bindings.bindingsOf(holder).map((b) => `${b.workspace}:${b.mode}`);

describe('bindings', () => {
  it('registration records the agent, the own workspace active, and the own workspace exclusive-write for an isolated backend only', () => {
    expect(store.bindings.stateOf('a')).toEqual({ conversation: 'a', agent: 'impl', active: 'a', version: 0 });
    expect(modes('a')).toEqual(['a:exclusive-write']);
    expect(modes('s')).toEqual([]);
    store.bindings.register('a', 'other', true);
    expect(store.bindings.stateOf('a')?.agent).toBe('impl');
    expect(store.bindings.historyOf('a')).toHaveLength(1);
  });

  it('shared-read coexists with the writer; a second writer is refused naming the holder, and nothing changes', () => {
    store.bindings.attach('b', 'a', 'shared-read');
    expect(store.bindings.holdersOf('a').map((r) => `${r.holder}:${r.mode}`)).toEqual(['a:exclusive-write', 'b:shared-read']);
    const before = store.bindings.stateOf('b')?.version;
    expect(occupiedBy(() => store.bindings.attach('b', 'a', 'exclusive-write'))).toBe('a');
    expect(modes('b')).toEqual(['b:exclusive-write', 'a:shared-read']);
    expect(store.bindings.stateOf('b')?.version).toBe(before);
  });

  it('giving the own write up lets another take it; taking it back is refused until that one lets go', () => {
    store.bindings.attach('a', 'a', 'shared-read');
    store.bindings.attach('b', 'a', 'exclusive-write');
    expect(store.bindings.writerOf('a')).toBe('b');
    expect(occupiedBy(() => store.bindings.attach('a', 'a', 'exclusive-write'))).toBe('b');
    store.bindings.detach('b', 'a');
    expect(store.bindings.attach('a', 'a', 'exclusive-write')).toMatchObject({ holder: 'a', own: true, mode: 'exclusive-write' });
    expect(store.bindings.historyOf('a').map((r) => [r.holder, r.mode, r.endReason])).toEqual([
      ['a', 'exclusive-write', 'mode-change'],
      ['a', 'shared-read', 'mode-change'],
      ['b', 'exclusive-write', 'detach'],
      ['a', 'exclusive-write', null],
    ]);
  });

  it('the same mode again returns the binding it has; every change moves the version', () => {
    const first = store.bindings.attach('b', 'canonical', 'shared-read');
    const v = store.bindings.stateOf('b')!.version;
    expect(store.bindings.attach('b', 'canonical', 'shared-read')).toEqual(first);
    expect(store.bindings.stateOf('b')!.version).toBe(v);
    store.bindings.switchTo('b', 'canonical');
    expect(store.bindings.stateOf('b')).toMatchObject({ active: 'canonical', version: v + 1 });
  });

  it('detaching the active workspace makes the own one active again; detaching nothing answers null', () => {
    store.bindings.attach('b', 'canonical', 'shared-read');
    store.bindings.switchTo('b', 'canonical');
    expect(store.bindings.detach('b', 'canonical')).toMatchObject({ workspace: 'canonical', endReason: 'detach' });
    expect(store.bindings.stateOf('b')?.active).toBe('b');
    expect(store.bindings.detach('b', 'canonical')).toBeNull();
  });

  it("a release ends the conversation's bindings and every other holder's binding of its workspace", () => {
    store.bindings.attach('a', 'canonical', 'exclusive-write');
    store.bindings.attach('b', 'a', 'shared-read');
    store.bindings.switchTo('b', 'a');
    expect(store.bindings.releaseWorkspace('a')).toEqual(['b']);
    expect(modes('a')).toEqual([]);
    expect(store.bindings.writerOf('canonical')).toBeNull();
    expect(modes('b')).toEqual(['b:exclusive-write']);
    expect(store.bindings.stateOf('b')?.active).toBe('b');
    expect(store.bindings.historyOfHolder('b').find((r) => r.workspace === 'a')?.endReason).toBe('workspace-released');
  });

  it('unregister removes what a rolled-back preparation recorded', () => {
    store.bindings.unregister('a');
    expect(store.bindings.stateOf('a')).toBeNull();
    expect(store.bindings.historyOf('a')).toEqual([]);
  });

  it('two connections to one database: exactly one takes exclusive-write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-bindings-'));
    try {
      const one = StateStore.open(join(dir, 'gatefs.db'), { clock });
      const two = StateStore.open(join(dir, 'gatefs.db'), { clock });
      one.bindings.register('x', 'x', false);
      two.bindings.register('y', 'y', false);
      one.bindings.attach('x', 'canonical', 'exclusive-write');
      expect(occupiedBy(() => two.bindings.attach('y', 'canonical', 'exclusive-write'))).toBe('x');
      expect(two.bindings.writerOf('canonical')).toBe('x');
      one.close();
      two.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
