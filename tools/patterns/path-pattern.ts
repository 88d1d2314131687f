/**
 * `PathPattern`: a sequence of segment tests and globstars (`**` segments), matched against a
 * '/'-separated path. Globs and anchored `.gitignore` rules both compile to it.
 *
 * A globstar matches any number of whole segments, at least `min` (0, or 1 for git's trailing
 * `/**`). The segments between globstars form runs; the first run is anchored at the start, the
 * last at the end, and each middle run is placed at its leftmost fit: for fixed-length runs
 * separated by "any number of segments", the leftmost fit never loses a match, so no choice is
 * ever revisited. Bound: each (path segment, pattern segment) pair is compared at most once per
 * run position, so a path of n code units against a pattern of m tokens costs at most about
 * n·m steps, whatever the number of globstars (`a/**\/a/**\/…/b` over a 1,000-deep path included).
 */
import type { WorkCounter } from './match-work.js';
import type { SegmentTest } from './segment-matcher.js';

/** One item of a path pattern: a segment test, or a globstar with its minimum segment count. */
export type PathItem = SegmentTest | { readonly globstar: true; readonly min: number };

interface Gap {
  /** Fewest segments the globstar before `run` matches. */
  readonly min: number;
  readonly run: readonly SegmentTest[];
}

// Segment bounds of the path being matched, reused across calls (matching is synchronous), and
// kept for the next call on the same path (many rules are tried on one path in a row).
let starts = new Int32Array(64);
let ends = new Int32Array(64);
let boundsOf: string | undefined;
let boundsFrom = -1;
let boundsCount = 0;

/** Splits `path.slice(from)` at '/' into `starts`/`ends`; returns the segment count and adds its steps. */
function segmentBounds(path: string, from: number, work: WorkCounter): number {
  if (path === boundsOf && from === boundsFrom) {
    work.steps += 1;
    return boundsCount;
  }
  work.steps += path.length - from + 1;
  boundsOf = path;
  boundsFrom = from;
  boundsCount = splitBounds(path, from);
  return boundsCount;
}

function splitBounds(path: string, from: number): number {
  let n = 0;
  let at = from;
  for (;;) {
    if (n === starts.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      starts = grow(starts);
      ends = grow(ends);
    }
    const slash = path.indexOf('/', at);
    starts[n] = at;
    ends[n] = slash === -1 ? path.length : slash;
    n++;
    if (slash === -1) return n;
    at = slash + 1;
  }
}

/** A compiled path pattern (see the module comment). */
export class PathPattern {
  private readonly head: readonly SegmentTest[];
  private readonly gaps: readonly Gap[];
  private readonly minSegments: number;
  private readonly needles: readonly string[];

  constructor(items: readonly PathItem[]) {
    const runs: SegmentTest[][] = [[]];
    const mins: number[] = [];
    let lastWasGlobstar = false;
    for (const item of items) {
      if (typeof item === 'function') {
        runs[runs.length - 1].push(item);
        lastWasGlobstar = false;
      } else if (lastWasGlobstar) {
        mins[mins.length - 1] += item.min; // `**/**` is one globstar
      } else {
        mins.push(item.min);
        runs.push([]);
        lastWasGlobstar = true;
      }
    }
    this.head = runs[0];
    this.gaps = mins.map((min, i) => ({ min, run: runs[i + 1] }));
    this.minSegments = runs.reduce((n, r) => n + r.length, 0) + mins.reduce((n, m) => n + m, 0);
    // A plain segment of a middle run appears as text in any matching path.
    this.needles = this.gaps.slice(0, -1).flatMap((g) => g.run.flatMap((t) => (t.literal ? [t.literal] : [])));
  }

  /** True when `path.slice(from)` (segments without empty ones) matches. */
  matches(path: string, from: number, work: WorkCounter): boolean {
    const head = this.head;
    const gaps = this.gaps;
    // The leading segments one at a time: most paths fail on their first segment.
    let at = from;
    for (let j = 0; j < head.length; j++) {
      if (at > path.length) return false; // fewer segments than the pattern
      const literal = head[j].literal;
      if (literal !== undefined) {
        // Plain text: compared where it starts, before looking for the segment's end.
        work.steps += literal.length + 1;
        if (!path.startsWith(literal, at)) return false;
        const after = at + literal.length;
        if (after < path.length && path.charCodeAt(after) !== 47) return false;
        if (gaps.length === 0 && j === head.length - 1 && after < path.length) return false; // more segments
        at = after + 1;
        continue;
      }
      const slash = path.indexOf('/', at);
      const end = slash === -1 ? path.length : slash;
      work.steps += 1;
      if (gaps.length === 0 && j === head.length - 1 && slash !== -1) return false; // more segments
      if (!head[j](path, at, end, work)) return false;
      at = end + 1;
    }
    if (gaps.length === 0) return true;
    // Cheap refusals before the segments are found: a one-segment tail tested on the last
    // segment, and the plain segments the middle runs need searched as text.
    const tail0 = gaps[gaps.length - 1];
    const tailChecked = tail0.run.length === 1 && at <= path.length;
    if (tailChecked) {
      const last = Math.max(at, path.lastIndexOf('/') + 1);
      work.steps += 1;
      if (!tail0.run[0](path, last, path.length, work)) return false;
      // `**/x` (the common shape): nothing more to place, only the globstar's minimum to check.
      if (gaps.length === 1) return tail0.min === 0 || path.indexOf('/', at) !== -1;
    }
    for (const needle of this.needles) {
      work.steps += ((path.length - at) >> 3) + 1;
      if (path.indexOf(needle, at) === -1) return false;
    }
    const n = at > path.length ? 0 : segmentBounds(path, at, work);
    if (n < this.minSegments - head.length) return false;
    const tail = tail0;
    const tailAt = n - tail.run.length;
    if (!tailChecked && !runMatchesAt(tail.run, path, tailAt, work)) return false;
    let pos = 0;
    const limit = tailAt - tail.min; // the middle runs end at or before this segment
    for (let g = 0; g < gaps.length - 1; g++) {
      const { min, run } = gaps[g];
      let atSeg = pos + min;
      while (atSeg + run.length <= limit && !runMatchesAt(run, path, atSeg, work)) atSeg++;
      if (atSeg + run.length > limit) return false;
      pos = atSeg + run.length;
    }
    return pos <= limit;
  }

  /**
   * False only when no path strictly below the folder `path.slice(from)` can match: its
   * segments must fit the pattern's leading segments; a globstar reached means anything may
   * lie below.
   */
  mayMatchBelow(path: string, from: number, work: WorkCounter): boolean {
    const n = from >= path.length ? 0 : segmentBounds(path, from, work);
    const head = this.head;
    if (this.gaps.length === 0 && n >= head.length) return false;
    for (let j = 0; j < Math.min(n, head.length); j++) if (!head[j](path, starts[j], ends[j], work)) return false;
    return true;
  }

  /**
   * The only names directly inside the folder `path` (from the start, '' for it) that can match
   * or lead to a match: the texts the pattern's next leading segment spells out (`[]` when the
   * folder's own segments already fail, or the pattern ends above it); undefined when any name
   * may (a wildcard segment, or a globstar reached).
   */
  namesBelow(path: string, work: WorkCounter): readonly string[] | undefined {
    const n = path === '' ? 0 : segmentBounds(path, 0, work);
    const head = this.head;
    if (n >= head.length) return this.gaps.length === 0 ? [] : undefined;
    for (let j = 0; j < n; j++) if (!head[j](path, starts[j], ends[j], work)) return [];
    return head[n].literals?.filter(isEntryName);
  }
}

/** True for a name a walk may look up: never '', '.', '..', nor anything with '/' or NUL (no entry is named so). */
export function isEntryName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

function runMatchesAt(run: readonly SegmentTest[], path: string, at: number, work: WorkCounter): boolean {
  for (let j = 0; j < run.length; j++) if (!run[j](path, starts[at + j], ends[at + j], work)) return false;
  return true;
}
