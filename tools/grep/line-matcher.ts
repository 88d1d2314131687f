/**
 * `compileMatcher`: grep's pattern, compiled once per call into a `LineMatcher` that finds the
 * matching lines of one file's bytes without ever holding the event loop.
 *
 * A line matches when the pattern matches inside it (line breaks excluded, like ripgrep; a
 * trailing '\r' is not part of the line). With `multiline` (ripgrep's `-U`) the pattern runs
 * over the whole text instead, so a match may span lines (`^` and `$` still match at every line,
 * `.` matches a line break only under `(?s)`); matches whose lines touch are one hit, from its
 * first line to its last. A pattern holding a line break (`\n`, `\r`, or the character) can only
 * match across lines: it is searched as multiline whatever `multiline` says.
 *
 * The pattern is read in ripgrep's syntax first (`regex-syntax.ts`: inline flags such as `(?i)`,
 * `(?P<name>…)`, POSIX classes), then compiled as a JavaScript RegExp. Case-sensitive literal
 * patterns (and literal mode) without a line break are searched as bytes on the main thread
 * (`literal-matcher.ts`: `Buffer.indexOf`, in slices with yields on large files). Everything else
 * is a JavaScript RegExp (`i` for ignoreCase; `u` only when the pattern uses `\p{…}`, `\P{…}` or
 * `\u{…}`) and runs in a worker thread of the process's shared pool (`guarded-matcher.ts`): V8's
 * backtracking engine has no bound a caller could rely on (a plain `[^x]*[^x]*y` over one
 * 10,000-character line runs for minutes), so no user regex runs on the main thread. Each batch
 * of files gets `GREP_FILE_BUDGET_MS` in the worker; past it the worker is terminated and the
 * call ends with `INVALID_INPUT` on `pattern`. A multiline search is bounded the same way, and
 * in memory by the file cap (32 MiB), `limit` hits and `MAX_BLOCK_LINES` lines of text per hit.
 *
 * At load this module sets V8's `--enable-experimental-regexp-engine-on-excessive-backtracks`,
 * so in the worker a regex the linear engine can run switches to it after 50,000 backtracks:
 * `(a+)+$` over 'aaaa…!' answers "no match" instead of running out the budget. The flags are
 * process-wide; they change only what happens after 50,000 backtracks, never what a regex matches.
 */
import v8 from 'node:v8';
import { ToolFailure } from '../result.js';
import { GuardedMatcher } from './guarded-matcher.js';
import { LiteralMatcher } from './literal-matcher.js';
import { translateRegex } from './regex-syntax.js';

v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/**
 * Time the worker may spend on one batch of files (at most one large file), then `INVALID_INPUT`:
 * with the read before it, a pathological pattern is answered within 2 s.
 */
export const GREP_FILE_BUDGET_MS = 1500;
/** Longest line text returned; longer lines are cut and end with '…'. */
export const MAX_LINE_CHARS = 2000;
/** Most lines of text a multiline hit returns (its `endLine` still says where it ends); then a line '…'. */
const MAX_BLOCK_LINES = 100;

/** What to find in one file. */
export interface LineRequest {
  /** Stop after this many matching lines (1 for files output, Infinity for count). */
  limit: number;
  /** Return the matching lines' text (content output), with this many context lines before and after. */
  texts: boolean;
  before: number;
  after: number;
}

/**
 * One hit (1-based `line`), its text and context cut at `MAX_LINE_CHARS`. A multiline hit
 * spanning lines has `endLine` and its lines in `text`, joined by '\n'.
 */
export interface MatchedLine {
  line: number;
  endLine?: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** The hits found in one file: how many (at most the limit) and, when asked, which. */
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
  /** Bytes every hit holds (a literal pattern, or the literal a regex needs): a file without them has none. */
  readonly needle?: Uint8Array;
  /** True when a file holding `needle` has a hit (the needle is the whole pattern). */
  readonly needleIsHit?: boolean;
  /** Releases the worker, if any. */
  close(): Promise<void>;
}

/** A compiled grep pattern: its matcher, and how it reads the text. */
export interface CompiledPattern {
  matcher: LineMatcher;
  /** True when a match may span lines (asked for, or the pattern holds a line break). */
  multiline: boolean;
  /** True when multiline was not asked for but the pattern holds a line break. */
  multilineImplied: boolean;
  /** The first construct that can match a line break (single-line search never sees one). */
  lineBreakConstruct?: string;
}

/**
 * Compiles a grep pattern (see the module comment). `INVALID_INPUT` naming `pattern` when it is
 * not a valid regex or uses ripgrep syntax JavaScript lacks (the message says how to write it).
 */
export function compileMatcher(
  pattern: string,
  options: { literal?: boolean; ignoreCase?: boolean; multiline?: boolean; owner?: string },
): CompiledPattern {
  const isLiteral = options.literal === true || !/[\\^$.*+?()[\]{}|\r\n]/.test(pattern);
  const asked = options.multiline === true;
  if (isLiteral) {
    const hasLineBreak = /[\r\n]/.test(pattern);
    const shape = { multiline: asked || hasLineBreak, multilineImplied: !asked && hasLineBreak };
    // Bytes answer exactly what the decoded lines would, unless the needle holds a line break,
    // a '\r' (dropped from line ends) or U+FFFD (what invalid bytes decode to).
    if (!options.ignoreCase && !/[\r\n\ufffd]/.test(pattern)) return { matcher: new LiteralMatcher(pattern), ...shape };
    const source = pattern
      .replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
      .replace(/\n/g, '\\n')
      .replace(/\r/g, '\\r');
    return { matcher: guarded(source, options.ignoreCase ? 'i' : '', shape.multiline, options.owner), ...shape };
  }
  const t = translateRegex(pattern, options.ignoreCase === true);
  const multiline = asked || t.hasLineBreak;
  // `u` only when the pattern needs it (\p{…}, \u{…}): it makes other escapes stricter.
  const flags = `${t.ignoreCase ? 'i' : ''}${t.dotAll ? 's' : ''}${/\\[pPu]\{/.test(t.source) ? 'u' : ''}`;
  try {
    new RegExp(t.source, flags);
  } catch (e) {
    throw new ToolFailure(
      'INVALID_INPUT',
      `pattern: not a valid JavaScript regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, '')})`,
    );
  }
  return {
    matcher: guarded(t.source, flags, multiline, options.owner),
    multiline,
    multilineImplied: multiline && !asked,
    lineBreakConstruct: t.lineBreakConstruct,
  };
}

function guarded(source: string, flags: string, multiline: boolean, owner: string | undefined): LineMatcher {
  return new GuardedMatcher(source, flags, {
    owner,
    budgetMs: GREP_FILE_BUDGET_MS,
    maxLineChars: MAX_LINE_CHARS,
    maxBlockLines: MAX_BLOCK_LINES,
    multiline,
  });
}
