/**
 * What an MCP client gets from read, edit and write, over stdio with the official SDK client:
 * `structuredContent` (all Claude Code shows a model) and the text (all many other clients show)
 * are each complete — numbered lines, the sha256, where to continue, the diff, the syntax check,
 * the near miss — and an image arrives as MCP image content, sent once.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { git, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, stdioClient } from './mcp-client.js';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

let repo: ReturnType<typeof sampleRepo>;
let client: Client;
const lines = Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join('\n');

beforeAll(async () => {
  repo = sampleRepo();
  writeFileSync(join(repo.dir, 'logo.png'), PNG_1x1);
  writeFileSync(join(repo.dir, 'rows.txt'), `${lines}\n`);
  git(repo.dir, 'add', '--all');
  git(repo.dir, 'commit', '--quiet', '-m', 'assets');
  ({ client } = await stdioClient(['--repo', repo.dir, '--conversation', 'content'], repo.root));
});

afterAll(async () => {
  await client?.close();
  repo?.cleanup();
});

describe('read over MCP', () => {
  it('an image is image content (base64 and mime type) after one line of text; structuredContent says image, without the data', async () => {
    const r = await client.callTool({ name: 'read', arguments: { path: 'logo.png' } });
    expect(r.isError).toBeFalsy();
    const content = r.content as { type: string; text?: string; data?: string; mimeType?: string }[];
    expect(content.map((c) => c.type)).toEqual(['text', 'image']);
    expect(content[1]).toEqual({ type: 'image', data: PNG_1x1.toString('base64'), mimeType: 'image/png' });
    expect(content[0].text).toBe(`logo.png: image image/png, 1x1, ${PNG_1x1.length} bytes, sha256 ${sha(PNG_1x1)} (the image follows)`);
    expect(r.structuredContent).toEqual({
      path: 'logo.png',
      kind: 'image',
      mimeType: 'image/png',
      width: 1,
      height: 1,
      bytes: PNG_1x1.length,
      sha256: sha(PNG_1x1),
    });
  });

  it('text: numbered lines, the sha256 and where to continue, in the text and in structuredContent', async () => {
    const r = await callTool(client, 'read', { path: 'rows.txt', offset: 9, limit: 3 });
    expect(r.text).toBe(
      `rows.txt: lines 9-11 of 50, sha256 ${sha(`${lines}\n`)}; more lines follow: continue with offset 12\n` +
        `     9\trow 9\n    10\trow 10\n    11\trow 11`,
    );
    expect(r.structured).toEqual({
      path: 'rows.txt',
      content: 'row 9\nrow 10\nrow 11\n',
      startLine: 9,
      endLine: 11,
      totalLines: 50,
      sha256: sha(`${lines}\n`),
      truncated: true,
      nextOffset: 12,
    });
  });
});

describe('edit and write over MCP', () => {
  it('edit: the diff and the numbered snippet in both; the syntax errors it introduced in both', async () => {
    const r = await callTool(client, 'edit', { path: 'src/math.js', oldString: 'return a * b;', newString: 'return a * ;' });
    expect(r.isError).toBe(false);
    expect(r.structured.diff).toContain('\n-  return a * b;\n+  return a * ;\n');
    expect(r.structured.snippet).toContain('     8\t  return a * ;');
    expect(r.structured.syntax).toMatchObject({ language: 'javascript', checked: true, introducedCount: 1 });
    expect(r.text).toContain('edited src/math.js: 1 replacement, sha256 ');
    expect(r.text).toContain('syntax (javascript): 1 error introduced by this change:\n  line 8, column ');
    expect(r.text).toContain('     8\t  return a * ;');
    expect(r.text).toContain('+  return a * ;');
  });

  it('NO_MATCH: the closest region in structuredContent (error.details) and its exact text in the text', async () => {
    const r = await callTool(client, 'edit', {
      path: 'src/math.js',
      oldString: 'export function add(a, b) {\n    return a + b;',
      newString: 'x',
    });
    expect(r.isError).toBe(true);
    expect(r.structured.error).toMatchObject({
      code: 'NO_MATCH',
      details: { candidate: { line: 2, endLine: 3, whitespaceOnly: true, text: 'export function add(a, b) {\n  return a + b;\n' } },
    });
    expect(r.text).toContain('line 3 is indented with 2 spaces in the file, 4 spaces in oldString');
    expect(r.text).toContain("the file's text at lines 2-3:\n     2\texport function add(a, b) {\n     3\t  return a + b;");
  });

  it('write: the syntax errors a new source file has, in both', async () => {
    const r = await callTool(client, 'write', { path: 'src/broken.ts', content: 'export const x: number = ;\n' });
    expect(r.isError).toBe(false);
    expect(r.structured).toMatchObject({ path: 'src/broken.ts', created: true, syntax: { language: 'typescript', introducedCount: 1 } });
    expect(r.text).toMatch(
      /^created src\/broken\.ts: 27 bytes, sha256 [0-9a-f]{64}\nsyntax \(typescript\): 1 error introduced by this change:\n {2}line 1, column /,
    );
  });
});
