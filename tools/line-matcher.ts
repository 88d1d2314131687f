/**
 * `compileMatcher`: grep's pattern, compiled once per call into a `LineMatcher` that finds the
 * matching lines of one file's bytes without ever holding the event loop.
 *
 * A line matches when the pattern matches inside it (line breaks excluded, like ripgrep; a
 * trailing '\r' is not part of the line). Case-sensitive literal patterns (and literal mode)
 * are searched as bytes on the main thread (`literal-matcher.ts`: `Buffer.indexOf`, in slices
 * with yields on large files). Everything else is a JavaScript RegExp (`i` for ignoreCase; `u`
 * only when the pattern uses `\p{…}`, `\P{…}` or `\u{…}`) and runs in a worker thread of the
 * process's shared pool
 * (`guarded-matcher.ts`): V8's backtracking engine has no bound a caller could rely on (a plain
 * `[^x]*[^x]*y` over one 10,000-character line runs for minutes), so no user regex runs on the
 * main thread. Each batch of files gets `GREP_FILE_BUDGET_MS` in the worker; past it the worker
 * is terminated and the call ends with `INVALID_INPUT` on `pattern`.
 *
 * At load this module sets V8's `--enable-experimental-regexp-engine-on-excessive-backtracks`,
 * so in the worker a regex the linear engine can run switches to it after 50,000 backtracks:
 * `(a+)+$` over 'aaaa…!' answers "no match" instead of running out the budget. The flags are
 * process-wide; they change only what happens after 50,000 backtracks, never what a regex matches.
 */
import v8 from 'node:v8';
import { ToolFailure } from './result.js';
import { GuardedMatcher } from './guarded-matcher.js';
import { LiteralMatcher } from './literal-matcher.js';

v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/**
 * Time the worker may spend on one batch of files (at most one large file), then `INVALID_INPUT`:
 * with the read before it, a pathological pattern is answered within 2 s.
 */
export const GREP_FILE_BUDGET_MS = 1500;
/** Longest line text returned; longer lines are cut and end with '…'. */
export const MAX_LINE_CHARS = 2000;

/** What to find in one file. */
export interface LineRequest {
  /** Stop after this many matching lines (1 for files output, Infinity for count). */
  limit: number;
  /** Return the matching lines' text (content output), with this many context lines around. */
  texts: boolean;
  context: number;
}

/** One matching line (1-based `line`), its text and context cut at `MAX_LINE_CHARS`. */
export interface MatchedLine {
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** The matching lines found in one file: how many (at most the limit) and, when asked, which. */
export interface LineHits {
  count: number;
  lines?: MatchedLine[];
}

/** Finds matching lines of one file; built once per grep call by `compileMatcher`. */
export interface LineMatcher {
  /**
   * The hits in `bytes` (a text file's content). With `owned`, the caller hands the bytes over
   * (it never reads or reuses them again), so a pending search keeps them without a copy (and
   * a worker takes them over); otherwise the caller may reuse them as soon as this returns and
   * a pending search works on its own copy. Copying fresh memory is what costs here (about
   * 100 ms for 20 MiB on a loaded virtual machine), so large inputs should be owned.
   * Errors: `INVALID_INPUT` past the worker budget.
   */
  search(bytes: Uint8Array, request: LineRequest, owned?: boolean): LineHits | Promise<LineHits>;
  /** Releases the worker, if any. */
  close(): Promise<void>;
}

/** Compiles a grep pattern. `INVALID_INPUT` naming `pattern` when it is not a valid regex. */
export function compileMatcher(pattern: string, options: { literal?: boolean; ignoreCase?: boolean }): LineMatcher {
  const isLiteral = options.literal === true || !/[\\^$.*+?()[\]{}|]/.test(pattern);
  if (isLiteral && pattern.includes('\n')) {
    throw new ToolFailure('INVALID_INPUT', 'pattern: a line break never occurs inside a line; search for one line at a time');
  }
  // Bytes answer exactly what the decoded lines would, unless the needle holds a '\r' (dropped
  // from line ends) or U+FFFD (what invalid bytes decode to).
  if (isLiteral && !options.ignoreCase && !/[\r\ufffd]/.test(pattern)) return new LiteralMatcher(pattern);
  const source = isLiteral ? pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') : pattern;
  // `u` only when the pattern needs it (\p{…}, \u{…}): it makes other escapes stricter.
  const flags = `${options.ignoreCase ? 'i' : ''}${!isLiteral && /\\[pPu]\{/.test(source) ? 'u' : ''}`;
  try {
    new RegExp(source, flags);
  } catch (e) {
    throw new ToolFailure(
      'INVALID_INPUT',
      `pattern: not a valid JavaScript regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, '')})`,
    );
  }
  return new GuardedMatcher(source, flags, { budgetMs: GREP_FILE_BUDGET_MS, maxLineChars: MAX_LINE_CHARS });
}
