/**
 * `compileGlob`: the matcher of `list`'s `pattern` and `grep`'s `glob`, in linear time.
 *
 * Syntax (picomatch's with `dot: true`, which these tools used before): `*` any run of
 * characters but '/', `?` one character but '/', `[…]` classes (`char-class.ts`), `**` as a
 * whole segment (exactly two stars) any number of segments (zero included: `a/**` matches `a`, `**\/x` matches
 * `x`), `{a,b}`, `{1..3}`, `@(a|b)`, `?(a|b)`, `(a|b)` alternatives (`brace-expansion.ts`),
 * `\x` the character x, a leading `!` negates the whole pattern, a leading `./` is dropped.
 * Hidden names match wildcards. A path equal to the pattern text always matches (as in
 * picomatch, so a file named `[x]` is found by the pattern `[x]`).
 * `basename: true` (grep): a pattern without '/' is matched against the last segment only.
 *
 * Bounds: matching one path costs at most (path length) × (expanded pattern size) steps
 * (`path-pattern.ts`), counted into the `WorkCounter` the caller passes; the expansion is
 * capped (`MAX_GLOB_ALTERNATIVES`, `MAX_GLOB_EXPANDED_CHARS`). Errors, all `PatternError`
 * (`INVALID_INPUT`) naming `field`: a leading '/', braces past the caps, the extglobs `*(…)`, `+(…)`, `!(…)`, an
 * unknown `[:class:]`.
 *
 * Differences from picomatch, each a fix: `[!a]` negates; `{1..10}` counts to ten; a class
 * never matches '/'; the extglobs above are refused instead of compiled to a backtracking regex.
 */
import { checkExpansion, expandBraces, splitTopLevelSlashes } from './brace-expansion.js';
import type { WorkCounter } from './match-work.js';
import { PathPattern, isEntryName, type PathItem } from './path-pattern.js';
import { splitSegments, tokenizePattern } from './pattern-tokens.js';
import { PatternError } from './pattern-error.js';
import { compileSegment, type SegmentTest } from './segment-matcher.js';

/** A compiled glob (see the module comment). Paths are relative to the folder searched. */
export interface GlobMatcher {
  /** True when the path `rel` ('a/b.ts') matches. */
  matches(rel: string, work: WorkCounter): boolean;
  /** False only when no path below the folder `rel` can match (a walk may skip it). */
  mayContainMatches(rel: string, work: WorkCounter): boolean;
  /**
   * The only names directly inside the folder `rel` that can match or lead to a match, when the
   * pattern spells them out there (`packages/*\/src/**`: `src` inside each package), so a walk
   * may look them up instead of listing the folder; undefined when any name may.
   */
  namesIn(rel: string, work: WorkCounter): readonly string[] | undefined;
}

/** Compiles `pattern`; `field` names the argument in refusals. */
export function compileGlob(pattern: string, field: string, options: { basename?: boolean } = {}): GlobMatcher {
  if (pattern.startsWith('/')) {
    throw new PatternError(field, `must be relative to the searched folder (no leading '/')`);
  }
  let bangs = 0;
  while (pattern[bangs] === '!') bangs++;
  if (pattern[bangs] === '(' && bangs > 0) bangs--; // `!(…)` is an extglob, refused with the others
  const negated = bangs % 2 === 1;
  let body = pattern.slice(bangs);
  while (body.startsWith('./')) body = body.slice(2);
  // picomatch's fast path: `**.ts` (and `**.d.ts`) is `**/*.ts`, any depth.
  if (!negated && /^\*\*(\.\w+)+$/.test(body)) body = `**/*${body.slice(2)}`;
  const onBasename = options.basename === true && !body.includes('/');
  const alternatives = compileBody(body, field);
  const textSegments = pattern.split('/');
  const anyMatches = (rel: string, from: number, work: WorkCounter) => {
    for (const alt of alternatives) if (alt.matches(rel, from, work)) return true;
    return false;
  };
  return {
    matches(rel, work) {
      if (rel === pattern) return true;
      const from = onBasename ? rel.lastIndexOf('/') + 1 : 0;
      return anyMatches(rel, from, work) !== negated;
    },
    mayContainMatches(rel, work) {
      if (negated || onBasename || pattern.startsWith(`${rel}/`)) return true;
      for (const alt of alternatives) if (alt.mayMatchBelow(rel, 0, work)) return true;
      return false;
    },
    namesIn(rel, work) {
      if (negated || onBasename) return undefined;
      let names: string[] | undefined;
      for (const alt of alternatives) {
        const some = alt.namesBelow(rel, work);
        if (some === undefined) return undefined;
        if (some.length > 0) (names ??= []).push(...some);
      }
      // A path equal to the pattern text matches too (see `matches`): its segment here may be a name.
      const depth = rel === '' ? 0 : segmentCount(rel);
      if (textSegments.length > depth && (depth === 0 || pattern.startsWith(`${rel}/`)) && isEntryName(textSegments[depth])) {
        (names ??= []).push(textSegments[depth]);
      }
      return names ?? [];
    },
  };
}

/** Segments of a non-empty relative path ('a/b' has 2). */
function segmentCount(rel: string): number {
  let n = 1;
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) n++;
  return n;
}

/**
 * The pattern as path patterns. Braces that stay inside one segment are expanded per segment
 * (`{a,b}/{c,d}/{e,f}` is one pattern with three two-way segments, not eight patterns); a
 * group holding a '/' (`{a/b,c}`), or a `**` among a segment's alternatives, expands the whole
 * pattern instead. Both are bounded by the expansion caps.
 */
function compileBody(body: string, field: string): PathPattern[] {
  const segments = splitTopLevelSlashes(body);
  if (segments) {
    const items: PathItem[] = [];
    let chars = 0;
    let count = 0;
    for (const seg of segments) {
      const alts = expandBraces(seg, field);
      count += alts.length;
      chars += alts.reduce((n, a) => n + a.length, 0);
      if (alts.length === 1) {
        items.push(...itemsOf(alts[0], field));
        continue;
      }
      const tests: SegmentTest[] = [];
      for (const alt of alts) {
        const one = itemsOf(alt, field);
        if (one.length !== 1 || typeof one[0] !== 'function')
          return expandBraces(body, field).map((a) => new PathPattern(itemsOf(a, field)));
        tests.push(one[0]);
      }
      items.push(anyOf(tests));
    }
    checkExpansion(count, chars, field);
    return [new PathPattern(items)];
  }
  return expandBraces(body, field).map((a) => new PathPattern(itemsOf(a, field)));
}

/** A segment test passing when any of `tests` passes (spelling out its texts when they all do). */
function anyOf(tests: readonly SegmentTest[]): SegmentTest {
  const test: SegmentTest = (s, from, to, work) => {
    for (const t of tests) if (t(s, from, to, work)) return true;
    return false;
  };
  if (tests.every((t) => t.literals !== undefined)) test.literals = tests.flatMap((t) => t.literals!);
  return test;
}

/** The path items of one brace-free pattern. */
function itemsOf(alt: string, field: string): PathItem[] {
  const tokenized = tokenizePattern(alt, 'glob');
  if (tokenized.kind === 'unknown-posix') {
    throw new PatternError(
      field,
      `unknown character class '[:${tokenized.name}:]' (known: alnum alpha ascii blank cntrl digit graph lower print punct space upper word xdigit)`,
    );
  }
  if (tokenized.kind === 'never') return [() => false];
  return splitSegments(tokenized.tokens).map((seg) => (seg.onlyStars === 2 ? { globstar: true, min: 0 } : compileSegment(seg.tokens)));
}
