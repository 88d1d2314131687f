/**
 * `CharClass`: one bracket expression of a glob or `.gitignore` rule (`[a-z]`, `[!._]`,
 * `[[:digit:]x]`), parsed once into a membership test that costs O(1) for ASCII and
 * O(log ranges) above it, so a giant class costs no more per character than a small one.
 *
 * Syntax (git's wildmatch, which bash globs and picomatch share for these cases): `!` or `^`
 * first negates; a `]` right after `[` (or `[!`) is a member; `a-z` is a range of UTF-16 code
 * units (a reversed range is empty); `\x` is the member `x`; `[:name:]` is a POSIX class
 * (alnum alpha blank cntrl digit graph lower print punct space upper xdigit, ASCII only, and
 * for globs also `ascii` and `word`, as picomatch has them). A `-` after a range or a POSIX
 * class, or last, is a member. A class never matches '/' (matching is per path segment).
 *
 * One difference from picomatch, a fix: `[!a]` is "not a" (picomatch reads it as "'!' or 'a'").
 */

/** How a malformed class is treated: `git` like wildmatch, `glob` like picomatch. */
export type PatternDialect = 'glob' | 'git';

/** A parsed bracket expression. `has(c)` tests one UTF-16 code unit. */
export class CharClass {
  private constructor(
    /** Bits 0..127 of the positive set. */
    private readonly ascii: Uint32Array,
    /** Sorted, merged [lo, hi] pairs of the positive set above 127. */
    private readonly high: Int32Array,
    readonly negated: boolean,
  ) {}

  /** True when the code unit `c` is in the class. */
  has(c: number): boolean {
    let inSet: boolean;
    if (c < 128) inSet = (this.ascii[c >> 5] & (1 << (c & 31))) !== 0;
    else {
      let lo = 0;
      let hi = (this.high.length >> 1) - 1;
      inSet = false;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (c < this.high[2 * mid]) hi = mid - 1;
        else if (c > this.high[2 * mid + 1]) lo = mid + 1;
        else {
          inSet = true;
          break;
        }
      }
    }
    return inSet !== this.negated;
  }

  /** Builds a class from inclusive code-unit ranges. */
  static fromRanges(ranges: readonly (readonly [number, number])[], negated: boolean): CharClass {
    const ascii = new Uint32Array(4);
    const high: [number, number][] = [];
    for (const [lo, hi] of ranges) {
      for (let c = lo; c <= Math.min(hi, 127); c++) ascii[c >> 5] |= 1 << (c & 31);
      if (hi >= 128) high.push([Math.max(lo, 128), hi]);
    }
    high.sort((a, b) => a[0] - b[0]);
    const merged: number[] = [];
    for (const [lo, hi] of high) {
      const n = merged.length;
      if (n > 0 && lo <= merged[n - 1] + 1) merged[n - 1] = Math.max(merged[n - 1], hi);
      else merged.push(lo, hi);
    }
    return new CharClass(ascii, Int32Array.from(merged), negated);
  }
}

const POSIX: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
  alnum: [
    [48, 57],
    [65, 90],
    [97, 122],
  ],
  alpha: [
    [65, 90],
    [97, 122],
  ],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 31],
    [127, 127],
  ],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [
    [33, 47],
    [58, 64],
    [91, 96],
    [123, 126],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[65, 90]],
  xdigit: [
    [48, 57],
    [65, 70],
    [97, 102],
  ],
};
const GLOB_ONLY_POSIX: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
  ascii: [[0, 127]],
  word: [
    [48, 57],
    [65, 90],
    [95, 95],
    [97, 122],
  ],
};

/**
 * The outcome of reading a class at `pattern[start] === '['`: the class and the index after its
 * `]`; `unterminated` (no closing `]`); `never` (git: a malformed class, the rule never matches);
 * or `unknown-posix` with the name (a glob refuses it).
 */
type ClassParse =
  | { kind: 'class'; cls: CharClass; end: number }
  | { kind: 'unterminated' }
  | { kind: 'never' }
  | { kind: 'unknown-posix'; name: string };

/** Reads the bracket expression starting at `pattern[start]` (a '['), following wildmatch's loop. */
export function parseCharClass(pattern: string, start: number, dialect: PatternDialect): ClassParse {
  let p = start + 1;
  let negated = false;
  if (pattern[p] === '!' || pattern[p] === '^') {
    negated = true;
    p++;
  }
  const ranges: [number, number][] = [];
  let prev = -1; // the previous single member, -1 when none (after a range or a POSIX class)
  let first = true;
  for (;;) {
    if (p >= pattern.length) return { kind: 'unterminated' };
    let c = pattern.charCodeAt(p);
    if (c === 93 /* ] */ && !first) return { kind: 'class', cls: CharClass.fromRanges(ranges, negated), end: p + 1 };
    first = false;
    if (c === 92 /* \ */) {
      p++;
      if (p >= pattern.length) return dialect === 'git' ? { kind: 'never' } : { kind: 'unterminated' };
      c = pattern.charCodeAt(p);
      ranges.push([c, c]);
      prev = c;
      p++;
    } else if (c === 45 /* - */ && prev >= 0 && p + 1 < pattern.length && pattern[p + 1] !== ']') {
      p++;
      let hi = pattern.charCodeAt(p);
      if (hi === 92) {
        p++;
        if (p >= pattern.length) return dialect === 'git' ? { kind: 'never' } : { kind: 'unterminated' };
        hi = pattern.charCodeAt(p);
      }
      ranges.push([prev, hi]); // lo > hi: an empty range, as in wildmatch
      prev = -1;
      p++;
    } else if (c === 91 /* [ */ && pattern[p + 1] === ':') {
      const close = pattern.indexOf(']', p + 2);
      if (close === -1) return { kind: 'unterminated' };
      if (close - 1 < p + 2 || pattern[close - 1] !== ':') {
        // No ":]": the '[' is an ordinary member (wildmatch's "treat like a normal set").
        ranges.push([91, 91]);
        prev = 91;
        p++;
        continue;
      }
      const name = pattern.slice(p + 2, close - 1);
      const set = POSIX[name] ?? (dialect === 'glob' ? GLOB_ONLY_POSIX[name] : undefined);
      if (!set) return dialect === 'git' ? { kind: 'never' } : { kind: 'unknown-posix', name };
      ranges.push(...set.map(([lo, hi]) => [lo, hi] as [number, number]));
      prev = -1;
      p = close + 1;
    } else {
      ranges.push([c, c]);
      prev = c;
      p++;
    }
  }
}
