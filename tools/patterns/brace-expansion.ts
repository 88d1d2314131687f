/**
 * `expandBraces`: a glob's alternatives, bounded. `{a,b}` (nested too), `{1..10}`, `{a..e}`,
 * `{1..10..2}` (bash ranges: integers, zero-padded when an end is, or single letters),
 * `@(a|b)`, `(a|b)` and `?(a|b)` (= `{,a,b}`) become separate patterns. `{a}` and unclosed
 * groups are literal text. Escapes (`\{`) and bracket classes (`[{,}]`) are kept as written
 * for the tokenizer.
 *
 * Errors (`PatternError`, `INVALID_INPUT` naming `field`): more than `MAX_GLOB_ALTERNATIVES`
 * alternatives, more than `MAX_GLOB_EXPANDED_CHARS` characters over all of them (both checked
 * before anything that large is built, so `{1..999999999}` or `{a,b}` × 30 costs nothing), and
 * the extglobs `*(…)`, `+(…)`, `!(…)`, which repeat or negate and cannot be written as a finite
 * set of alternatives.
 *
 * Difference from picomatch, a fix: `{1..10}` is 1, 2, …, 10 (picomatch builds the character
 * class `[1-10]`, which matches '1' and '0').
 */
import { parseCharClass } from './char-class.js';
import { PatternError } from './pattern-error.js';

/** Most alternatives a glob may expand to. */
export const MAX_GLOB_ALTERNATIVES = 1024;
/** Most characters all alternatives of a glob may hold together. */
const MAX_GLOB_EXPANDED_CHARS = 16_384;

interface Group {
  readonly open: number;
  readonly close: number;
  /** Positions of the top-level separators (',' or '|'). */
  readonly seps: number[];
  readonly paren: boolean;
}

/** The alternatives of `pattern` (deduplicated, in order). See the module comment. */
export function expandBraces(pattern: string, field: string): string[] {
  const groups = findGroups(pattern);
  if (groups.size === 0) return [pattern];
  const out = expandSpan(pattern, 0, pattern.length, groups, field);
  return [...new Set(out)];
}

/**
 * `pattern` cut at its top-level slashes, or undefined when a group holds a '/' (`{a/b,c}`):
 * then only whole-pattern expansion can express it. Escaped slashes (`\/`) and classes stay.
 */
export function splitTopLevelSlashes(pattern: string): string[] | undefined {
  const groups = findGroups(pattern);
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const group = groups.get(i);
    if (group) {
      if (pattern.slice(group.open, group.close).includes('/')) return undefined;
      i = group.close;
    } else if (c === '\\') i++;
    else if (c === '[') {
      const parsed = parseCharClass(pattern, i, 'glob');
      if (parsed.kind === 'class') i = parsed.end - 1;
    } else if (c === '/') {
      out.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  out.push(pattern.slice(start));
  return out;
}

/** Matches every '{' and '(' with its closer in one pass (escapes and classes skipped). */
function findGroups(s: string): Map<number, Group> {
  const groups = new Map<number, Group>();
  const stack: { open: number; seps: number[]; paren: boolean }[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '[') {
      const parsed = parseCharClass(s, i, 'glob');
      if (parsed.kind === 'class') i = parsed.end - 1;
    } else if (c === '{' || c === '(') stack.push({ open: i, seps: [], paren: c === '(' });
    else if ((c === ',' || c === '|') && stack.length > 0 && stack[stack.length - 1].paren === (c === '|'))
      stack[stack.length - 1].seps.push(i);
    else if ((c === '}' || c === ')') && stack.length > 0 && stack[stack.length - 1].paren === (c === ')')) {
      const g = stack.pop()!;
      const group = { ...g, close: i };
      // `{a}` is literal text unless it is a range; a `(…)` group is always a group.
      if (group.paren || group.seps.length > 0 || rangeOf(s.slice(g.open + 1, i)) !== undefined) groups.set(g.open, group);
    }
  }
  return groups;
}

function expandSpan(s: string, from: number, to: number, groups: Map<number, Group>, field: string): string[] {
  let acc: string[] = [''];
  let lit = '';
  const flush = () => {
    if (lit === '') return;
    acc = product(acc, [lit], field);
    lit = '';
  };
  for (let i = from; i < to; ) {
    const c = s[i];
    const marker = (c === '@' || c === '?' || c === '*' || c === '+' || c === '!') && groups.get(i + 1)?.paren === true;
    if (marker && (c === '*' || c === '+' || c === '!')) {
      throw new PatternError(
        field,
        `the extglob '${c}(…)' is not supported (it repeats or negates, which a bounded matcher cannot do); use '{a,b}' alternatives, or escape it as '\\${c}(' to match those characters`,
      );
    }
    const group = groups.get(marker ? i + 1 : i);
    if (group) {
      flush();
      const options: string[] = c === '?' && marker ? [''] : [];
      const range = group.seps.length === 0 && !group.paren ? rangeOf(s.slice(group.open + 1, group.close)) : undefined;
      if (range) options.push(...range(field));
      else {
        const bounds = [group.open, ...group.seps, group.close];
        for (let k = 0; k + 1 < bounds.length; k++) {
          options.push(...expandSpan(s, bounds[k] + 1, bounds[k + 1], groups, field));
          checkExpansion(
            options.length,
            options.reduce((n, o) => n + o.length, 0),
            field,
          );
        }
      }
      acc = product(acc, [...new Set(options)], field);
      i = group.close + 1;
    } else if (c === '\\') {
      lit += s.slice(i, i + 2);
      i += 2;
    } else if (c === '[') {
      const parsed = parseCharClass(s, i, 'glob');
      const end = parsed.kind === 'class' ? parsed.end : i + 1;
      lit += s.slice(i, end);
      i = end;
    } else {
      lit += c;
      i++;
    }
  }
  flush();
  return acc;
}

/** Throws `INVALID_INPUT` naming `field` when `count` alternatives of `chars` characters in all pass the caps. */
export function checkExpansion(count: number, chars: number, field: string): void {
  if (count > MAX_GLOB_ALTERNATIVES) {
    throw new PatternError(field, `braces expand to more than ${MAX_GLOB_ALTERNATIVES} alternatives; use fewer alternatives or a wildcard`);
  }
  if (chars > MAX_GLOB_EXPANDED_CHARS) {
    throw new PatternError(
      field,
      `braces expand to more than ${MAX_GLOB_EXPANDED_CHARS} characters in all; use fewer alternatives or a wildcard`,
    );
  }
}

/** Every distinct `a + b`, checked against the bounds before it is built. */
function product(left: readonly string[], right: readonly string[], field: string): string[] {
  const leftChars = left.reduce((n, x) => n + x.length, 0);
  const rightChars = right.reduce((n, x) => n + x.length, 0);
  checkExpansion(left.length * right.length, leftChars * right.length + rightChars * left.length, field);
  const out = new Set<string>();
  for (const a of left) for (const b of right) out.add(a + b);
  return [...out];
}

const INTEGER = /^-?\d+$/;
const LETTER = /^[A-Za-z]$/;

/** A bash range `x..y` or `x..y..step` as a generator of its items, or undefined when it is none. */
function rangeOf(body: string): ((field: string) => string[]) | undefined {
  const parts = body.split('..');
  if (parts.length !== 2 && parts.length !== 3) return undefined;
  const [a, b, stepText] = parts;
  if (stepText !== undefined && !INTEGER.test(stepText)) return undefined;
  const step = Math.max(1, Math.abs(Number(stepText ?? 1)));
  if (INTEGER.test(a) && INTEGER.test(b)) {
    const x = Number(a);
    const y = Number(b);
    if (!Number.isSafeInteger(x) || !Number.isSafeInteger(y)) return undefined;
    const width = /^-?0\d/.test(a) || /^-?0\d/.test(b) ? Math.max(a.length, b.length) : 0;
    return (field) => {
      const count = Math.floor(Math.abs(y - x) / step) + 1;
      checkExpansion(count, count * Math.max(a.length, b.length, 1), field);
      const out: string[] = [];
      for (let k = 0, v = x; k < count; k++, v += x <= y ? step : -step) {
        const digits = String(Math.abs(v)).padStart(width - (v < 0 ? 1 : 0), '0');
        out.push(v < 0 ? `-${digits}` : digits);
      }
      return out;
    };
  }
  if (LETTER.test(a) && LETTER.test(b)) {
    const x = a.charCodeAt(0);
    const y = b.charCodeAt(0);
    return () => {
      const out: string[] = [];
      for (let v = x; x <= y ? v <= y : v >= y; v += x <= y ? step : -step) {
        const ch = String.fromCharCode(v);
        out.push(/[[\]\\*?{}()!@+|,]/.test(ch) ? `\\${ch}` : ch);
      }
      return out;
    };
  }
  return undefined;
}
