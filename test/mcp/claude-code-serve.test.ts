/**
 * `gatefs serve --profile claude-code` as Claude Code would meet it, driven by the official SDK
 * client (which also checks every `structuredContent` against the tool's output schema): over
 * stdio and over Streamable HTTP, the tools are listed under Claude Code's names, each answers a
 * call written with Claude Code's arguments, refusals carry the stable codes, and a hostile path
 * (`..`, a path of the host, a link out of the workspace) reads and changes nothing outside.
 */
import { createHash } from 'node:crypto';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { gatefs, git, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, httpClient, startHttpServer, stdioClient, type HttpServer } from './mcp-client.js';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const SENTINEL = 'outside-sentinel-7f3a';
const ROOT = '/worktrees/cc';
const MANIFEST = [
  'roles:',
  '  - name: agent',
  '    tools: [read, grep, list, edit, write, delete, move]',
  '    workspace:',
  '      backend: worktree',
  '      mounts:',
  '        - { path: .campaign, writable: false }',
  '',
].join('\n');

let repo: ReturnType<typeof sampleRepo>;
let client: Client;
let manifest: string;
const worktree = () => join(repo.dir, '.gatefs/worktrees/cc');
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  repo = sampleRepo();
  writeFileSync(join(repo.root, 'secret.txt'), `${SENTINEL}\n`);
  symlinkSync('../../secret.txt', join(repo.dir, 'src/leak.txt'));
  writeFileSync(join(repo.dir, 'logo.png'), PNG_1x1);
  git(repo.dir, 'add', '--all');
  git(repo.dir, 'commit', '--quiet', '-m', 'assets and a link out');
  manifest = join(repo.root, 'gatefs-agent.yaml');
  writeFileSync(manifest, MANIFEST);
  ({ client } = await stdioClient(
    ['--repo', repo.dir, '--manifest', manifest, '--conversation', 'cc', '--profile', 'claude-code'],
    repo.root,
  ));
});

afterAll(async () => {
  await client?.close();
  repo?.cleanup();
});

describe('serve --profile claude-code over stdio', () => {
  it("lists Claude Code's tools with Claude Code's argument names, the others under their gatefs names", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS', 'delete', 'move']);
    const args = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
    expect(args.Read).toEqual(['file_path', 'offset', 'limit']);
    expect(args.Write).toEqual(['file_path', 'content']);
    expect(args.Edit).toEqual(['file_path', 'old_string', 'new_string', 'replace_all']);
    expect(args.MultiEdit).toEqual(['file_path', 'edits']);
    expect(args.Glob).toEqual(['pattern', 'path']);
    expect(args.LS).toEqual(['path', 'ignore']);
    expect(args.move).toEqual(['from', 'to', 'overwrite']);
    expect(tools.find((t) => t.name === 'Read')?.description).toContain(`${ROOT}/`);
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toContain("Use this server's Read, Write, Edit, MultiEdit, Glob, Grep and LS");
  });

  it('answers each tool called with Claude Code arguments, and the bytes land in the worktree', async () => {
    const read = await callTool(client, 'Read', { file_path: `${ROOT}/src/math.js`, offset: 1, limit: 3 });
    expect(read.isError).toBe(false);
    expect(read.text.split('\n')[0]).toMatch(/^ {5}1\t/);
    expect(read.structured).toMatchObject({ type: 'text', filePath: `${ROOT}/src/math.js`, startLine: 1, numLines: 3 });

    const write = await callTool(client, 'Write', { file_path: 'notes/todo.md', content: '- one\n- two\n' });
    expect(write.text).toBe(`File created successfully at: ${ROOT}/notes/todo.md`);
    const edit = await callTool(client, 'Edit', {
      file_path: `${ROOT}/notes/todo.md`,
      old_string: '- two',
      new_string: '- 2',
      replace_all: false,
    });
    expect(edit.structured).toMatchObject({ filePath: `${ROOT}/notes/todo.md`, replacements: 1 });
    const multi = await callTool(client, 'MultiEdit', {
      file_path: 'notes/todo.md',
      edits: [
        { old_string: '- one', new_string: '- 1' },
        { old_string: '- ', new_string: '* ', replace_all: true },
      ],
    });
    expect(multi.structured).toMatchObject({ replacements: 3 });
    expect(readFileSync(join(worktree(), 'notes/todo.md'), 'utf8')).toBe('* 1\n* 2\n');

    const glob = await callTool(client, 'Glob', { pattern: '**/*.md' });
    expect(glob.structured.filenames[0]).toBe(`${ROOT}/notes/todo.md`); // the newest first
    expect(glob.structured.filenames).toEqual(expect.arrayContaining([`${ROOT}/README.md`, `${ROOT}/docs/usage.md`]));

    const grep = await callTool(client, 'Grep', { pattern: 'function', output_mode: 'content', '-n': true, glob: '*.js', head_limit: 5 });
    expect(grep.text).toMatch(new RegExp(`^${ROOT}/src/[a-z-]+\\.js:\\d+:.*function`, 'm'));
    expect(grep.structured.mode).toBe('content');
    const files = await callTool(client, 'Grep', { pattern: 'export', path: 'src' });
    expect(files.text).toMatch(/^Found \d+ files?\n/);

    const ls = await callTool(client, 'LS', { path: ROOT, ignore: ['docs', '*.png'] });
    expect(ls.text.split('\n')[0]).toBe(`- ${ROOT}/`);
    expect(ls.text).toContain('\n  - src/\n    - greeting.js');
    expect(ls.text).not.toContain('docs');
    expect(ls.text).not.toContain('logo.png');

    const moved = await callTool(client, 'move', { from: 'notes/todo.md', to: 'notes/done.md' });
    expect(moved.isError).toBe(false);
    expect((await callTool(client, 'delete', { path: 'notes/done.md' })).isError).toBe(false);
  });

  it('Read of an image reaches the model as image content: no structuredContent beside it', async () => {
    const r = await client.callTool({ name: 'Read', arguments: { file_path: 'logo.png' } });
    expect(r.structuredContent).toBeUndefined();
    expect((r.content as { type: string }[]).map((c) => c.type)).toEqual(['text', 'image']);
    expect((r.content as { data?: string }[])[1].data).toBe(PNG_1x1.toString('base64'));
  });

  it('refusals carry the stable codes, in text and structure, with Claude Code field names', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['Read', { path: 'README.md' }, 'INVALID_INPUT'],
      ['Read', { file_path: 'README.md', offset: -1 }, 'INVALID_INPUT'],
      ['Read', { file_path: 'missing.md' }, 'NOT_FOUND'],
      ['Read', { file_path: 'src' }, 'IS_DIRECTORY'],
      ['Edit', { file_path: 'README.md', old_string: 'no such text', new_string: 'x' }, 'NO_MATCH'],
      ['Write', { file_path: '.campaign/brief.md', content: 'x' }, 'READ_ONLY'],
      ['Write', { file_path: 'gatefs.yaml', content: 'roles: []\n' }, 'PROTECTED_PATH'],
      ['Grep', { pattern: '[' }, 'INVALID_INPUT'],
      ['Bash', { command: 'ls' }, 'TOOL_NOT_ALLOWED'],
    ];
    for (const [tool, args, code] of cases) {
      const r = await callTool(client, tool, args);
      expect([tool, r.isError, r.structured.error?.code]).toEqual([tool, true, code]);
      expect(r.text.startsWith(`${code}: `)).toBe(true);
    }
    expect((await callTool(client, 'Read', { path: 'README.md' })).text).toBe(
      'INVALID_INPUT: path: unknown field (not in the schema); did you mean file_path? Read takes: file_path (required), offset, limit.',
    );
  });

  it('a hostile path reads nothing outside and changes nothing outside', async () => {
    const outside = readFileSync(join(repo.root, 'secret.txt'));
    const attempts: [string, Record<string, unknown>, string][] = [
      ['Read', { file_path: '../../../secret.txt' }, 'PATH_ESCAPE'],
      ['Read', { file_path: join(repo.root, 'secret.txt') }, 'OUTSIDE_MOUNTS'],
      ['Read', { file_path: 'src/leak.txt' }, 'SYMLINK_ESCAPE'],
      ['Write', { file_path: 'src/leak.txt', content: 'overwritten' }, 'SYMLINK_ESCAPE'],
      ['Edit', { file_path: `${ROOT}/../other/x`, old_string: '', new_string: 'x' }, 'PATH_ESCAPE'],
      ['Write', { file_path: '/worktrees/other/x', content: 'x' }, 'OUTSIDE_MOUNTS'],
      ['LS', { path: '/worktrees/cc/../..' }, 'PATH_ESCAPE'],
      ['Glob', { pattern: '/etc/*' }, 'OUTSIDE_MOUNTS'],
    ];
    for (const [tool, args, code] of attempts) {
      const r = await callTool(client, tool, args);
      expect([tool, JSON.stringify(args), r.structured.error?.code]).toEqual([tool, JSON.stringify(args), code]);
      expect(`${r.text}${JSON.stringify(r.structured)}`).not.toContain(SENTINEL);
    }
    const grep = await callTool(client, 'Grep', { pattern: SENTINEL.slice(0, 12), output_mode: 'content' });
    expect(grep.text).not.toContain(SENTINEL);
    expect(grep.text).toMatch(/^No matches found/);
    expect(sha(readFileSync(join(repo.root, 'secret.txt')))).toBe(sha(outside));
    const host = await callTool(client, 'Read', { file_path: join(repo.dir, 'README.md') });
    expect(host.text).toContain(`this workspace is ${ROOT}: pass a path relative to it, or an absolute path under it`);
  });
});

describe('serve --profile claude-code over HTTP', () => {
  let server: HttpServer;
  let http: Client;
  const TOKEN = 'profile-token-0123456789';

  beforeAll(async () => {
    const prepared = await gatefs(['prepare', 'web', '--repo', repo.dir, '--manifest', manifest]);
    if (prepared.code !== 0) throw new Error(`gatefs prepare web failed: ${prepared.stderr}`);
    server = await startHttpServer(['--repo', repo.dir, '--manifest', manifest, '--profile', 'claude-code'], repo.root, {
      GATEFS_TOKEN: TOKEN,
    });
    http = await httpClient(`${server.base}/mcp/web`, { Authorization: `Bearer ${TOKEN}` });
  });

  afterAll(async () => {
    await http?.close();
    await server?.stop();
  });

  it("serves the same tools under Claude Code's names and calls them through the gate", async () => {
    expect(server.stderr()).toContain('claude-code tool names');
    const { tools } = await http.listTools();
    expect(tools.map((t) => t.name).slice(0, 7)).toEqual(['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS']);
    const r = await callTool(http, 'Read', { file_path: '/worktrees/web/README.md', limit: 1 });
    expect(r.structured).toMatchObject({ filePath: '/worktrees/web/README.md', numLines: 1 });
    expect((await callTool(http, 'Read', { file_path: '/worktrees/cc/README.md' })).structured.error.code).toBe('OUTSIDE_MOUNTS');
  });
});

describe('serve --profile', () => {
  it('refuses an unknown profile with a usage error', async () => {
    const r = await gatefs(['serve', '--repo', repo.dir, '--conversation', 'x', '--profile', 'cursor']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--profile must be one of gatefs, claude-code');
  });
});
