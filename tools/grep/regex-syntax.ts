/**
 * `translateRegex`: a grep pattern written the way ripgrep (Rust's `regex` crate) reads it, turned
 * into JavaScript RegExp source and flags, or refused with `INVALID_INPUT` saying how to write it.
 * Agents trained on Claude Code's Grep (ripgrep) write `(?i)todo`; a JavaScript RegExp throws
 * "Invalid group" on it.
 *
 * Translated (one left-to-right scan, linear in the pattern's length):
 * - inline flags at the very start, `(?i)`, `(?s)`, `(?is)`, `(?x)`, `(?-i)`, several in a row:
 *   `i` becomes the `i` flag, `s` the `s` flag (`.` matches a line break, for multiline
 *   searches), `m` and `u` change nothing (`^` and `$` already match at every line, as in
 *   ripgrep; JavaScript's `\w` stays ASCII), `x` (verbose) drops whitespace and `#` comments
 *   (`\ ` and `\#` stay; whitespace inside classes is dropped too, as Rust does);
 * - `(?P<name>…)` and `(?P=name)` (Python-style named groups) become `(?<name>…)`, `\k<name>`;
 * - `\A` and `\z` (start and end of the text) become `(?<![\s\S])` and `(?![\s\S])`;
 * - `[[:alpha:]]`-style POSIX classes inside a bracket become their ASCII ranges.
 *
 * Refused, each with the way to write it: a flag group anywhere but the start (`a(?i)b`), a
 * scoped flag group `(?i:…)` (JavaScript on Node 20 has neither), `(?U)` (swap greed), an unknown
 * flag or POSIX class name.
 *
 * Also reported: whether the pattern holds a line break outside a class (`\n`, `\r` or the
 * character itself; such a pattern can only match across lines, so grep searches it as
 * `multiline`), and the first construct that can match a line break (`[\s\S]`, `\s`, `[^x]`, `.`
 * under `s`…), for grep's hint when a single-line search found nothing.
 */
import { ToolFailure } from '../result.js';

/** The JavaScript form of a ripgrep-style pattern (see the module comment). */
interface TranslatedRegex {
  source: string;
  ignoreCase: boolean;
  dotAll: boolean;
  /** True when the pattern holds a line break outside a class: it can only match across lines. */
  hasLineBreak: boolean;
  /** The first construct that can match a line break, as written, when there is one. */
  lineBreakConstruct?: string;
}

/** ASCII ranges of the POSIX classes ripgrep accepts inside brackets (`[[:alpha:]_]`). */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const KNOWN_FLAGS = 'imsxuU';

/**
 * Translates `pattern` (see the module comment); `ignoreCase` is the tool's own argument (an
 * inline `(?i)` turns it on, `(?-i)` off). `INVALID_INPUT` naming `pattern` for what JavaScript
 * cannot express.
 */
export function translateRegex(pattern: string, ignoreCase = false): TranslatedRegex {
  const flags = { i: ignoreCase, s: false, x: false };
  let i = 0;
  // Leading flag groups: `(?i)`, `(?s-i)`, one after another.
  for (;;) {
    const m = /^\(\?([a-zA-Z-]+)\)/.exec(pattern.slice(i, i + 40));
    if (!m) break;
    applyFlags(m[1], flags);
    i += m[0].length;
  }
  const out: string[] = [];
  let hasLineBreak = false;
  let lineBreakConstruct: string | undefined;
  const mayBreak = (construct: string) => {
    lineBreakConstruct ??= construct;
  };
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'A') out.push('(?<![\\s\\S])');
      else if (next === 'z') out.push('(?![\\s\\S])');
      else if (flags.x && (next === ' ' || next === '#')) out.push(next === ' ' ? ' ' : '#');
      else {
        if (next === 'n' || next === 'r') hasLineBreak = true;
        if (next === 's' || next === 'D' || next === 'W') mayBreak(`\\${next}`);
        out.push(c, next);
      }
      i += 2;
    } else if (c === '[') {
      const end = classEnd(pattern, i);
      const cls = posixClasses(flags.x ? withoutSpaces(pattern.slice(i, end)) : pattern.slice(i, end));
      if (canMatchLineBreak(cls, flags.i)) mayBreak(pattern.slice(i, end));
      out.push(cls);
      i = end;
    } else if (c === '(' && pattern[i + 1] === '?') {
      i = group(pattern, i, out);
    } else if (c === '\n' || c === '\r') {
      if (!flags.x) {
        hasLineBreak = true;
        out.push(c === '\n' ? '\\n' : '\\r');
      }
      i++;
    } else if (flags.x && (c === ' ' || c === '\t' || c === '\f' || c === '\v')) {
      i++;
    } else if (flags.x && c === '#') {
      const nl = pattern.indexOf('\n', i);
      i = nl === -1 ? pattern.length : nl + 1;
    } else {
      if (c === '.' && flags.s) mayBreak('.');
      out.push(c);
      i++;
    }
  }
  if (hasLineBreak) mayBreak('\\n');
  return { source: out.join(''), ignoreCase: flags.i, dotAll: flags.s, hasLineBreak, lineBreakConstruct };
}

/** Applies one leading flag group's letters (`is`, `-i`, `s-x`) to `flags`. */
function applyFlags(letters: string, flags: { i: boolean; s: boolean; x: boolean }): void {
  let on = true;
  for (const l of letters) {
    if (l === '-') {
      on = false;
      continue;
    }
    if (!KNOWN_FLAGS.includes(l)) {
      throw new ToolFailure('INVALID_INPUT', `pattern: unknown inline flag '${l}' in '(?${letters})' (known: i, m, s, u, x)`);
    }
    if (l === 'U') {
      throw new ToolFailure(
        'INVALID_INPUT',
        "pattern: the inline flag 'U' (swap greedy and lazy) has no JavaScript form; write lazy quantifiers explicitly (*?, +?)",
      );
    }
    if (l === 'i') flags.i = on;
    else if (l === 's') flags.s = on;
    else if (l === 'x') flags.x = on;
  }
}

/** Copies the group opening `(?…` at `pattern[i]` into `out` (translated); returns where the scan goes on. */
function group(pattern: string, i: number, out: string[]): number {
  const rest = pattern.slice(i + 2, i + 2 + 64);
  const named = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
  if (named) {
    out.push(`(?<${named[1]}>`);
    return i + 2 + named[0].length;
  }
  const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
  if (backref) {
    out.push(`\\k<${backref[1]}>`);
    return i + 2 + backref[0].length;
  }
  const flagGroup = /^([a-zA-Z-]+)([:)])/.exec(rest);
  if (flagGroup) {
    const shown = `(?${flagGroup[1]}${flagGroup[2]}`;
    const advice =
      flagGroup[2] === ':'
        ? `JavaScript regexes have no scoped flag groups; put (?${flagGroup[1].replace(/-.*/, '')}) at the very start to apply it to the whole pattern${flagGroup[1].includes('i') ? ', or pass ignoreCase: true' : ''}`
        : `an inline flag group applies to the whole pattern only at its very start in JavaScript; move it there${flagGroup[1].includes('i') ? ', or pass ignoreCase: true' : ''}`;
    throw new ToolFailure('INVALID_INPUT', `pattern: '${shown}' is ripgrep syntax: ${advice}`);
  }
  out.push('(?');
  return i + 2;
}

/** Index just past the bracket class starting at `pattern[i]` (escapes and `[:name:]` inside respected). */
function classEnd(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === '^') j++;
  for (; j < pattern.length; j++) {
    const c = pattern[j];
    if (c === '\\') j++;
    else if (c === '[' && pattern[j + 1] === ':') {
      const close = pattern.indexOf(':]', j + 2);
      if (close !== -1 && /^\^?[a-z]+$/.test(pattern.slice(j + 2, close))) j = close + 1;
    } else if (c === ']') return j + 1;
  }
  return pattern.length; // unclosed: RegExp reports it
}

/** The class with each `[:name:]` replaced by its ranges; `INVALID_INPUT` for an unknown name or a negated one. */
function posixClasses(cls: string): string {
  if (!cls.includes('[:')) return cls;
  return cls.replace(/\[:(\^?)([a-z]+):\]/g, (_all, neg: string, name: string) => {
    const ranges = POSIX_CLASSES[name];
    if (ranges === undefined) {
      throw new ToolFailure(
        'INVALID_INPUT',
        `pattern: unknown POSIX class '[:${name}:]' (known: ${Object.keys(POSIX_CLASSES).join(' ')}); or write the ranges, e.g. [A-Za-z]`,
      );
    }
    if (neg) {
      throw new ToolFailure('INVALID_INPUT', `pattern: a negated POSIX class '[:^${name}:]' has no JavaScript form; write [^${ranges}]`);
    }
    return ranges;
  });
}

/** A class in verbose mode: unescaped whitespace dropped (Rust's `x` ignores it inside classes too). */
function withoutSpaces(cls: string): string {
  let out = '';
  for (let j = 0; j < cls.length; j++) {
    const c = cls[j];
    if (c === '\\') {
      out += cls[j + 1] === ' ' ? ' ' : c + (cls[j + 1] ?? '');
      j++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** True when the class (JavaScript syntax) matches '\n'; an invalid class answers false (RegExp reports it later). */
function canMatchLineBreak(cls: string, ignoreCase: boolean): boolean {
  try {
    return new RegExp(cls, ignoreCase ? 'i' : '').test('\n');
  } catch {
    return false;
  }
}
