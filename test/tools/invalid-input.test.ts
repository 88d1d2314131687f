/**
 * `INVALID_INPUT` for an unknown or missing field names the tool's fields and the one most likely
 * meant, in the message (what a text-only client shows the model) and in `details` (what a
 * client reading `structuredContent` gets): for every gate tool and every claude-code profile
 * tool, from their schemas. A nonsense name gets no suggestion. Over MCP with the SDK client:
 * invalid-input-mcp.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TObject } from '@sinclair/typebox';
import { GATE_TOOLS } from '../../src/host/composition/gate-tools.js';
import { CLAUDE_CODE_INPUTS } from '../../src/mcp/profiles/claude-code-schemas.js';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';
import { gateOf } from '../../src/mcp/profiles/tool-profile.js';
import { toolResultText } from '../../src/mcp/text/tool-text.js';
import { closestName } from '../../tools/closest-name.js';
import { compileInput } from '../../tools/input-check.js';
import { addWorkspace, errorOf, setupGate } from './workspace-fixture.js';

const ALL = GATE_TOOLS.map((t) => t.name);

function setup() {
  const s = setupGate({ tools: [...GATE_TOOLS] });
  addWorkspace(s, 'a', { files: { 'src/a.ts': 'const TODO = 1;\n' }, tools: ALL });
  return s;
}

describe('closestName', () => {
  it.each([
    ['outputMode', ['pattern', 'path', 'output', 'context'], 'output'],
    ['output_mode', ['pattern', 'outputMode'], 'outputMode'],
    ['file', ['path', 'offset', 'limit'], 'path'],
    ['file_path', ['path', 'offset'], 'path'],
    ['path', ['file_path', 'offset', 'limit'], 'file_path'],
    ['pattrn', ['path', 'pattern'], 'pattern'],
    ['IgnoreCase', ['pattern', 'ignoreCase'], 'ignoreCase'],
    ['-i', ['pattern', 'ignoreCase'], 'ignoreCase'],
    ['head_limit', ['pattern', 'maxResults'], 'maxResults'],
    ['old_string', ['path', 'oldString', 'newString'], 'oldString'],
  ])('%s among %j → %s', (given, fields, expected) => {
    expect(closestName(given, fields)).toBe(expected);
  });

  it.each([
    ['zzzz', ['path', 'offset', 'limit']],
    ['qwertyuiop', ['pattern', 'path', 'glob', 'output']],
    ['x', ['to', 'from']],
    ['', ['path']],
    ['a'.repeat(200), ['path']],
  ])('gives nonsense (%s) no suggestion', (given, fields) => {
    expect(closestName(given, fields)).toBeUndefined();
  });

  it('matches a value strictly: a case slip, never a different word', () => {
    expect(closestName('Content', ['files', 'content', 'count'], { values: true })).toBe('content');
    expect(closestName('lines', ['files', 'content', 'count'], { values: true })).toBeUndefined();
  });
});

describe('INVALID_INPUT through the gate', () => {
  it('grep with outputMode names output as the suggestion and lists the fields, in text and details', async () => {
    const s = setup();
    const result = await s.gate.call('a', 'grep', { pattern: 'TODO', outputMode: 'content' });
    const error = errorOf(result);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details).toMatchObject({ problem: 'unknown_field', field: 'outputMode', suggestion: 'output', required: ['pattern'] });
    expect(error.details?.fields).toEqual(Object.keys((GATE_TOOLS.find((t) => t.name === 'grep')!.inputSchema as TObject).properties));
    const text = toolResultText('grep', result);
    expect(text).toContain('INVALID_INPUT: outputMode: unknown field (not in the schema); did you mean output?');
    expect(text).toContain('grep takes: pattern (required), path, glob, ignoreCase, literal, output, context, before, after');
    // Nothing ran: the run log records the refusal as a refused call, with no value.
    expect(s.log.filter((e) => e.type === 'tool_call').at(-1)?.data).toMatchObject({ tool: 'grep', outcome: 'INVALID_INPUT' });
  });

  it('read with file instead of path suggests path, and says path is required', async () => {
    const error = errorOf(await setup().gate.call('a', 'read', { file: 'src/a.ts' }));
    expect(error.message).toBe('file: unknown field (not in the schema); did you mean path? read takes: path (required), offset, limit.');
    expect(error.details).toMatchObject({ field: 'file', suggestion: 'path', missing: ['path'], fields: ['path', 'offset', 'limit'] });
  });

  it('a missing required field says what it is and what it takes: submit without divergence', async () => {
    const error = errorOf(await setup().gate.call('a', 'submit', {}));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(
      'divergence: required: How your work differs from what was asked; write "None" when it matches the request',
    );
    expect(error.message).toContain('(string, not empty, up to 10000 characters)');
    expect(error.message).toContain('submit takes: divergence (required), summary.');
    expect(error.details).toMatchObject({
      problem: 'required',
      field: 'divergence',
      expected: 'string',
      fields: ['divergence', 'summary'],
    });
  });

  it('a field inside an array of objects is named with its place and the fields there', async () => {
    const error = errorOf(await setup().gate.call('a', 'edit', { path: 'src/a.ts', edits: [{ oldStr: 'TODO', newString: 'DONE' }] }));
    expect(error.message).toContain('edits.0.oldStr: unknown field (not in the schema); did you mean oldString?');
    expect(error.message).toContain('edits[0] takes: oldString (required), newString (required), replaceAll.');
    expect(error.details).toMatchObject({
      field: 'edits.0.oldStr',
      suggestion: 'oldString',
      fields: ['oldString', 'newString', 'replaceAll'],
    });
  });

  it('a nonsense field gets the field list and no suggestion; a near-miss value gets the allowed one', async () => {
    const s = setup();
    const nonsense = errorOf(await s.gate.call('a', 'read', { path: 'src/a.ts', qqqzzz: 1 }));
    expect(nonsense.message).toBe('qqqzzz: unknown field (not in the schema). read takes: path (required), offset, limit.');
    expect(nonsense.details?.suggestion).toBeUndefined();
    const value = errorOf(await s.gate.call('a', 'grep', { pattern: 'x', output: 'Content' }));
    expect(value.message).toBe('output: expected "files" or "content" or "count"; did you mean "content"?');
    expect(value.details).toMatchObject({ problem: 'invalid', suggestion: 'content', expected: '"files" | "content" | "count"' });
  });

  it('arguments that are not an object say what the object holds', async () => {
    const error = errorOf(await setup().gate.call('a', 'read', 'src/a.ts'));
    expect(error.message).toBe('arguments: expected object. read takes: path (required), offset, limit.');
    expect(error.details).toMatchObject({ problem: 'invalid', field: 'arguments', fields: ['path', 'offset', 'limit'] });
  });

  it('every field of every gate tool is found again from a slip of it (case, snake_case, a dropped letter)', () => {
    for (const tool of GATE_TOOLS) {
      const properties = (tool.inputSchema as TObject).properties;
      for (const field of Object.keys(properties)) {
        const slips = [field.toUpperCase(), field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
        if (field.length >= 5) slips.push(field.slice(0, -1));
        for (const slip of slips) {
          if (slip === field) continue;
          const check = tool.validate({ [slip]: 1 });
          expect(check.ok).toBe(false);
          if (check.ok) continue;
          expect([tool.name, slip, check.details.problem, check.details.suggestion]).toEqual([tool.name, slip, 'unknown_field', field]);
          expect(check.message).toContain(`${tool.name} takes: `);
        }
      }
    }
  });
});

describe('INVALID_INPUT under the claude-code profile', () => {
  it("every profile tool's own validation names its fields and the closest one", () => {
    for (const [name, schema] of Object.entries(CLAUDE_CODE_INPUTS)) {
      const validate = compileInput(schema as TObject, name);
      for (const field of Object.keys((schema as TObject).properties)) {
        const slip = field.toUpperCase();
        if (slip === field) continue;
        const check = validate({ [slip]: 1 });
        expect(check.ok).toBe(false);
        if (!check.ok) expect([name, check.details.suggestion, check.message.includes(`${name} takes: `)]).toEqual([name, field, true]);
      }
    }
  });

  it("Read with the gate's path names file_path, in the text and structuredContent", async () => {
    const s = setup();
    const r = await CLAUDE_CODE_PROFILE.call('Read', { path: 'src/a.ts' }, gateOf({ gate: s.gate }, 'a', undefined));
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0].text).toBe(
      'INVALID_INPUT: path: unknown field (not in the schema); did you mean file_path? Read takes: file_path (required), offset, limit.',
    );
    expect((r.structuredContent as { error: Record<string, unknown> }).error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'path', suggestion: 'file_path', fields: ['file_path', 'offset', 'limit'], required: ['file_path'] },
    });
  });
});

describe('INVALID_INPUT echoes what the agent wrote only in part', () => {
  it('cuts a long unknown name to 80 characters and names at most 10 others', async () => {
    const long = 'k'.repeat(5000);
    const args: Record<string, unknown> = { path: 'src/a.ts', [long]: 1 };
    for (let i = 0; i < 40; i++) args[`extra${i}`] = i;
    const error = errorOf(await setup().gate.call('a', 'read', args));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message.length).toBeLessThan(400);
    expect(JSON.stringify(error.details).length).toBeLessThan(1000);
    expect(error.details?.field).toBe(`${'k'.repeat(80)}…`);
    expect(error.details?.alsoUnknown).toHaveLength(10);
  });
});
