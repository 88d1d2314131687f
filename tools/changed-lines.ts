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
 * needing more than `MAX_EDITS` changed lines is diffed region by region instead, and a region
 * needing more is shown as a whole replacement (lines it shares at its start and end kept).
 */
import { diffLines, type LineChange, type LineEdit, shortestDiff } from './text/index.js';

/** Old plus new lines one diffed window spans at most (when it holds more than one region). */
const WINDOW_MAX_LINES = 20_000;
/** Changed lines past which a window's diff is a whole replacement (bounds time and memory). */
const MAX_EDITS = 1000;

/**
 * A run of changed lines with no unchanged line inside: `removed` lines of the old text (each
 * with its '\n', when it has one) starting at line `oldLine` (0-based) and character `oldFrom`,
 * ending at character `oldTo`, became `added` lines starting at line `newLine` of the new text.
 */
export interface ChangedRun {
  oldLine: number;
  newLine: number;
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
    const window = windowRuns(before, after, first, changes[j] as LineChange, i, j === i);
    if (window) yield* window;
    else for (let k = i; k <= j; k++) yield* windowRuns(before, after, changes[k] as LineChange, changes[k] as LineChange, k, true) ?? [];
    i = j + 1;
  }
}

function spanLines(first: LineChange, last: LineChange): number {
  return last.oldEnd - first.oldStart + (last.newEnd - first.newStart);
}

/**
 * The runs of the window from region `first` to region `last`; null when its diff needs more
 * than `MAX_EDITS` changed lines, unless `orReplace` (then the window is one whole replacement).
 */
function windowRuns(
  before: string,
  after: string,
  first: LineChange,
  last: LineChange,
  change: number,
  orReplace: boolean,
): Generator<ChangedRun> | null {
  const a = linesOf(before, first.oldFrom, last.oldTo);
  const b = linesOf(after, first.newFrom, last.newTo);
  const edits = orReplace ? diffLines(a, b, MAX_EDITS) : shortestDiff(a, b, MAX_EDITS);
  return edits && runsOf(a, b, edits, first, change);
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
    const run: ChangedRun = { oldLine, newLine, oldFrom: oldAt, oldTo: oldAt, removed: [], added: [], change };
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
    yield run;
  }
}

/** The lines of `text[from, to)` (`from` at a line start), each with its '\n' when it has one. */
function linesOf(text: string, from: number, to: number): string[] {
  const lines: string[] = [];
  let at = from;
  while (at < to) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 || nl >= to ? to : nl + 1;
    lines.push(text.slice(at, end));
    at = end;
  }
  return lines;
}
