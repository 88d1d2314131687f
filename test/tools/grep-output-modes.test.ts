/**
 * grep's output modes as an agent meets them: a `files` answer says how to get the matching
 * lines; context (`context`, `before`, `after`) asked with `files` or `count` output is refused
 * with `INVALID_INPUT` naming the field and the fix, never silently ignored; under the
 * claude-code profile, Grep ignores -A/-B/-C outside content mode as Claude Code's Grep does, and
 * its answer says so.
 */
import { describe, expect, it } from 'vitest';
import { GATE_TOOLS } from '../../src/host/composition/gate-tools.js';
import { toCallToolResult } from '../../src/mcp/profiles/tool-result.js';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';
import { gateOf } from '../../src/mcp/profiles/tool-profile.js';
import { addWorkspace, errorOf, setupGate, valueOf } from './workspace-fixture.js';

function setup() {
  const s = setupGate({ tools: [...GATE_TOOLS] });
  addWorkspace(s, 'a', {
    files: {
      'src/a.ts': 'one\nconst TODO = 1;\nthree\n',
      'src/b.ts': 'TODO: b\n',
      'docs/c.md': 'nothing\n',
    },
  });
  const text = async (args: Record<string, unknown>) => {
    const r = toCallToolResult('grep', await s.gate.call('a', 'grep', args));
    return (r.content as { text: string }[])[0].text;
  };
  return { s, text };
}

describe('grep output modes', () => {
  it('a files answer lists the files, then says output: "content" shows the lines (text and structuredContent)', async () => {
    const { s: gate, text } = setup();
    expect(toCallToolResult('grep', await gate.gate.call('a', 'grep', { pattern: 'TODO' })).structuredContent).toEqual({
      files: ['src/a.ts', 'src/b.ts'],
      truncated: false,
      filesSearched: 3,
      hint: 'matching files only: output: "content" shows the matching lines, output: "count" how many per file',
    });
    expect(await text({ pattern: 'TODO' })).toBe(
      ['src/a.ts', 'src/b.ts', '(matching files only: output: "content" shows the matching lines, output: "count" how many per file)'].join(
        '\n',
      ),
    );
    // The content and count answers carry no such line; an empty answer says what was searched.
    expect(await text({ pattern: 'TODO', output: 'content' })).toBe('src/a.ts:2:const TODO = 1;\nsrc/b.ts:1:TODO: b');
    expect(await text({ pattern: 'TODO', output: 'count' })).toBe('src/a.ts:1\nsrc/b.ts:1');
    expect(await text({ pattern: 'absent' })).toBe('(no matches; searched 3 files)');
  });

  it.each([
    [{ context: 1 }, 'context', 'the default output "files"'],
    [{ output: 'files', before: 2 }, 'before', 'output "files"'],
    [{ output: 'count', after: 1 }, 'after', 'output "count"'],
    [{ output: 'count', context: 0 }, 'context', 'output "count"'],
  ])('refuses %j: INVALID_INPUT on the field, saying context needs output "content"', async (extra, field, shown) => {
    const { s } = setup();
    const error = errorOf(await s.gate.call('a', 'grep', { pattern: 'TODO', ...extra }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(
      `${field}: context lines apply to output "content" only, not to ${shown}: pass output: "content" to see the matching lines with ${field} lines around them, or leave ${field} out`,
    );
    expect(error.details).toMatchObject({ problem: 'invalid', field, suggestion: 'content' });
  });

  it('honours context with content output', async () => {
    const { s } = setup();
    expect(valueOf(await s.gate.call('a', 'grep', { pattern: 'TODO', path: 'src/a.ts', output: 'content', context: 1 })).matches).toEqual([
      { path: 'src/a.ts', line: 2, text: 'const TODO = 1;', before: ['one'], after: ['three'] },
    ]);
  });
});

describe('Grep under the claude-code profile', () => {
  it('ignores -C with files_with_matches as Claude Code does, and says it did', async () => {
    const { s } = setup();
    const r = await CLAUDE_CODE_PROFILE.call('Grep', { pattern: 'TODO', '-C': 2, '-A': 1 }, gateOf({ gate: s.gate }, 'a', undefined));
    expect(r.isError).toBeFalsy();
    const text = (r.content as { text: string }[])[0].text;
    expect(text.split('\n').slice(0, 3)).toEqual(['Found 2 files', '/worktrees/a/src/a.ts', '/worktrees/a/src/b.ts']);
    expect(text).toContain('(-A, -C apply to output_mode: "content" only and were ignored, as Claude Code\'s Grep ignores them');
    expect((r.structuredContent as { notes: string[] }).notes).toEqual([
      '-A, -C apply to output_mode: "content" only and were ignored, as Claude Code\'s Grep ignores them; pass output_mode: "content" to see lines',
    ]);
    // In content mode they are honoured, with no such note.
    const content = await CLAUDE_CODE_PROFILE.call(
      'Grep',
      { pattern: 'TODO', path: 'src/a.ts', output_mode: 'content', '-C': 1 },
      gateOf({ gate: s.gate }, 'a', undefined),
    );
    const lines = (content.content as { text: string }[])[0].text;
    expect(lines).toBe('/worktrees/a/src/a.ts-1-one\n/worktrees/a/src/a.ts:2:const TODO = 1;\n/worktrees/a/src/a.ts-3-three');
  });
});
