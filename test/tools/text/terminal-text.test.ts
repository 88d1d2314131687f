/**
 * tools/terminal-text.ts: what reaches a terminal holds no character the terminal acts on or
 * that hides text, each shown in a visible form; JSON parses back to exactly the same strings;
 * the status page's escaping (HTML and these characters) over agent-written rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeJson, terminalSafeLine, withSafeFields } from '../../../tools/text/terminal-text.js';
import { eventRowsHtml, landerRowsHtml } from '../../../src/mcp/status-page/status-rows.js';

/** Every character these functions must never let through raw (line feed and tab checked apart). */
const UNSAFE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff]|\r(?!\n)|[\ud800-\udfff]/u;

/** Strings rich in the characters that matter, mixed with ordinary text. */
const hostile = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '\x1b',
      '\x07',
      '\r',
      '\n',
      '\t',
      '\x7f',
      '\u009b',
      '\u0085',
      '\u202e',
      '\u2066',
      '\u200b',
      '\ufeff',
      '\u2028',
      '\ud800',
      '\u{e0041}',
    ),
    fc.constantFrom('a', ']', '5', ';', '[', ' ', 'é', '…', '\\'),
  ),
  maxLength: 40,
});

describe('terminalSafe and terminalSafeLine', () => {
  it('show OSC 52, CSI, a lone carriage return, C1 and bidi controls in a visible form', () => {
    expect(terminalSafeLine('\x1b]52;c;SGVsbG8=\x07ok\rall checks passed\u202e\u009b2J\n\t\x7f')).toBe(
      '\\x1b]52;c;SGVsbG8=\\x07ok\\rall checks passed\\u{202e}\\u{9b}2J\\n\\t\\x7f',
    );
    expect(terminalSafeLine('tag\u{e0041}')).toBe('tag\\u{e0041}');
    expect(terminalSafeLine('plain src/a.ts, é…')).toBe('plain src/a.ts, é…');
  });

  it('a block keeps its line feeds, tabs and CRLF endings, and escapes a lone carriage return', () => {
    expect(terminalSafe('a\tb\r\nfake\rline\n\x1b[2K')).toBe('a\tb\r\nfake\\rline\n\\x1b[2K');
  });

  it('never let an unsafe character through (one-line fields: no line feed or tab either)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        expect(terminalSafe(s)).not.toMatch(UNSAFE);
        expect(terminalSafeLine(s)).not.toMatch(UNSAFE);
        expect(terminalSafeLine(s)).not.toMatch(/[\n\t]/);
      }),
    );
  });
});

describe('terminalSafeJson', () => {
  it('parses back to exactly the value, and holds no unsafe character', () => {
    fc.assert(
      fc.property(
        fc.dictionary(hostile, fc.oneof(hostile, fc.array(hostile, { maxLength: 3 }))),
        fc.constantFrom(undefined, 2),
        (value, indent) => {
          const json = terminalSafeJson(value, indent);
          expect(JSON.parse(json)).toEqual(value);
          expect(json).not.toMatch(UNSAFE);
        },
      ),
    );
    expect(terminalSafeJson({ name: '\u202e\u0085' })).toBe('{"name":"\\u202e\\u0085"}');
  });
});

describe('withSafeFields', () => {
  it('keeps every one-line field to its line and leaves the block fields as they are', () => {
    const value = { path: 'a\nb', files: [{ path: 'c\td' }], content: 'one\ntwo', nested: { content: ['x\ny'] }, n: 3, none: null };
    expect(withSafeFields(value, new Set(['content']))).toEqual({
      path: 'a\\nb',
      files: [{ path: 'c\\td' }],
      content: 'one\ntwo',
      nested: { content: ['x\ny'] },
      n: 3,
      none: null,
    });
    expect(value.path).toBe('a\nb'); // a copy: the value itself is untouched
  });
});

describe('the status page over agent-written rows', () => {
  it('shows markup as text and control or bidi characters escaped', () => {
    const html =
      landerRowsHtml([
        {
          id: 'sub-1',
          conversation: 'c1',
          target: 'main',
          state: 'failed',
          commit: 'abc',
          landed: null,
          attempts: 1,
          reason: '<img src=x onerror=alert(1)>\u202eevil\x1b]52;c;eA==\x07',
        },
      ]) + eventRowsHtml([{ seq: 1, at: 0, type: 'tool_call', conversation: 'c1', details: 'paths=<b>\u2066x</b>' }]);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;\\u{202e}evil\\x1b]52;c;eA==\\x07');
    expect(html).toContain('paths=&lt;b&gt;\\u{2066}x&lt;/b&gt;');
    expect(html).not.toMatch(/<img|<b>/);
    expect(html).not.toMatch(UNSAFE);
  });
});
