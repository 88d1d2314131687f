/**
 * The execution snapshot where agents and operators meet it: the MCP resource `gatefs://whereami`
 * (listed and read with the official SDK client over stdio — `gatefs serve` run from the
 * TypeScript sources — and over Streamable HTTP in process), equal to what `whereami` answers
 * over the same session; `gatefs describe ID` as text and JSON, read-only (the run log keeps its
 * length), with no host path in either.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMemoryHost, type Host } from '../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http/http-server.js';
import { parseListenAddress } from '../../src/mcp/http/listen-address.js';
import { CLAUDE_CODE_PROFILE } from '../../src/mcp/profiles/claude-code.js';
import { gateOf } from '../../src/mcp/profiles/tool-profile.js';
import { gatefsInProcess, ROOT } from '../cli/run-gatefs.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const MANIFEST = [
  'roles:',
  '  - name: impl',
  '    tools: [read, write, whereami]',
  '    workspace: { backend: worktree }',
  '  - name: plain',
  '    tools: [read]',
  '    workspace: { backend: copy }',
  '',
].join('\n');

/** Reads `gatefs://whereami` and answers the parsed JSON, checking the listing and the mime type first. */
async function readWhereami(client: Client): Promise<Record<string, unknown>> {
  const listed = await client.listResources();
  expect(listed.resources).toEqual([expect.objectContaining({ uri: 'gatefs://whereami', mimeType: 'application/json' })]);
  const read = await client.readResource({ uri: 'gatefs://whereami' });
  expect(read.contents).toHaveLength(1);
  const [content] = read.contents as { uri: string; mimeType: string; text: string }[];
  expect(content).toMatchObject({ uri: 'gatefs://whereami', mimeType: 'application/json' });
  return JSON.parse(content!.text) as Record<string, unknown>;
}

describe('the MCP resource gatefs://whereami', () => {
  let host: Host;
  let server: RunningHttpServer;
  beforeAll(async () => {
    host = await createMemoryHost({
      files: { 'README.md': '# whereami\n' },
      manifest: { roles: [{ name: 'impl', tools: ['read', 'whereami'], workspace: { backend: 'worktree' } }] },
    });
    await host.prepare({ conversation: 'task' });
    server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token: null });
  });
  afterAll(async () => {
    await server?.close();
    await host?.close();
  });

  it('answers the snapshot over Streamable HTTP, the same as whereami and host.describe', async () => {
    const client = new Client({ name: 'whereami-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/task`)));
    try {
      const snapshot = await readWhereami(client);
      expect(snapshot).toEqual(host.describe('task'));
      const called = await client.callTool({ name: 'whereami', arguments: {} });
      expect(called.structuredContent).toEqual(snapshot);
      await expect(client.readResource({ uri: 'gatefs://elsewhere' })).rejects.toThrow(/gatefs:\/\/whereami/);
    } finally {
      await client.close();
    }
  });

  it('is offered under its own name by the claude-code profile, with the same value', async () => {
    const listed = CLAUDE_CODE_PROFILE.tools(host.gate.tools('task'), 'task').map((t) => t.name);
    expect(listed).toEqual(['Read', 'whereami']);
    const called = await CLAUDE_CODE_PROFILE.call('whereami', {}, gateOf(host, 'task', undefined));
    expect(called.isError).not.toBe(true);
    expect(called.structuredContent).toEqual(host.describe('task'));
  });
});

describe('over stdio and on the command line (disk host)', () => {
  let repo: TempRepo;
  let manifest: string;
  beforeAll(async () => {
    repo = makeTempRepo({ 'README.md': '# whereami\n' });
    manifest = join(repo.dir, 'gatefs.yaml');
    writeFileSync(manifest, MANIFEST);
    repo.commit('manifest');
    const prepared = await gatefsInProcess(repo.dir, ['prepare', 'alpha', '--role', 'impl']);
    expect(prepared.code, prepared.stderr).toBe(0);
    expect((await gatefsInProcess(repo.dir, ['prepare', 'beta', '--role', 'plain'])).code).toBe(0);
  }, 120_000);
  afterAll(() => repo?.cleanup());

  it('answers the snapshot over stdio (gatefs serve from the sources), whatever tools the role declares', async () => {
    for (const conversation of ['alpha', 'beta']) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          '--import',
          join(ROOT, 'scripts/run-typescript.mjs'),
          join(ROOT, 'src/cli/main.ts'),
          'serve',
          '--conversation',
          conversation,
          '--repo',
          repo.dir,
        ],
        cwd: repo.dir,
        stderr: 'pipe',
        env: { ...process.env } as Record<string, string>,
      });
      const client = new Client({ name: 'whereami-test', version: '1' });
      await client.connect(transport);
      try {
        const snapshot = await readWhereami(client);
        expect(snapshot).toMatchObject({
          conversation,
          active: { anchor: `/worktrees/${conversation}` },
          cwd: `/worktrees/${conversation}`,
        });
        expect(JSON.stringify(snapshot)).not.toContain(repo.dir);
        if (conversation === 'alpha') {
          const called = await client.callTool({ name: 'whereami', arguments: {} });
          expect(called.structuredContent).toEqual(snapshot);
        } else {
          expect((snapshot as { policy: { tools: string[] } }).policy.tools).toEqual(['read']);
        }
      } finally {
        await client.close();
      }
    }
  }, 120_000);

  it('gatefs describe prints it as text and as JSON, and appends nothing to the run log', async () => {
    const logLength = async () => (await gatefsInProcess(repo.dir, ['log', '--json', '--tail', '0'])).stdout.trim().split('\n').length;
    const before = await logLength();
    const json = await gatefsInProcess(repo.dir, ['describe', 'alpha', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const snapshot = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(snapshot).toMatchObject({
      conversation: 'alpha',
      agent: 'impl',
      role: 'impl',
      active: { id: 'alpha', anchor: '/worktrees/alpha', projectionKind: 'git-worktree-root', accessMode: 'exclusive-write' },
      cwd: '/worktrees/alpha',
      worktreeRoot: '/worktrees/alpha',
      branch: 'gatefs/alpha',
      policy: { tools: ['read', 'write', 'whereami'], commands: null },
    });
    const text = await gatefsInProcess(repo.dir, ['describe', 'alpha']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('conversation: alpha (agent impl, role impl, run default visit 1)');
    expect(text.stdout).toContain('active: alpha at /worktrees/alpha (exclusive-write)');
    expect(text.stdout).toContain('cwd: /worktrees/alpha');
    expect(text.stdout).toContain('branch: gatefs/alpha');
    expect(text.stdout).toContain('commands: none');
    expect(text.stdout).toMatch(/own \(active\)\s+alpha\s+\/worktrees\/alpha\s+git-worktree-root\s+exclusive-write/);
    expect(text.stdout).toMatch(/home\s+home\s+\/home\s+agent-home/);
    for (const out of [json.stdout, text.stdout]) expect(out).not.toContain(repo.dir);
    const unknown = await gatefsInProcess(repo.dir, ['describe', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('UNKNOWN_CONVERSATION');
    expect(await logLength()).toBe(before);
  }, 120_000);
});
