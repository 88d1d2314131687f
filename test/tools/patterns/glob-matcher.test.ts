import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../tools/patterns/glob-matcher.js';
import { MAX_GLOB_ALTERNATIVES } from '../../../tools/patterns/brace-expansion.js';
import { PatternError } from '../../../tools/patterns/pattern-error.js';

const work = { steps: 0 };
const matching = (pattern: string, paths: string[], options: { basename?: boolean } = {}) => {
  const glob = compileGlob(pattern, 'pattern', options);
  return paths.filter((p) => glob.matches(p, work));
};
const refusal = (pattern: string, field = 'pattern') => {
  try {
    compileGlob(pattern, field);
  } catch (e) {
    if (e instanceof PatternError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error(`expected a refusal of ${pattern}`);
};

const TREE = [
  'README.md',
  '.env',
  'src',
  'src/a.ts',
  'src/.hidden.ts',
  'src/sub',
  'src/sub/b.ts',
  'src/sub/c.js',
  'docs',
  'docs/x.md',
  'f10',
  'f2',
  'fa',
  'fb',
  '[x]',
];

describe('glob matcher semantics (picomatch with dot: true, linear)', () => {
  it('matches wildcards per segment, `**` across segments (zero included), hidden names too', () => {
    expect(matching('**/*.ts', TREE)).toEqual(['src/a.ts', 'src/.hidden.ts', 'src/sub/b.ts']);
    expect(matching('*.md', TREE)).toEqual(['README.md']);
    expect(matching('src/*', TREE)).toEqual(['src/a.ts', 'src/.hidden.ts', 'src/sub']);
    expect(matching('src/**', TREE)).toEqual(['src', 'src/a.ts', 'src/.hidden.ts', 'src/sub', 'src/sub/b.ts', 'src/sub/c.js']);
    expect(matching('src/**/c.*', TREE)).toEqual(['src/sub/c.js']);
    expect(matching('?', TREE)).toEqual([]);
    expect(matching('f?', TREE)).toEqual(['f2', 'fa', 'fb']);
    expect(matching('**.ts', TREE)).toEqual(['src/a.ts', 'src/.hidden.ts', 'src/sub/b.ts']); // picomatch's `**.ext`: any depth
    expect(matching('./src/*.ts', TREE)).toEqual(['src/a.ts', 'src/.hidden.ts']);
  });

  it('reads braces, ranges, groups, classes, escapes and a leading negation', () => {
    expect(matching('{docs,src/sub}/*.{md,js}', TREE)).toEqual(['src/sub/c.js', 'docs/x.md']);
    expect(matching('f{1..10}', TREE)).toEqual(['f10', 'f2']); // a fix: picomatch made `{1..10}` the class [1-10]
    expect(matching('f{a..z}', TREE)).toEqual(['fa', 'fb']);
    expect(matching('f@(a|2)', TREE)).toEqual(['f2', 'fa']);
    expect(matching('f?(a)', TREE)).toEqual(['fa']);
    expect(matching('f[!a0-9]', TREE)).toEqual(['fb']); // a fix: picomatch read `[!…]` as '!' or …
    expect(matching('f[[:digit:]]', TREE)).toEqual(['f2']);
    expect(matching('\\[x]', TREE)).toEqual(['[x]']);
    expect(matching('[x]', TREE)).toEqual(['[x]']); // a path equal to the pattern text matches, as in picomatch
    expect(matching('!**/*.ts', ['src/a.ts', 'README.md'])).toEqual(['README.md']);
  });

  it('matches the base name when grep passes a glob without a slash, and the whole path otherwise', () => {
    expect(matching('*.ts', TREE, { basename: true })).toEqual(['src/a.ts', 'src/.hidden.ts', 'src/sub/b.ts']);
    expect(matching('src/**/*.ts', TREE, { basename: true })).toEqual(['src/a.ts', 'src/.hidden.ts', 'src/sub/b.ts']);
    expect(matching('sub/*.js', TREE, { basename: true })).toEqual([]);
  });

  it('says which folders may hold matches, so a walk skips the others', () => {
    const glob = compileGlob('packages/*/src/**/*.ts', 'pattern');
    const may = (rel: string) => glob.mayContainMatches(rel, work);
    expect(['packages', 'packages/x', 'packages/x/src', 'packages/x/src/deep', 'docs', 'packages/x/test'].filter(may)).toEqual([
      'packages',
      'packages/x',
      'packages/x/src',
      'packages/x/src/deep',
    ]);
    expect(compileGlob('*.md', 'pattern').mayContainMatches('docs', work)).toBe(false);
    expect(compileGlob('!*.md', 'pattern').mayContainMatches('docs', work)).toBe(true);
    expect(compileGlob('[d]ocs/x', 'pattern').mayContainMatches('[d]ocs', work)).toBe(true); // the literal path
  });

  it('refuses what it cannot match in bounded time, naming the field', () => {
    for (const p of ['*(a|b)', 'x+(a)', '!(a)']) {
      const r = refusal(p);
      expect(r.code).toBe('INVALID_INPUT');
      expect(r.message).toMatch(/^pattern: the extglob '.\(…\)' is not supported/);
    }
    expect(refusal('{a,b}'.repeat(11), 'glob').message).toBe(
      `glob: braces expand to more than ${MAX_GLOB_ALTERNATIVES} alternatives; use fewer alternatives or a wildcard`,
    );
    expect(refusal('{1..100000000}').message).toMatch(/^pattern: braces expand to more than/);
    expect(refusal(`{${'x'.repeat(1000)},y}{a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t}`).message).toMatch(
      /^pattern: braces expand to more than 16384 characters/,
    );
    expect(refusal('[[:nope:]]').message).toMatch(/^pattern: unknown character class '\[:nope:\]'/);
    expect(refusal('/etc/*').message).toBe("pattern: must be relative to the searched folder (no leading '/')");
  });

  it('expands braces per segment: thirty two-way segments are sixty alternatives, not 2^30', () => {
    const pattern = Array.from({ length: 30 }, () => '{a,b}').join('/');
    const glob = compileGlob(pattern, 'pattern');
    expect(glob.matches(Array(30).fill('b').join('/'), work)).toBe(true);
    expect(glob.matches(Array(30).fill('c').join('/'), work)).toBe(false);
  });

  it('costs at most (name length + 1) × (pattern length + 1) steps on patterns that make regexes backtrack', () => {
    const cases: [string, string][] = [
      ['*a*a*a*a*a*a*a*a*b', 'a'.repeat(60)],
      [`${'*a'.repeat(100)}*b`, 'a'.repeat(255)],
      [`${'a/**/'.repeat(40)}b`, Array(1000).fill('a').join('/')],
      [`${'**/'.repeat(200)}x`, Array(1000).fill('a').join('/')],
      [`*${'?'.repeat(200)}*b`, 'a'.repeat(255)],
    ];
    for (const [pattern, path] of cases) {
      const counter = { steps: 0 };
      expect(compileGlob(pattern, 'pattern').matches(path, counter)).toBe(false);
      expect(counter.steps).toBeLessThanOrEqual((path.length + 1) * (pattern.length + 1));
    }
  });
});

describe('compileGlob namesIn (what a walk may look up instead of listing a folder)', () => {
  const namesIn = (pattern: string, rel: string) => {
    const names = compileGlob(pattern, 'pattern').namesIn(rel, work);
    return names === undefined ? undefined : [...new Set(names)].sort();
  };

  it('spells out the literal segments of the pattern, level by level, and stops at a wildcard or a globstar', () => {
    expect(namesIn('packages/*/src/**/*.ts', '')).toEqual(['packages']);
    expect(namesIn('packages/*/src/**/*.ts', 'packages')).toBeUndefined();
    expect(namesIn('packages/*/src/**/*.ts', 'packages/ui')).toEqual(['src']);
    expect(namesIn('packages/*/src/**/*.ts', 'packages/ui/src')).toBeUndefined();
    expect(namesIn('packages/*/src/**/*.ts', 'docs')).toEqual([]); // nothing below can match
    expect(namesIn('{src,lib}/index.ts', '')).toEqual(['lib', 'src', '{src,lib}']); // the pattern's own text is a name too
    expect(namesIn('{src,lib}/index.ts', 'src')).toEqual(['index.ts']);
    expect(namesIn('a/b', 'a/b')).toEqual([]);
  });

  it('never spells out names for patterns that may match anything below, nor names no entry can have', () => {
    for (const p of ['**/*.ts', '*.md', '!src/a.ts', '[ab]/x']) expect(namesIn(p, ''), p).toBeUndefined();
    expect(namesIn('src/**', 'src')).toBeUndefined();
    expect(compileGlob('*.ts', 'glob', { basename: true }).namesIn('', work)).toBeUndefined();
    expect(namesIn('../x', '')).toEqual([]);
    expect(namesIn('a/./b', 'a')).toEqual([]);
  });

  it('agrees with matches: every match below a folder starts with one of the names it spells out', () => {
    const paths = ['packages/ui/src/a.ts', 'packages/ui/lib/b.ts', 'packages/db/src/x/c.ts', 'src/index.ts', 'lib/index.ts', 'x/index.ts'];
    for (const pattern of ['packages/*/src/**/*.ts', '{src,lib}/index.ts', 'packages/db/**']) {
      const glob = compileGlob(pattern, 'pattern');
      for (const p of paths.filter((q) => glob.matches(q, work))) {
        const segs = p.split('/');
        for (let d = 0; d < segs.length; d++) {
          const names = glob.namesIn(segs.slice(0, d).join('/'), work);
          if (names !== undefined) expect(names, `${pattern} ${p} at ${d}`).toContain(segs[d]);
        }
      }
    }
  });
});
