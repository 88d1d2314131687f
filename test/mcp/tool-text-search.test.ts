/**
 * What an MCP client shows for list and grep: the text (what a client that drops
 * `structuredContent` gives the model) and `structuredContent` (what Claude Code and Copilot CLI
 * give it instead) each carry the whole answer — sizes, context lines, where the next page
 * starts, how many files an empty search read — and neither embeds the other.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { toCallToolResult } from '../../src/mcp/profiles/tool-result.js';
import { addWorkspace, setupGate } from '../tools/workspace-fixture.js';

function setup() {
  const s = setupGate();
  const layer = new MemoryLayer({
    root: '/ws',
    files: {
      '.gitignore': 'dist/\n',
      'README.md': 'hello',
      'dist/out.js': 'TODO built',
      'src/a.ts': 'import x\nconst TODO = 1;\n// TODO: lower\nend\nfiller\nmore\nlast TODO\n',
      'src/b.ts': 'function f() {\n  return 1 +\n    2;\n}\n',
      'img.bin': Buffer.from([0, 1, 2]),
    },
  });
  addWorkspace(s, 'a', { layer });
  return async (tool: string, args: Record<string, unknown>) => {
    const r = toCallToolResult(tool, await s.gate.call('a', tool, args));
    const text = (r.content as { type: string; text: string }[])[0].text;
    return { text, structured: r.structuredContent as Record<string, unknown> };
  };
}

describe('list and grep as MCP text and structuredContent', () => {
  it('list: one entry a line with its size, folders with a slash, then paging and what .gitignore hid', async () => {
    const call = setup();
    const root = await call('list', {});
    expect(root.text).toBe(
      [
        '.gitignore  6 B',
        'README.md  5 B',
        'img.bin  3 B',
        'src/',
        '(1 ignored by .gitignore not shown; includeIgnored: true lists them)',
      ].join('\n'),
    );
    expect(root.structured).toMatchObject({ truncated: false, ignored: 1 });
    const page = await call('list', { pattern: '**', maxResults: 2 });
    expect(page.text).toBe(
      [
        '.gitignore  6 B',
        'README.md  5 B',
        '(more entries: continue with offset 2)',
        '(1 ignored by .gitignore not shown; includeIgnored: true lists them)',
      ].join('\n'),
    );
    expect(page.structured).toMatchObject({ truncated: true, nextOffset: 2 });
    expect((await call('list', { pattern: '*.none' })).text).toBe('(no entries)');
    expect((await call('list', { pattern: 'dist/**' })).text).toBe(
      '(no entries)\n(1 ignored by .gitignore not shown; includeIgnored: true lists them)',
    );
  });

  it('grep content: path:line:text for matches, path-line-text for context, each line once, -- between groups', async () => {
    const call = setup();
    const r = await call('grep', { pattern: 'TODO', output: 'content', context: 1 });
    expect(r.text).toBe(
      [
        'src/a.ts-1-import x',
        'src/a.ts:2:const TODO = 1;',
        'src/a.ts:3:// TODO: lower',
        'src/a.ts-4-end',
        '--',
        'src/a.ts-6-more',
        'src/a.ts:7:last TODO',
      ].join('\n'),
    );
    // The structured matches carry the same context lines, per match.
    expect((r.structured.matches as unknown[])[0]).toEqual({
      path: 'src/a.ts',
      line: 2,
      text: 'const TODO = 1;',
      before: ['import x'],
      after: ['// TODO: lower'],
    });
    const plain = await call('grep', { pattern: 'TODO', output: 'content' });
    expect(plain.text).toBe('src/a.ts:2:const TODO = 1;\nsrc/a.ts:3:// TODO: lower\nsrc/a.ts:7:last TODO');
    expect((await call('grep', { pattern: 'TODO', output: 'count' })).text).toBe('src/a.ts:3');
  });

  it('grep multiline: every line of a hit is a match line', async () => {
    const call = setup();
    const r = await call('grep', { pattern: 'return[\\s\\S]*?}', multiline: true, output: 'content', after: 1 });
    expect(r.text).toBe(['src/b.ts:2:  return 1 +', 'src/b.ts:3:    2;', 'src/b.ts:4:}'].join('\n'));
    expect(r.structured.matches).toEqual([{ path: 'src/b.ts', line: 2, endLine: 4, text: '  return 1 +\n    2;\n}', after: [] }]);
  });

  it('grep: an empty answer says what was searched and skipped, and the hint; a page says where the next starts', async () => {
    const call = setup();
    const none = await call('grep', { pattern: 'return\\s+1\\s+\\+\\s+2' });
    expect(none.text).toBe(
      "(no matches; searched 4 files; skipped 1 ignored by .gitignore, 1 binary)\n(no match within single lines; '\\s' can match a line break, which a line-by-line search never sees: pass multiline: true to let a match span lines)",
    );
    expect(none.structured).toEqual({
      files: [],
      truncated: false,
      filesSearched: 4,
      skipped: { ignored: 1, binary: 1 },
      hint: "no match within single lines; '\\s' can match a line break, which a line-by-line search never sees: pass multiline: true to let a match span lines",
    });
    const page = await call('grep', { pattern: 'TODO', output: 'content', maxResults: 2 });
    expect(page.text).toBe('src/a.ts:2:const TODO = 1;\nsrc/a.ts:3:// TODO: lower\n(more results: continue with offset 2)');
    expect(page.structured).toMatchObject({ truncated: true, nextOffset: 2 });
    expect(page.text).not.toContain('{');
  });
});
