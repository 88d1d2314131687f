/**
 * `LineWindow`: builds read's `content` from the lines of a file offered one by one — from a
 * text in memory or from a stream of a large file — with read's two caps:
 *
 * - lines longer than `LINE_CUT_CHARS` are cut with a marker (tools/numbered-lines.ts), unless
 *   the read asks for one line (`limit: 1`), which is how an agent sees a long line whole;
 * - the content stops at `READ_MAX_CONTENT_CHARS`: at the last whole line that fits, or, when
 *   the first line alone is longer, after that many characters of it with a marker.
 *
 * Without cut lines, consecutive windows concatenate to the file (line breaks are kept as they
 * are, '\n' or '\r\n').
 */
import { LINE_CUT_CHARS, cutLine } from './text/index.js';

/** Most characters of `content` one read returns. */
export const READ_MAX_CONTENT_CHARS = 256 * 1024;

/** What a window holds once every wanted line was offered. */
export interface WindowResult {
  content: string;
  /** Last line in the window (`startLine - 1` when empty). */
  endLine: number;
  /** True when the content cap stopped the window before the lines asked for. */
  capped: boolean;
  /** Line numbers cut to `LINE_CUT_CHARS` characters (or, alone in a window, to the content cap). */
  cutLines: number[];
}

export class LineWindow {
  private readonly parts: string[] = [];
  private size = 0;
  private last: number;
  private full = false;
  private capped = false;
  private readonly cutLines: number[] = [];
  private readonly cutLong: boolean;

  /** The window of `limit` lines from line `startLine` (1-based). */
  constructor(
    readonly startLine: number,
    readonly limit: number,
  ) {
    this.last = startLine - 1;
    this.cutLong = limit > 1;
  }

  /** True while the window wants more lines. */
  get wants(): boolean {
    return !this.full;
  }

  /** The last line number the window can take. */
  get lastWanted(): number {
    return this.startLine + this.limit - 1;
  }

  /**
   * Offers line `lineNumber` (the next one): `body` is its text without the terminator (or a
   * prefix of it, at least `LINE_CUT_CHARS` long, when `fullLength` says it is longer),
   * `terminator` its '\n', '\r\n' or '' (the last line without one).
   */
  offer(lineNumber: number, body: string, terminator: string, fullLength = body.length): void {
    if (this.full) return;
    let piece: string;
    if (this.cutLong && fullLength > LINE_CUT_CHARS) {
      piece = cutLine(lineNumber, body, fullLength) + terminator;
      this.cutLines.push(lineNumber);
    } else if (fullLength === body.length) {
      piece = body + terminator;
    } else {
      piece = body.slice(0, READ_MAX_CONTENT_CHARS + 1);
    }
    if (this.size + piece.length > READ_MAX_CONTENT_CHARS) {
      this.capped = true;
      this.full = true;
      if (this.parts.length > 0) return;
      // The first line alone is over the cap: as much of it as fits, with a marker.
      const rest = fullLength - READ_MAX_CONTENT_CHARS;
      piece = `${body.slice(0, READ_MAX_CONTENT_CHARS)} … [cut: ${rest} more characters of line ${lineNumber}; read shows at most ${READ_MAX_CONTENT_CHARS} characters of one line, grep can search the rest]`;
      this.cutLines.push(lineNumber);
    }
    this.parts.push(piece);
    this.size += piece.length;
    this.last = lineNumber;
    if (lineNumber >= this.lastWanted) this.full = true;
  }

  /** The content and where it ends. */
  result(): WindowResult {
    return { content: this.parts.join(''), endLine: this.last, capped: this.capped, cutLines: this.cutLines };
  }
}

/** Line count (as `lineStarts` counts) and the longest line's length with its terminator. */
export function scanLines(text: string): { count: number; longest: number } {
  let count = 0;
  let longest = 0;
  let from = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    count++;
    if (at + 1 - from > longest) longest = at + 1 - from;
    from = at + 1;
  }
  if (from < text.length) {
    count++;
    if (text.length - from > longest) longest = text.length - from;
  }
  return { count, longest };
}
