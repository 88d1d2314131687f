/**
 * `INVALID_INPUT` and grep's output modes over the real MCP server (`gatefs serve` over stdio,
 * the default role, a real git repository) with the official SDK client: the text a text-only
 * client shows and the `structuredContent` another reads both name the fields and the closest one;
 * submit without divergence says what a divergence is; grep's files answer says how to get lines
 * and context with files output is refused.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { git, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, stdioClient } from '../mcp/mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
let client: Client;

beforeAll(async () => {
  repo = sampleRepo();
  // Without a gatefs.yaml the conversation gets the default role, which holds submit.
  rmSync(join(repo.dir, 'gatefs.yaml'));
  git(repo.dir, 'commit', '--quiet', '-am', 'no manifest');
  ({ client } = await stdioClient(['--repo', repo.dir, '--conversation', 'alpha'], repo.root));
});

afterAll(async () => {
  await client?.close();
  repo?.cleanup();
});

describe('INVALID_INPUT over MCP', () => {
  it('grep with outputMode: the text and structuredContent name output and the fields', async () => {
    const r = await callTool(client, 'grep', { pattern: 'greeting', outputMode: 'content' });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      'INVALID_INPUT: outputMode: unknown field (not in the schema); did you mean output? ' +
        'grep takes: pattern (required), path, glob, ignoreCase, literal, output, context, before, after, multiline, offset, maxResults.',
    );
    expect(r.structured.error).toEqual({
      code: 'INVALID_INPUT',
      message: r.text.slice('INVALID_INPUT: '.length),
      details: {
        problem: 'unknown_field',
        field: 'outputMode',
        suggestion: 'output',
        fields: [
          'pattern',
          'path',
          'glob',
          'ignoreCase',
          'literal',
          'output',
          'context',
          'before',
          'after',
          'multiline',
          'offset',
          'maxResults',
        ],
        required: ['pattern'],
      },
    });
  });

  it('read with file: suggests path; read without any field: path is required, and what it is', async () => {
    const file = await callTool(client, 'read', { file: 'README.md' });
    expect(file.structured.error.details).toMatchObject({ field: 'file', suggestion: 'path', missing: ['path'] });
    expect(file.text).toContain('did you mean path?');
    const none = await callTool(client, 'read', {});
    expect(none.text).toContain('INVALID_INPUT: path: required: The file to read');
    expect(none.structured.error.details).toMatchObject({ problem: 'required', field: 'path', fields: ['path', 'offset', 'limit'] });
  });

  it('submit without divergence says what divergence is and what it takes', async () => {
    const r = await callTool(client, 'submit', { summary: 'x' });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      'INVALID_INPUT: divergence: required: How your work differs from what was asked; write "None" when it matches the request ' +
        '(string, not empty, up to 10000 characters). submit takes: divergence (required), summary.',
    );
    expect(r.structured.error.details).toMatchObject({ problem: 'required', field: 'divergence', expected: 'string' });
  });
});

describe('grep output modes over MCP', () => {
  it('a files answer says output: "content" shows the lines; context with files output is refused', async () => {
    const files = await callTool(client, 'grep', { pattern: 'greeting' });
    expect(files.isError).toBe(false);
    expect(files.text).toContain('src/greeting.js');
    expect(files.text.split('\n').at(-1)).toBe(
      '(matching files only: output: "content" shows the matching lines, output: "count" how many per file)',
    );
    const refused = await callTool(client, 'grep', { pattern: 'greeting', context: 2 });
    expect(refused.isError).toBe(true);
    expect(refused.structured.error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'context', suggestion: 'content' } });
    expect(refused.text).toContain('pass output: "content" to see the matching lines with context lines around them');
    const lines = await callTool(client, 'grep', { pattern: 'greeting', output: 'content', context: 1 });
    expect(lines.isError).toBe(false);
    expect(lines.text).toMatch(/^src\/greeting\.js[:-]\d+[:-]/m);
  });
});
