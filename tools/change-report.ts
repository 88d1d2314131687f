/**
 * What edit shows of a change, so checking it needs no second read: a unified diff (as
 * `git diff` prints one file, three lines of context) and a snippet of the new text, numbered as
 * read numbers lines, four lines around each change.
 *
 * Both are built from the text around the changes only (no index of the whole file), so their
 * cost follows the size of the change, not of the file. Both are cut at `REPORT_MAX_CHARS`
 * characters on a line boundary, with a last line saying so; lines in them longer than 2,000
 * characters are cut like read cuts them.
 */
import type { LineChange } from './edited-text.js';
import { cutLine, numberedLine } from './numbered-lines.js';

/** Lines of context around each hunk of the diff (git's default). */
export const DIFF_CONTEXT_LINES = 3;
/** Lines of the new text shown around each change in the snippet. */
export const SNIPPET_CONTEXT_LINES = 4;
/** Longest diff, and longest snippet, in characters. */
export const REPORT_MAX_CHARS = 16 * 1024;

/** The diff and the snippet of one change, and whether either was cut. */
export interface ChangeReport {
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
  const diff = capped(unifiedDiff(path, before, after, changes));
  const snippet = capped(snippetLines(after, changes));
  return { diff: diff.text, snippet: snippet.text, truncated: diff.cut || snippet.cut };
}

function unifiedDiff(path: string, before: string, after: string, changes: readonly LineChange[]): string[] {
  if (changes.length === 0) return [];
  const out = [`--- a/${path}`, `+++ b/${path}`];
  // Group changes whose context overlaps into one hunk, as diff does.
  let i = 0;
  while (i < changes.length) {
    let j = i;
    while (j + 1 < changes.length && changes[j + 1].oldStart - changes[j].oldEnd <= 2 * DIFF_CONTEXT_LINES) j++;
    const lead = linesBefore(before, changes[i].oldFrom, DIFF_CONTEXT_LINES);
    const tail = linesFrom(before, changes[j].oldTo, DIFF_CONTEXT_LINES);
    const oldFrom = changes[i].oldStart - lead.length;
    const newFrom = changes[i].newStart - lead.length;
    const oldCount = changes[j].oldEnd + tail.length - oldFrom;
    const newCount = changes[j].newEnd + tail.length - newFrom;
    out.push(`@@ -${range(oldFrom, oldCount)} +${range(newFrom, newCount)} @@`);
    let oldNo = oldFrom;
    let newNo = newFrom;
    for (const l of lead) push(out, ' ', l, ++oldNo, ++newNo);
    for (let k = i; k <= j; k++) {
      const c = changes[k];
      if (k > i) for (const l of linesBetween(before, changes[k - 1].oldTo, c.oldFrom)) push(out, ' ', l, ++oldNo, ++newNo);
      for (const l of linesBetween(before, c.oldFrom, c.oldTo)) push(out, '-', l, ++oldNo, newNo);
      for (const l of linesBetween(after, c.newFrom, c.newTo)) push(out, '+', l, oldNo, ++newNo);
    }
    for (const l of tail) push(out, ' ', l, ++oldNo, ++newNo);
    i = j + 1;
  }
  return out;
}

/** `start,count` of a hunk header: 1-based, or the line before when the range is empty. */
function range(from: number, count: number): string {
  return count === 0 ? `${from},0` : `${from + 1},${count}`;
}

/** A diff line (cut like read cuts, numbered by its line in the file it comes from). */
function push(out: string[], sign: string, line: Line, oldNo: number, newNo: number): void {
  out.push(`${sign}${cutLine(sign === '+' ? newNo : oldNo, line.text)}`);
  if (!line.newline) out.push('\\ No newline at end of file');
}

function snippetLines(after: string, changes: readonly LineChange[]): string[] {
  const out: string[] = [];
  let shownTo = -1; // the line after the last one shown (0-based)
  for (const c of changes) {
    const lead = linesBefore(after, c.newFrom, SNIPPET_CONTEXT_LINES);
    let from = c.newStart - lead.length;
    let lines = [...lead, ...linesBetween(after, c.newFrom, c.newTo), ...linesFrom(after, c.newTo, SNIPPET_CONTEXT_LINES)];
    if (shownTo >= 0 && from < shownTo) {
      // Overlaps what the previous change showed: continue from there.
      lines = lines.slice(shownTo - from);
      from = shownTo;
    } else if (shownTo >= 0 && from > shownTo) out.push('...');
    lines.forEach((l, k) => out.push(numberedLine(from + k + 1, cutLine(from + k + 1, l.text))));
    shownTo = Math.max(shownTo, from + lines.length);
  }
  return out;
}

/** The lines of `[from, to)` (which starts at a line start). */
function linesBetween(text: string, from: number, to: number): Line[] {
  const out: Line[] = [];
  let at = from;
  while (at < to) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 || nl >= to ? to : nl;
    out.push(lineAt(text, at, end));
    at = end + 1;
  }
  return out;
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

/** The lines joined, cut on a line boundary at `REPORT_MAX_CHARS` with a line saying how many were left out. */
function capped(lines: readonly string[]): { text: string; cut: boolean } {
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    size += lines[i].length + 1;
    if (size > REPORT_MAX_CHARS) {
      const rest = lines.length - i;
      return {
        text: [...lines.slice(0, i), `... (${rest} more line${rest === 1 ? '' : 's'} not shown; read the file to see them)`].join('\n'),
        cut: true,
      };
    }
  }
  return { text: lines.join('\n'), cut: false };
}
