/**
 * `runSliced`: runs a pass over many entries in slices, yielding to the event loop between them,
 * and synchronously when the pass is short.
 *
 * A pass is written once, as a generator that says `yield` (no value) where it may pause — every
 * `SLICE_ENTRIES` entries, by `sliceEnds`. `runSliced` runs it at once: a pass that finishes
 * before its first pause (a folder of a few thousand entries, nearly every folder) gives its
 * result synchronously, with no promise and no turn of the loop; a longer one goes on after a
 * `setImmediate` turn at each pause and gives a promise. So the walk of a tree of many small
 * folders costs what it did, and one folder of 300,000 entries never holds the loop for the
 * whole pass (SECURITY.md class L: no call blocks the loop more than 100 ms).
 *
 * Like a coroutine in Python's asyncio that awaits `asyncio.sleep(0)` to let others run, with one
 * difference: nothing is scheduled until the first pause.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Entries one slice of a pass handles before pausing (a few milliseconds of work on a busy core). */
export const SLICE_ENTRIES = 2048;

/** A pass that pauses with a bare `yield` and returns its result (see the module comment). */
export type SlicedWork<T> = Generator<void, T, void>;

/**
 * Runs `work` until it returns: its result, synchronously when it never paused, else a promise
 * settled after one turn of the event loop per pause. Throws (or rejects with) what `work` throws.
 */
export function runSliced<T>(work: SlicedWork<T>): T | Promise<T> {
  const first = work.next();
  return first.done ? first.value : resumeSliced(work);
}

async function resumeSliced<T>(work: SlicedWork<T>): Promise<T> {
  for (;;) {
    await yieldToLoop();
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** True after every `SLICE_ENTRIES`th entry (`done`: entries handled so far): the pass pauses there. */
export function sliceEnds(done: number): boolean {
  return done % SLICE_ENTRIES === 0 && done > 0;
}

/** The entries of `items` for which `keep` is true, in order, pausing every `SLICE_ENTRIES` entries. */
export function* filterSliced<T>(items: readonly T[], keep: (item: T) => boolean): SlicedWork<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    if (keep(items[i])) out.push(items[i]);
    if (sliceEnds(i + 1)) yield;
  }
  return out;
}

/** True when `test` is true for some entry of `items`, pausing every `SLICE_ENTRIES` entries. */
export function* someSliced<T>(items: readonly T[], test: (item: T) => boolean): SlicedWork<boolean> {
  for (let i = 0; i < items.length; i++) {
    if (test(items[i])) return true;
    if (sliceEnds(i + 1)) yield;
  }
  return false;
}

/**
 * The two sorted arrays merged into one sorted by `compare` (ties: `a`'s entry first, as a stable
 * sort of `a` followed by `b` gives), pausing every `SLICE_ENTRIES` entries written.
 */
export function* mergeSliced<T>(a: readonly T[], b: readonly T[], compare: (x: T, y: T) => number): SlicedWork<T[]> {
  const out: T[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) {
    out[k] = j >= b.length || (i < a.length && compare(a[i], b[j]) <= 0) ? a[i++] : b[j++];
    if (sliceEnds(k + 1)) yield;
  }
  return out;
}

/**
 * `items` sorted by `compare`, stably (as `Array.prototype.sort`): runs of `SLICE_ENTRIES` sorted
 * one per slice, then merged pairwise with `mergeSliced`. O(n log n); sorts a copy.
 */
export function* sortSliced<T>(items: readonly T[], compare: (a: T, b: T) => number): SlicedWork<T[]> {
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += SLICE_ENTRIES) {
    if (i > 0) yield;
    runs.push(items.slice(i, i + SLICE_ENTRIES).sort(compare));
  }
  while (runs.length > 1) {
    const next: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) next.push(i + 1 < runs.length ? yield* mergeSliced(runs[i], runs[i + 1], compare) : runs[i]);
    runs = next;
  }
  return runs[0] ?? [];
}

/**
 * `each` of every entry of `items`, settled, in order — as `Promise.all(items.map(each))`, with
 * the calls made and awaited `SLICE_ENTRIES` at a time and a turn of the event loop between
 * slices (100,000 promises settled at once run as one long stretch of microtasks). Rejects with
 * the first failure of the first slice that has one.
 */
export async function allSliced<T, R>(items: readonly T[], each: (item: T) => R | Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let from = 0; from < items.length; from += SLICE_ENTRIES) {
    if (from > 0) await yieldToLoop();
    out.push(...(await Promise.all(items.slice(from, from + SLICE_ENTRIES).map(each))));
  }
  return out;
}
