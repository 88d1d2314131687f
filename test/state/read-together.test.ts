/**
 * `StateStore.readTogether` (src/state/store.ts): the reads inside see one state of the database
 * (a change another connection commits meanwhile shows after it, not half-way), answer what `fn`
 * answers, and let what `fn` throws through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';

const open: StateStore[] = [];
let dir: string | undefined;
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function pair(): [StateStore, StateStore] {
  dir = mkdtempSync(join(tmpdir(), 'gatefs-read-together-'));
  const file = join(dir, 'gatefs.db');
  const here = StateStore.open(file, { clock: new ManualClock(100, 1) });
  const there = StateStore.open(file, { clock: new ManualClock(100, 1) });
  open.push(here, there);
  return [here, there];
}

describe('readTogether', () => {
  it('reads one state: a commit made elsewhere in between shows after it', () => {
    const [here, there] = pair();
    here.bindings.register('c', 'impl', true);
    there.bindings.register('w', 'impl', true);
    const seen = here.readTogether(() => {
      const before = here.bindings.stateOf('c')?.version;
      there.bindings.attach('c', 'w', 'shared-read');
      return { before, after: here.bindings.stateOf('c')?.version, bound: here.bindings.bindingsOf('c').length };
    });
    expect(seen.after).toBe(seen.before);
    expect(seen.bound).toBe(1);
    expect(here.bindings.stateOf('c')?.version).not.toBe(seen.before);
    expect(here.bindings.bindingsOf('c')).toHaveLength(2);
  });

  it('answers what fn answers and lets its error through, nested or not', () => {
    const [here] = pair();
    expect(here.readTogether(() => here.readTogether(() => 42))).toBe(42);
    expect(() =>
      here.readTogether(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(here.readTogether(() => here.bindings.stateOf('nobody'))).toBeNull();
  });
});
