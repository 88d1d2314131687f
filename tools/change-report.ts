/**
 * What edit shows of a change, so checking it needs no second read: a unified diff (as
 * `git diff` prints one file, three lines of context) and a snippet of the new text, numbered as
 * read numbers lines, four lines around each change.
 *
 * Both are cut at `REPORT_MAX_CHARS` characters on a line boundary, with a last line saying so;
 * lines in them longer than 2,000 characters are cut like read cuts them.
 */
import type { LineChange } from './edited-text.js';
import { lineStarts, lineText } from './text-content.js';
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

/** Line access to one version of the file. */
class Lines {
  private readonly starts: number[];
  constructor(private readonly text: string) {
    this.starts = lineStarts(text);
  }
  get count(): number {
    return this.starts.length;
  }
  /** Line `i` (0-based) without its terminator. */
  at(i: number): string {
    return lineText(this.text, this.starts, i);
  }
  /** True when line `i` is the last and has no final newline. */
  lacksNewline(i: number): boolean {
    return i === this.starts.length - 1 && !this.text.endsWith('\n');
  }
}

/**
 * The report of a change from `before` to `after`, whose changed line ranges are `changes`
 * (tools/edited-text.ts). `path` names the file in the diff's `---`/`+++` lines.
 */
export function changeReport(path: string, before: string, after: string, changes: readonly LineChange[]): ChangeReport {
  const oldLines = new Lines(before);
  const newLines = new Lines(after);
  const diff = capped(unifiedDiff(path, oldLines, newLines, changes));
  const snippet = capped(snippetLines(newLines, changes));
  return { diff: diff.text, snippet: snippet.text, truncated: diff.cut || snippet.cut };
}

function unifiedDiff(path: string, oldLines: Lines, newLines: Lines, changes: readonly LineChange[]): string[] {
  if (changes.length === 0) return [];
  const out = [`--- a/${path}`, `+++ b/${path}`];
  // Group changes whose context overlaps into one hunk, as diff does.
  let i = 0;
  while (i < changes.length) {
    let j = i;
    while (j + 1 < changes.length && changes[j + 1].oldStart - changes[j].oldEnd <= 2 * DIFF_CONTEXT_LINES) j++;
    const oldFrom = Math.max(0, changes[i].oldStart - DIFF_CONTEXT_LINES);
    const oldTo = Math.min(oldLines.count, changes[j].oldEnd + DIFF_CONTEXT_LINES);
    const newFrom = changes[i].newStart - (changes[i].oldStart - oldFrom);
    const newTo = changes[j].newEnd + (oldTo - changes[j].oldEnd);
    out.push(`@@ -${range(oldFrom, oldTo - oldFrom)} +${range(newFrom, newTo - newFrom)} @@`);
    let at = oldFrom;
    for (let k = i; k <= j; k++) {
      const c = changes[k];
      for (; at < c.oldStart; at++) pushLine(out, ' ', oldLines, at);
      for (let o = c.oldStart; o < c.oldEnd; o++) pushLine(out, '-', oldLines, o);
      for (let n = c.newStart; n < c.newEnd; n++) pushLine(out, '+', newLines, n);
      at = c.oldEnd;
    }
    for (; at < oldTo; at++) pushLine(out, ' ', oldLines, at);
    i = j + 1;
  }
  return out;
}

/** `start,count` of a hunk header: 1-based, or the line before when the range is empty. */
function range(from: number, count: number): string {
  return count === 0 ? `${from},0` : `${from + 1},${count}`;
}

function pushLine(out: string[], sign: string, lines: Lines, i: number): void {
  out.push(`${sign}${cutLine(i + 1, lines.at(i))}`);
  if (lines.lacksNewline(i)) out.push('\\ No newline at end of file');
}

function snippetLines(newLines: Lines, changes: readonly LineChange[]): string[] {
  const out: string[] = [];
  let shownTo = -1;
  for (const c of changes) {
    const from = Math.max(0, c.newStart - SNIPPET_CONTEXT_LINES, shownTo);
    const to = Math.min(newLines.count, c.newEnd + SNIPPET_CONTEXT_LINES);
    if (from > shownTo && shownTo >= 0) out.push('...');
    for (let i = from; i < to; i++) out.push(numberedLine(i + 1, cutLine(i + 1, newLines.at(i))));
    shownTo = Math.max(shownTo, to);
  }
  return out;
}

/** The lines joined, cut on a line boundary at `REPORT_MAX_CHARS` with a line saying how many were left out. */
function capped(lines: readonly string[]): { text: string; cut: boolean } {
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    size += lines[i].length + 1;
    if (size > REPORT_MAX_CHARS) {
      const rest = lines.length - i;
      return { text: [...lines.slice(0, i), `... (${rest} more line${rest === 1 ? '' : 's'} not shown; read the file to see them)`].join('\n'), cut: true };
    }
  }
  return { text: lines.join('\n'), cut: false };
}
