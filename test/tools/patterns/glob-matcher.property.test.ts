/**
 * Differential test: the linear glob matcher against picomatch (`dot: true`, what list and grep
 * used before) on generated, non-pathological globs and paths. Known, deliberate differences
 * (`[!a]`, multi-digit ranges, refused extglobs) are not generated: glob-matcher.test.ts pins them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { compileGlob } from '../../../tools/patterns/glob-matcher.js';
import { expandBraces } from '../../../tools/patterns/brace-expansion.js';

/**
 * Cases left out, each a picomatch inconsistency rather than glob semantics: an alternative
 * with an empty segment (`c/**\/?(a|.)` matches 'c' but `a/` never matches 'a'), and braces
 * past our expansion caps (refused with INVALID_INPUT; glob-matcher.test.ts pins that).
 */
function comparable(pattern: string): boolean {
  try {
    return expandBraces(pattern.replace(/^!+/, ''), 'pattern').every((alt) => !alt.split('/').includes(''));
  } catch {
    return false;
  }
}

const work = { steps: 0 };
const CHARS = ['a', 'b', 'c', '.', '-', '_'];

const segmentName = fc
  .array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 4 })
  .map((cs) => cs.join(''))
  .filter((s) => s !== '.' && s !== '..');
const path = fc.array(segmentName, { minLength: 1, maxLength: 4 }).map((segs) => segs.join('/'));

/**
 * A '.' in a pattern is always followed by a letter: picomatch leaves a '.' unescaped (a regex
 * "any character") at the end of a pattern after text and before a brace range (`a.{a..c}c`
 * matches 'aaac'), and requires a character after `*.*`'s dot: parser quirks, left out.
 */
const literal = fc.constantFrom('a', 'b', 'c', '-', '_', '.a', '.b');
const cls = fc.constantFrom('[ab]', '[a-c]', '[^a]', '[^.]', '[.-]', '[[:alpha:]]', '[]a]', '[a-]');
const simpleAtom = fc.oneof(
  { weight: 5, arbitrary: literal },
  { weight: 2, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: fc.constant('?') },
  { weight: 1, arbitrary: cls },
  { weight: 1, arbitrary: fc.constant('\\*') },
);
const simpleRun = fc.array(simpleAtom, { minLength: 1, maxLength: 3 }).map((a) => a.join(''));
const brace = fc.array(fc.oneof(simpleRun, fc.constant('')), { minLength: 2, maxLength: 3 }).map((alts) => `{${alts.join(',')}}`);
const atom = fc.oneof(
  { weight: 6, arbitrary: simpleAtom },
  { weight: 1, arbitrary: brace },
  { weight: 1, arbitrary: fc.constantFrom('@(a|b)', '?(a|.)', '{a..c}', '{1..3}', '{a/b,c}', '{a,b/?}', '(a|b)') },
);
const segmentPattern = fc.oneof(
  { weight: 1, arbitrary: fc.constant('**') },
  { weight: 6, arbitrary: fc.array(atom, { minLength: 1, maxLength: 4 }).map((a) => a.join('')) },
);
const glob = fc
  .tuple(fc.boolean(), fc.array(segmentPattern, { minLength: 1, maxLength: 4 }))
  .map(([negate, segs]) => `${negate ? '!' : ''}${segs.join('/')}`)
  .filter(
    (g) => !STAR_NEXT_TO_GROUP.test(g) && !STAR_THEN_TRAILING_GLOBSTAR.test(g) && !REGEX_QUANTIFIER_AFTER_GROUP.test(g) && !/^!+\(/.test(g),
  );

/**
 * picomatch turns a star that touches a brace or group into a globstar in some cases (`{**,}a`
 * matches 'a/a', `*{,a}` differs from `*`): a parser quirk, not glob semantics, left out.
 */
/** picomatch: `*\/**` does not match 'a' although `a/**` matches 'a' (zero segments); ours matches both. */
const STAR_THEN_TRAILING_GLOBSTAR = /\*\/\*\*(\/\*\*)*$/;
/** picomatch passes `?` and `+` after a `)` to the regex as quantifiers (`@(a|b)?a` matches 'a'); ours reads a glob `?`. */
const REGEX_QUANTIFIER_AFTER_GROUP = /\)[?+]/;
const STAR_NEXT_TO_GROUP = /\*[{(@?]\(?|[})]\*|\{\*|\*[,}|)]|[,|(]\*/;

describe('glob matcher vs picomatch (dot: true)', () => {
  it('agrees on generated globs and paths', () => {
    fc.assert(
      fc.property(glob, fc.array(path, { minLength: 1, maxLength: 12 }), (pattern, paths) => {
        fc.pre(comparable(pattern));
        const ours = compileGlob(pattern, 'pattern');
        const theirs = picomatch(pattern, { dot: true });
        for (const p of paths) expect([pattern, p, ours.matches(p, work)]).toEqual([pattern, p, theirs(p)]);
      }),
      { numRuns: 3000, seed: 9 },
    );
  });

  it('agrees in basename mode (grep glob without a slash) on generated globs and paths', () => {
    const noSlash = glob.filter((g) => !g.includes('/'));
    fc.assert(
      fc.property(noSlash, fc.array(path, { minLength: 1, maxLength: 12 }), (pattern, paths) => {
        fc.pre(comparable(pattern));
        const ours = compileGlob(pattern, 'glob', { basename: true });
        const theirs = picomatch(pattern, { dot: true, basename: true });
        for (const p of paths) expect([pattern, p, ours.matches(p, work)]).toEqual([pattern, p, theirs(p)]);
      }),
      { numRuns: 1000, seed: 12 },
    );
  });
});
