/**
 * ripgrep's pattern syntax read into JavaScript (tools/regex-syntax.ts): what each translation
 * matches, what is refused and how the refusal says to write it, and which patterns can match a
 * line break (grep's multiline hint and its implied multiline).
 */
import { describe, expect, it } from 'vitest';
import { translateRegex } from '../../../tools/grep/regex-syntax.js';

/** The translated pattern as a RegExp, the way grep compiles it. */
function regex(pattern: string, ignoreCase = false): RegExp {
  const t = translateRegex(pattern, ignoreCase);
  return new RegExp(t.source, `${t.ignoreCase ? 'i' : ''}${t.dotAll ? 's' : ''}`);
}

function refusal(pattern: string): string {
  try {
    translateRegex(pattern);
  } catch (e) {
    expect((e as { code: string }).code).toBe('INVALID_INPUT');
    return (e as Error).message;
  }
  throw new Error(`'${pattern}' was not refused`);
}

describe('translateRegex', () => {
  it('leaves plain JavaScript patterns as they are', () => {
    for (const p of ['a+b', '(?:x|y)', '(?<name>\\w+)\\k<name>', '(?<=a)b', '(?!c)d', '[^\\]]', '\\p{Lu}']) {
      expect(translateRegex(p).source).toBe(p);
    }
  });

  it('turns leading inline flags into JavaScript flags, several in a row, with - to turn one off', () => {
    expect(regex('(?i)todo').test('ToDo')).toBe(true);
    expect(regex('(?-i)todo', true).test('ToDo')).toBe(false);
    expect(regex('(?s)a.b').test('a\nb')).toBe(true);
    expect(regex('a.b').test('a\nb')).toBe(false);
    expect(regex('(?i)(?s)A.B').test('a\nb')).toBe(true);
    expect(regex('(?is-s)A.B').test('a\nb')).toBe(false);
    // m and u change nothing: ^ and $ already match per line, JavaScript's \w stays ASCII.
    expect(translateRegex('(?mu)^x$')).toMatchObject({ source: '^x$', ignoreCase: false, dotAll: false });
  });

  it('reads verbose mode: whitespace and # comments dropped, escaped ones kept, inside classes too', () => {
    expect(translateRegex('(?x) a  b # the rest\n c').source).toBe('abc');
    expect(regex('(?x) a \\  b \\# c').test('a b#c')).toBe(true);
    expect(regex('(?x) [ a b ]+ ').test('abab')).toBe(true);
    expect(regex('(?x) [ a b ]+ ').test(' ')).toBe(false);
  });

  it('translates Python-style named groups, \\A and \\z, and POSIX classes inside brackets', () => {
    expect(regex('(?P<w>ab)(?P=w)').test('abab')).toBe(true);
    expect(regex('\\Aab').test('ab')).toBe(true);
    expect(regex('\\Aab').test('xab')).toBe(false);
    expect(regex('ab\\z').test('ab\n')).toBe(false);
    expect(regex('ab\\z').test('xab')).toBe(true);
    expect(regex('^[[:digit:]_]+$').test('1_2')).toBe(true);
    expect(regex('^[[:alpha:]]+$').test('abc1')).toBe(false);
    expect(regex('[[:punct:]]').test('a-b')).toBe(true);
    expect(regex('[[:space:]]').test('\t')).toBe(true);
  });

  it('refuses flag groups JavaScript lacks and unknown names, saying how to write them', () => {
    expect(refusal('a(?i)b')).toMatch(/^pattern: '\(\?i\)' is ripgrep syntax: .*move it there, or pass ignoreCase: true$/);
    expect(refusal('(?s:a.b)')).toMatch(
      /^pattern: '\(\?s:' is ripgrep syntax: JavaScript regexes have no scoped flag groups; put \(\?s\) at the very start/,
    );
    expect(refusal('(?U)a+')).toMatch(/write lazy quantifiers explicitly/);
    expect(refusal('(?z)a')).toBe("pattern: unknown inline flag 'z' in '(?z)' (known: i, m, s, u, x)");
    expect(refusal('[[:nope:]]')).toMatch(/^pattern: unknown POSIX class '\[:nope:\]'/);
    expect(refusal('[[:^digit:]]')).toBe("pattern: a negated POSIX class '[:^digit:]' has no JavaScript form; write [^0-9]");
  });

  it('tells a pattern that holds a line break from one that only may match one', () => {
    expect(translateRegex('a\\nb')).toMatchObject({ hasLineBreak: true, lineBreakConstruct: '\\n' });
    expect(translateRegex('a\nb')).toMatchObject({ source: 'a\\nb', hasLineBreak: true });
    expect(translateRegex('a\\r?$')).toMatchObject({ hasLineBreak: true });
    expect(translateRegex('return[\\s\\S]*?}')).toMatchObject({ hasLineBreak: false, lineBreakConstruct: '[\\s\\S]' });
    expect(translateRegex('a\\s+b').lineBreakConstruct).toBe('\\s');
    expect(translateRegex('a[^;]*;').lineBreakConstruct).toBe('[^;]');
    expect(translateRegex('(?s)a.b').lineBreakConstruct).toBe('.');
    // Classes and escapes that never match a line break, and a line break inside a class.
    for (const p of ['a.b', '[a-z]+', '\\S+\\w\\d', '[^\\n]*x']) expect(translateRegex(p).lineBreakConstruct).toBeUndefined();
    expect(translateRegex('[\\n]').hasLineBreak).toBe(false);
  });
});
