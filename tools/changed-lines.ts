/**
 * `changedRuns`: the lines a change removed and added, as git's default diff finds them (Myers'
 * shortest edit script), so an `oldString` whose lines mostly stay shows only the lines that
 * changed, not the whole of it removed and added back.
 *
 * Only the window around the changed regions is diffed (the text outside them is the same in
 * both, as git's diff strips a common prefix and suffix), so the cost follows the change, not
 * the file. Regions are diffed together while the window spanning them stays under
 * `WINDOW_MAX_LINES` lines; farther apart, each group is diffed on its own (the result is still
 * exact, only possibly not the shortest when a block moved across a long stretch). A window
 * needing more than `MAX_EDITS` changed lines (known before searching when the two sides share
 * too few lines) is diffed region by region instead, and such a region, or one spanning more
 * than `WINDOW_MAX_LINES`, is shown as a whole replacement.
 */
import { type LineChange, type LineEdit, shortestDiff } from './text/index.js';

/** Old plus new lines one diffed window spans at most; a region spanning more is a whole replacement. */
const WINDOW_MAX_LINES = 20_000;
/** Changed lines past which a window's diff is not searched (bounds time and memory). */
const MAX_EDITS = 1000;
/** Lines of a whole replacement listed: more than any report shows (each line takes 2 characters or more). */
const MAX_LISTED_LINES = 16 * 1024;

/**
 * A run of changed lines with no unchanged line inside: `oldCount` lines of the old text starting
 * at line `oldLine` (0-based) and character `oldFrom`, ending at character `oldTo`, became
 * `newCount` lines starting at line `newLine` of the new text. `removed` and `added` are those
 * lines, each with its '\n' when it has one (only the first `MAX_LISTED_LINES` of a whole
 * replacement of a bigger region).
 */
export interface ChangedRun {
  oldLine: number;
  newLine: number;
  oldCount: number;
  newCount: number;
  oldFrom: number;
  oldTo: number;
  removed: string[];
  added: string[];
  /** The index in `changes` of the first region of the window the run was found in. */
  change: number;
}

/**
 * The runs of changed lines from `before` to `after`, in order, given the changed line ranges
 * `changes` (tools/text/edited-text.ts). Lazy: a window is diffed when its first run is asked for.
 */
export function* changedRuns(before: string, after: string, changes: readonly LineChange[]): Generator<ChangedRun> {
  let i = 0;
  while (i < changes.length) {
    const first = changes[i] as LineChange;
    let j = i;
    while (j + 1 < changes.length && spanLines(first, changes[j + 1] as LineChange) <= WINDOW_MAX_LINES) j++;
    const window = windowRuns(before, after, first, changes[j] as LineChange, i);
    if (window) yield* window;
    else if (i === j) yield wholeReplacement(before, after, first, i);
    else
      for (let k = i; k <= j; k++)
        yield* windowRuns(before, after, changes[k] as LineChange, changes[k] as LineChange, k) ?? [
          wholeReplacement(before, after, changes[k] as LineChange, k),
        ];
    i = j + 1;
  }
}

function spanLines(first: LineChange, last: LineChange): number {
  return last.oldEnd - first.oldStart + (last.newEnd - first.newStart);
}

/** The runs of the window from region `first` to region `last`; null when it is too big or needs more than `MAX_EDITS` changed lines. */
function windowRuns(before: string, after: string, first: LineChange, last: LineChange, change: number): Generator<ChangedRun> | null {
  if (spanLines(first, last) > WINDOW_MAX_LINES) return null;
  const a = linesOf(before, first.oldFrom, last.oldTo);
  const b = linesOf(after, first.newFrom, last.newTo);
  if (a.length + b.length - 2 * sharedLines(a, b) > MAX_EDITS) return null;
  const edits = shortestDiff(a, b, MAX_EDITS);
  return edits && runsOf(a, b, edits, first, change);
}

/** How many lines the two lists have in common, counted with repeats: no diff keeps more. */
function sharedLines(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let shared = 0;
  for (const line of b) {
    const left = counts.get(line);
    if (left) {
      shared++;
      counts.set(line, left - 1);
    }
  }
  return shared;
}

/** A region as every old line removed and every new line added, its lines listed up to `MAX_LISTED_LINES`. */
function wholeReplacement(before: string, after: string, region: LineChange, change: number): ChangedRun {
  return {
    oldLine: region.oldStart,
    newLine: region.newStart,
    oldCount: region.oldEnd - region.oldStart,
    newCount: region.newEnd - region.newStart,
    oldFrom: region.oldFrom,
    oldTo: region.oldTo,
    removed: linesOf(before, region.oldFrom, region.oldTo, MAX_LISTED_LINES),
    added: linesOf(after, region.newFrom, region.newTo, MAX_LISTED_LINES),
    change,
  };
}

function* runsOf(
  a: readonly string[],
  b: readonly string[],
  edits: readonly LineEdit[],
  first: LineChange,
  change: number,
): Generator<ChangedRun> {
  let oldLine = first.oldStart;
  let newLine = first.newStart;
  let oldAt = first.oldFrom;
  let k = 0;
  while (k < edits.length) {
    const edit = edits[k]!;
    if (edit.op === ' ') {
      oldAt += a[edit.index]!.length;
      oldLine++;
      newLine++;
      k++;
      continue;
    }
    const run: ChangedRun = { oldLine, newLine, oldCount: 0, newCount: 0, oldFrom: oldAt, oldTo: oldAt, removed: [], added: [], change };
    for (; k < edits.length && edits[k]!.op !== ' '; k++) {
      const e = edits[k]!;
      if (e.op === '-') {
        const line = a[e.index]!;
        run.removed.push(line);
        oldAt += line.length;
        oldLine++;
      } else {
        run.added.push(b[e.index]!);
        newLine++;
      }
    }
    run.oldTo = oldAt;
    run.oldCount = run.removed.length;
    run.newCount = run.added.length;
    yield run;
  }
}

/** The lines of `text[from, to)` (`from` at a line start), each with its '\n' when it has one; at most `max`. */
function linesOf(text: string, from: number, to: number, max = Number.POSITIVE_INFINITY): string[] {
  const lines: string[] = [];
  let at = from;
  while (at < to && lines.length < max) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 || nl >= to ? to : nl + 1;
    lines.push(text.slice(at, end));
    at = end;
  }
  return lines;
}
