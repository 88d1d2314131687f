/**
 * What edit shows of a change, so checking it needs no second read: a unified diff (as
 * `git diff` prints one file: only the lines that changed, by the shortest line diff of the
 * changed window (tools/changed-lines.ts), three lines of context) and a snippet of the new text, numbered as
 * read numbers lines, four lines around each change.
 *
 * Both are built from the text around the changes only (no index of the whole file), so their
 * cost follows the size of the change, not of the file. Both are cut at `REPORT_MAX_CHARS`
 * characters on a line boundary, with a last line saying so; lines in them longer than 2,000
 * characters are cut like read cuts them.
 */
import { type ChangedRun, changedRuns } from './changed-lines.js';
import type { LineChange } from './text/index.js';
import { cutLine, numberedLine } from './text/index.js';

/** Lines of context around each hunk of the diff (git's default). */
const DIFF_CONTEXT_LINES = 3;
/** Lines of the new text shown around each change in the snippet. */
const SNIPPET_CONTEXT_LINES = 4;
/** Longest diff, and longest snippet, in characters. */
const REPORT_MAX_CHARS = 16 * 1024;

/** The diff and the snippet of one change, and whether either was cut. */
interface ChangeReport {
  diff: string;
  snippet: string;
  truncated: boolean;
}

/** One line of a text: its characters without the terminator, and whether it has one. */
interface Line {
  text: string;
  newline: boolean;
}

/**
 * The report of a change from `before` to `after`, whose changed line ranges are `changes`
 * (tools/edited-text.ts). `path` names the file in the diff's `---`/`+++` lines.
 */
export function changeReport(path: string, before: string, after: string, changes: readonly LineChange[]): ChangeReport {
  const diff = unifiedDiff(path, before, after, changes);
  const snippet = snippetLines(after, changes);
  return { diff: diff.text(), snippet: snippet.text(), truncated: diff.cut || snippet.cut };
}

/**
 * Lines up to `REPORT_MAX_CHARS` characters: past that, `push` drops them and notes the change
 * being shown, so the report says how many changes it left out (and stops being built).
 */
class CappedLines {
  private readonly lines: string[] = [];
  private size = 0;
  cut = false;
  private left = 0;

  /** Adds a line; false once over the cap (`remaining`: the changes not shown from here on). */
  push(line: string, remaining: number): boolean {
    if (this.cut) return false;
    this.size += line.length + 1;
    if (this.size > REPORT_MAX_CHARS) {
      this.cut = true;
      this.left = remaining;
      return false;
    }
    this.lines.push(line);
    return true;
  }

  text(): string {
    if (!this.cut) return this.lines.join('\n');
    const what = `${this.left} change${this.left === 1 ? '' : 's'}`;
    return [...this.lines, `... (cut at ${REPORT_MAX_CHARS} characters: ${what} not shown in full; read the file to see them)`].join('\n');
  }
}

function unifiedDiff(path: string, before: string, after: string, changes: readonly LineChange[]): CappedLines {
  const out = new CappedLines();
  const runs = changedRuns(before, after, changes);
  let run = runs.next().value;
  if (!run) return out;
  out.push(`--- a/${path}`, changes.length);
  out.push(`+++ b/${path}`, changes.length);
  while (run && !out.cut) {
    // Runs whose context overlaps make one hunk, as git's diff makes them.
    // Past what the report can show, the hunk is cut anyway: runs stop being diffed there.
    const hunk: ChangedRun[] = [run];
    let size = sizeOf(run);
    let next = runs.next().value;
    while (next && size <= REPORT_MAX_CHARS && next.oldLine - endOf(hunk[hunk.length - 1] as ChangedRun) <= 2 * DIFF_CONTEXT_LINES) {
      hunk.push(next);
      size += sizeOf(next);
      next = runs.next().value;
    }
    writeHunk(out, before, hunk, changes.length);
    run = next;
  }
  return out;
}

/** Characters of a run's changed lines (at least one per line). */
function sizeOf(run: ChangedRun): number {
  let size = 0;
  for (const l of run.removed) size += l.length + 1;
  for (const l of run.added) size += l.length + 1;
  return size;
}

/** The old line after a run's removed lines (0-based). */
function endOf(run: ChangedRun): number {
  return run.oldLine + run.oldCount;
}

function writeHunk(out: CappedLines, before: string, hunk: readonly ChangedRun[], changeCount: number): void {
  const first = hunk[0] as ChangedRun;
  const last = hunk[hunk.length - 1] as ChangedRun;
  const lead = linesBefore(before, first.oldFrom, DIFF_CONTEXT_LINES);
  const tail = linesFrom(before, last.oldTo, DIFF_CONTEXT_LINES);
  const oldFrom = first.oldLine - lead.length;
  const newFrom = first.newLine - lead.length;
  const oldCount = endOf(last) + tail.length - oldFrom;
  const newCount = last.newLine + last.newCount + tail.length - newFrom;
  const left = changeCount - first.change;
  if (!out.push(`@@ -${range(oldFrom, oldCount)} +${range(newFrom, newCount)} @@`, left)) return;
  let oldNo = oldFrom;
  let newNo = newFrom;
  for (const l of lead) push(out, ' ', l, ++oldNo, ++newNo, left);
  for (let k = 0; k < hunk.length && !out.cut; k++) {
    const run = hunk[k] as ChangedRun;
    const remaining = changeCount - run.change;
    const between = k > 0 ? linesBetween(before, (hunk[k - 1] as ChangedRun).oldTo, run.oldFrom) : [];
    for (const l of between) push(out, ' ', l, ++oldNo, ++newNo, remaining);
    for (const l of run.removed) if (!push(out, '-', lineOf(l), ++oldNo, newNo, remaining)) break;
    for (const l of run.added) if (!push(out, '+', lineOf(l), oldNo, ++newNo, remaining)) break;
  }
  for (const l of tail) push(out, ' ', l, ++oldNo, ++newNo, changeCount - last.change);
}

/** A line as `changedRuns` gives it (with its '\n', when it has one) as a `Line`. */
function lineOf(raw: string): Line {
  if (!raw.endsWith('\n')) return { text: raw, newline: false };
  return { text: raw.slice(0, raw.endsWith('\r\n') ? -2 : -1), newline: true };
}

/** `start,count` of a hunk header: 1-based, or the line before when the range is empty. */
function range(from: number, count: number): string {
  return count === 0 ? `${from},0` : `${from + 1},${count}`;
}

/** A diff line (cut like read cuts, numbered by its line in the file it comes from); false once over the cap. */
function push(out: CappedLines, sign: string, line: Line, oldNo: number, newNo: number, remaining: number): boolean {
  if (!out.push(`${sign}${cutLine(sign === '+' ? newNo : oldNo, line.text)}`, remaining)) return false;
  return line.newline || out.push('\\ No newline at end of file', remaining);
}

function snippetLines(after: string, changes: readonly LineChange[]): CappedLines {
  const out = new CappedLines();
  let shownTo = -1; // the line after the last one shown (0-based)
  for (let k = 0; k < changes.length && !out.cut; k++) {
    const c = changes[k];
    const left = changes.length - k;
    const lead = linesBefore(after, c.newFrom, SNIPPET_CONTEXT_LINES);
    let next = c.newStart - lead.length; // the line to show next (0-based)
    if (shownTo >= 0 && next > shownTo) out.push('...', left);
    // Lines the previous change already showed are skipped.
    const show = (l: Line) => {
      const shown = next < shownTo || out.push(numberedLine(next + 1, cutLine(next + 1, l.text)), left);
      next++;
      return shown;
    };
    let going = true;
    for (const l of lead) going &&= show(l);
    for (const l of linesBetween(after, c.newFrom, c.newTo)) if (!(going &&= show(l))) break;
    for (const l of linesFrom(after, c.newTo, SNIPPET_CONTEXT_LINES)) going &&= show(l);
    shownTo = Math.max(shownTo, next);
  }
  return out;
}

/** The lines of `[from, to)` (which starts at a line start), one at a time (a change may be the whole file). */
function* linesBetween(text: string, from: number, to: number): Generator<Line> {
  let at = from;
  while (at < to) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 || nl >= to ? to : nl;
    yield lineAt(text, at, end);
    at = end + 1;
  }
}

/** Up to `n` lines from the line start `at`. */
function linesFrom(text: string, at: number, n: number): Line[] {
  const out: Line[] = [];
  while (out.length < n && at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    out.push(lineAt(text, at, end));
    at = end + 1;
  }
  return out;
}

/** Up to `n` lines before the line start `at`, in order. */
function linesBefore(text: string, at: number, n: number): Line[] {
  const out: Line[] = [];
  let end = at; // the start of the line after the one being taken
  while (out.length < n && end > 0) {
    const start = end - 1 === 0 ? 0 : text.lastIndexOf('\n', end - 2) + 1;
    out.push(lineAt(text, start, end - 1));
    end = start;
  }
  return out.reverse();
}

/** The line from `start` to `end` (the offset of its '\n', or the end of the text). */
function lineAt(text: string, start: number, end: number): Line {
  const newline = end < text.length;
  const stop = newline && end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
  return { text: text.slice(start, stop), newline };
}
