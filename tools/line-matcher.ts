/**
 * `compileMatcher`: grep's pattern, compiled once per call into something that finds matching
 * lines, and that cannot hang the process on a pathological regex.
 *
 * A line matches when the pattern matches inside it (line breaks excluded, like ripgrep).
 * Literal patterns (and literal mode) are searched as bytes (`Buffer.indexOf`), case-sensitive
 * ones without decoding the file. Regexes are JavaScript RegExps (`i` for ignoreCase; `u`
 * only when the pattern uses `\p{…}`, `\P{…}` or `\u{…}`).
 *
 * Catastrophic backtracking: at load this module sets V8's
 * `--enable-experimental-regexp-engine-on-excessive-backtracks` (and enables the linear engine),
 * so a regex the linear engine can run (no backreferences, no lookaround) switches to linear
 * time after 50,000 backtracks and always finishes: `(a+)+$` over 'aaaa…!' just answers "no
 * match". Patterns the linear engine refuses run in a worker thread instead
 * (`guarded-matcher.ts`), where each file gets `GREP_FILE_BUDGET_MS`; past it the worker is
 * terminated and the call ends with `INVALID_INPUT` on `pattern`. The flags are process-wide;
 * they change only what happens after 50,000 backtracks, never what a regex matches.
 */
import v8 from 'node:v8';
import { ToolFailure } from './result.js';
import { GuardedMatcher } from './guarded-matcher.js';

v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/** Time one file may take with a pattern the linear engine cannot run, then `INVALID_INPUT`. */
export const GREP_FILE_BUDGET_MS = 2000;

/** Finds matching lines of one file; built once per grep call by `compileMatcher`. */
export interface LineMatcher {
  /** True when `mayMatch` alone decides whether a file has a matching line (no decode needed). */
  readonly bytesDecide: boolean;
  /** False when the bytes certainly hold no matching line. */
  mayMatch(bytes: Uint8Array): boolean;
  /** 0-based indices of the matching lines among `lines`, at most `limit`. */
  matchLines(lines: readonly string[], text: string, limit: number): Promise<number[]> | number[];
  /** Releases the worker, if any. */
  close(): Promise<void>;
}

/** Compiles a grep pattern. `INVALID_INPUT` naming `pattern` when it is not a valid regex. */
export function compileMatcher(pattern: string, options: { literal?: boolean; ignoreCase?: boolean }): LineMatcher {
  const isLiteral = options.literal === true || !/[\\^$.*+?()[\]{}|]/.test(pattern);
  if (isLiteral && pattern.includes('\n')) {
    throw new ToolFailure('INVALID_INPUT', 'pattern: a line break never occurs inside a line; search for one line at a time');
  }
  if (isLiteral && !options.ignoreCase) return literalMatcher(pattern);
  const source = isLiteral ? pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') : pattern;
  // `u` only when the pattern needs it (\p{…}, \u{…}): it makes other escapes stricter.
  const flags = `${options.ignoreCase ? 'i' : ''}${!isLiteral && /\\[pPu]\{/.test(source) ? 'u' : ''}`;
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    throw new ToolFailure('INVALID_INPUT', `pattern: not a valid JavaScript regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, '')})`);
  }
  if (!runsInLinearTime(source, flags)) return new GuardedMatcher(source, flags, GREP_FILE_BUDGET_MS);
  return regexMatcher(re, new RegExp(source, `${flags}m`));
}

function runsInLinearTime(source: string, flags: string): boolean {
  try {
    new RegExp(source, `${flags}l`);
    return true;
  } catch {
    return false;
  }
}

function literalMatcher(pattern: string): LineMatcher {
  const needle = Buffer.from(pattern, 'utf8');
  return {
    bytesDecide: true,
    mayMatch: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(needle) !== -1,
    matchLines(lines, _text, limit) {
      const out: number[] = [];
      for (let i = 0; i < lines.length && out.length < limit; i++) if (lines[i].includes(pattern)) out.push(i);
      return out;
    },
    close: async () => {},
  };
}

function regexMatcher(line: RegExp, whole: RegExp): LineMatcher {
  return {
    bytesDecide: false,
    mayMatch: () => true,
    matchLines(lines, text, limit) {
      // A whole-text search with `m` finds no match only when no line matches: skip the split.
      whole.lastIndex = 0;
      if (!whole.test(text)) return [];
      const out: number[] = [];
      for (let i = 0; i < lines.length && out.length < limit; i++) {
        line.lastIndex = 0;
        if (line.test(lines[i])) out.push(i);
      }
      return out;
    },
    close: async () => {},
  };
}
