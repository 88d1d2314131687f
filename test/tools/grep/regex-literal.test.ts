import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { requiredLiteral } from '../../../tools/grep/regex-literal.js';

const SOURCES = [
  'use\\s+strict',
  'foo\\.bar\\(\\d+',
  'ab?c',
  'abc*',
  'a+bc',
  '(ab)*cd',
  'x[yz]+w',
  '^export (async )?function \\w+',
  'TODO:?\\s*fix',
  'a{2,3}bcd',
  '\\x41BC',
  '\\u0041xyz',
  'q(?=rst)uv',
  '(a|b)cde',
  'ab|cd',
  'colou?r',
  '\\bword\\b',
  '[]x]yz',
  'a.b.cde',
  '\\$\\{name\\}',
];

describe('required literal of a regex (grep skips files without it)', () => {
  it('finds the longest literal every match needs, and none where there is none', () => {
    expect(SOURCES.map((s) => requiredLiteral(s, ''))).toEqual([
      'strict',
      'foo.bar(',
      'a',
      'ab',
      'bc',
      'cd',
      'x',
      'function ',
      'TODO',
      'bcd',
      'BC',
      'xyz',
      'uv',
      'cde',
      undefined,
      'colo',
      'word',
      'yz',
      'cde',
      '${name}',
    ]);
    expect(requiredLiteral('abc', 'i')).toBeUndefined();
    expect(requiredLiteral('\\d+\\s*', '')).toBeUndefined();
  });

  it('is contained in every string the regex matches (generated matches)', () => {
    for (const source of SOURCES) {
      const literal = requiredLiteral(source, '');
      if (literal === undefined || /\(\?=|\\b|\[\]/.test(source)) continue; // fast-check generates no lookahead, \b or empty class
      fc.assert(
        fc.property(fc.stringMatching(new RegExp(source)), (s) => {
          expect(new RegExp(source).test(s)).toBe(true);
          expect(s).toContain(literal);
        }),
        { numRuns: 200, seed: 4 },
      );
    }
  });
});
