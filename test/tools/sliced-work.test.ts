/**
 * Passes over many entries run in slices (tools/sliced-work.ts) and big tables in shards
 * (tools/sharded-map.ts): the answers are those of the plain pass, `Map` and `Set`; a short pass
 * answers at once, a long one lets the event loop turn between its slices.
 */
import { describe, expect, it } from 'vitest';
import {
  SLICE_ENTRIES,
  allSliced,
  filterSliced,
  mergeSliced,
  runSliced,
  someSliced,
  sortSliced,
  type SlicedWork,
} from '../../tools/sliced-work.js';
import { SHARD_ENTRIES, ShardedMap, ShardedSet } from '../../tools/sharded-map.js';

/** Runs `work` while a chain of `setImmediate` callbacks counts the turns of the loop it lets through. */
async function turnsDuring<T>(work: () => T | Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    return { value, turns };
  } finally {
    running = false;
  }
}

const numbers = (n: number) => Array.from({ length: n }, (_, i) => (i * 7919) % n);
const byValue = (a: number, b: number) => a - b;

describe('a sliced pass', () => {
  it('answers synchronously when it is shorter than a slice', () => {
    const short = runSliced(filterSliced(numbers(100), (x) => x % 2 === 0));
    expect(short).not.toBeInstanceOf(Promise);
    expect(short).toEqual(numbers(100).filter((x) => x % 2 === 0));
  });

  it('gives the plain answer over many slices, letting the event loop turn between them', async () => {
    const items = numbers(10 * SLICE_ENTRIES + 17);
    const pending = runSliced(filterSliced(items, (x) => x % 3 === 0));
    expect(pending).toBeInstanceOf(Promise);
    const { value, turns } = await turnsDuring(() => pending);
    expect(value).toEqual(items.filter((x) => x % 3 === 0));
    expect(turns).toBeGreaterThanOrEqual(9);
  });

  it('finds, merges and sorts as some, a stable sort of a then b, and Array.prototype.sort do', async () => {
    const items = numbers(5 * SLICE_ENTRIES + 3);
    expect(await runSliced(someSliced(items, (x) => x === items.length - 1))).toBe(true);
    expect(await runSliced(someSliced(items, (x) => x < 0))).toBe(false);
    // Equal keys: a's entries come first, each side in its own order (the tag shows it).
    const a = items.map((x) => ({ key: x >> 4, tag: `a${x}` })).sort((p, q) => p.key - q.key);
    const b = items.map((x) => ({ key: x >> 3, tag: `b${x}` })).sort((p, q) => p.key - q.key);
    const byKey = (p: { key: number }, q: { key: number }) => p.key - q.key;
    expect(await runSliced(mergeSliced(a, b, byKey))).toEqual([...a, ...b].sort(byKey));
    const tagged = items.map((x, i) => ({ key: x % 1000, i }));
    expect(await runSliced(sortSliced(tagged, byKey))).toEqual([...tagged].sort(byKey));
    expect(await runSliced(sortSliced([], byValue))).toEqual([]);
  });

  it('ends with the error the pass throws: thrown before its first pause, rejected after one', async () => {
    function* failing(pauses: boolean): SlicedWork<number> {
      for (let i = 0; i < 3 * SLICE_ENTRIES; i++) {
        if (i === 2 * SLICE_ENTRIES + 5) throw new Error('in the third slice');
        if (pauses && (i + 1) % SLICE_ENTRIES === 0) yield;
      }
      return 0;
    }
    expect(() => runSliced(failing(false))).toThrow('in the third slice');
    await expect(runSliced(failing(true))).rejects.toThrow('in the third slice');
  });

  it('settles every call in order, as Promise.all, and rejects with a failure', async () => {
    const items = numbers(3 * SLICE_ENTRIES);
    expect(await allSliced(items, async (x) => x * 2)).toEqual(items.map((x) => x * 2));
    await expect(
      allSliced(items, async (x) => {
        if (x === 5) throw new Error('five');
        return x;
      }),
    ).rejects.toThrow('five');
  });
});

describe('a table in shards', () => {
  it('answers as a Map and a Set across shards, in insertion order', () => {
    const keys = Array.from({ length: 2 * SHARD_ENTRIES + 10 }, (_, i) => ({ i }));
    const map = new ShardedMap<{ i: number }, number>();
    const set = new ShardedSet<{ i: number }>();
    for (const k of keys) {
      map.set(k, k.i);
      set.add(k);
    }
    // Setting or adding a key held in an earlier shard changes it there.
    map.set(keys[3], -3);
    set.add(keys[3]);
    expect(map.size).toBe(keys.length);
    expect(set.size).toBe(keys.length);
    expect(map.get(keys[3])).toBe(-3);
    expect(map.get(keys[SHARD_ENTRIES + 1])).toBe(SHARD_ENTRIES + 1);
    expect(map.get({ i: 1 })).toBeUndefined();
    expect(map.has(keys[keys.length - 1])).toBe(true);
    expect(set.has(keys[0])).toBe(true);
    expect(set.has({ i: 0 })).toBe(false);
    expect([...set]).toEqual(keys);
    expect([...map].map(([k, v]) => [k.i, v])).toEqual(keys.map((k) => [k.i, k.i === 3 ? -3 : k.i]));
  });

  it('is one Map and one Set below a shard, and goes on across the boundary by addNew', () => {
    const map = new ShardedMap<string, number>();
    const set = new ShardedSet<number>();
    for (const k of ['b', 'a', 'b']) map.set(k, k.charCodeAt(0));
    expect([...map]).toEqual([
      ['b', 98],
      ['a', 97],
    ]);
    expect([map.size, map.has('a'), map.get('c')]).toEqual([2, true, undefined]);
    for (let i = 0; i < SHARD_ENTRIES + 3; i++) set.addNew(i);
    expect(set.size).toBe(SHARD_ENTRIES + 3);
    expect([set.has(0), set.has(SHARD_ENTRIES + 2), set.has(-1)]).toEqual([true, true, false]);
    expect([...set].slice(SHARD_ENTRIES - 1)).toEqual([SHARD_ENTRIES - 1, SHARD_ENTRIES, SHARD_ENTRIES + 1, SHARD_ENTRIES + 2]);
  });
});
