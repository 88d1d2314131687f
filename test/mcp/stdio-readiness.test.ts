/**
 * `gatefs serve` over stdio answers at once and makes its workspace ready in the background,
 * driven by the SDK client as Claude Code drives it: `initialize` is answered before the
 * workspace exists, a tool call made meanwhile waits with progress notifications and then
 * works, and a workspace that cannot be made ready answers every call with a tool error that
 * names the problem and what to do, while `tools/list` still answers. The folder and file it
 * names are the ones of the client's own command line (test/mcp/connect-errors.test.ts has
 * every cause).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { git, sampleRepo } from '../cli/run-gatefs.js';
import { stdioClient } from './mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
let root: string;
const open: Client[] = [];

beforeAll(() => {
  repo = sampleRepo();
  root = mkdtempSync(join(tmpdir(), 'gatefs-ready-'));
});
afterAll(async () => {
  for (const c of open) await c.close();
  repo?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

async function connect(args: string[], cwd = repo.root) {
  const c = await stdioClient(args, cwd);
  open.push(c.client);
  return c;
}

describe('a conversation that does not exist yet', () => {
  it('initialize is answered before its workspace exists; a call made at once waits with progress, then reads', async () => {
    // 2,000 more files: the preparation takes a while even on a fast machine.
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(repo.dir, 'bulk', `d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(join(repo.dir, 'bulk', `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
    git(repo.dir, 'add', '-A');
    git(repo.dir, 'commit', '--quiet', '-m', 'bulk');
    const { client, stderr } = await connect(['--repo', repo.dir, '--conversation', 'fresh']);
    const progress: Progress[] = [];
    const r = await client.request(
      { method: 'tools/call', params: { name: 'read', arguments: { path: 'bulk/d7/f3.txt' } } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true },
    );
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { content: string }).content).toBe('7/3\n');
    // The call arrived before the workspace was ready, so it waited, and said so.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.message).toMatch(/^waiting for gatefs: (opening the state directory|preparing the workspace of "fresh"|occupying)/);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    expect(stderr()).toContain('workspace of "fresh" ready');
  });
});

describe('a workspace that cannot be made ready', () => {
  it('a folder that is not a git repository: tools are listed; each call answers WORKSPACE_NOT_READY with the code, the folder and the fix', async () => {
    const plain = join(root, 'not-a-repo');
    mkdirSync(plain);
    writeFileSync(join(plain, 'a.txt'), 'a\n');
    const { client, stderr } = await connect(['--repo', plain, '--conversation', 'nope']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['edit', 'grep', 'list', 'read', 'write']));
    for (let i = 0; i < 2; i++) {
      const r = await client.callTool({ name: 'read', arguments: { path: 'a.txt' } });
      expect(r.isError).toBe(true);
      const error = (r.structuredContent as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('WORKSPACE_NOT_READY');
      expect(error.message).toContain('NOT_A_GIT_REPOSITORY');
      expect(error.message).toContain('give the role backend: copy');
      expect(error.message).toContain('the next call tries again');
      expect(error.message).toContain(`the repository folder ${plain} is not a git repository`); // the client's own --repo
    }
    expect(stderr()).toContain(plain); // the operator's log has the whole story
  });

  it('a broken gatefs.yaml: tools/list answers an error naming the key; calls answer WORKSPACE_NOT_READY', async () => {
    const bad = sampleRepo();
    try {
      writeFileSync(join(bad.dir, 'gatefs.yaml'), 'roles:\n  - name: r\n    tools: [read]\n    colour: blue\n');
      const { client } = await connect(['--conversation', 'broken'], bad.dir);
      await expect(client.listTools()).rejects.toThrow(/gatefs cannot serve this workspace: .*gatefs\.yaml:4: roles\[0\]\.colour/);
      const r = await client.callTool({ name: 'read', arguments: { path: 'README.md' } });
      const error = (r.structuredContent as { error: { code: string; details: Record<string, unknown> } }).error;
      expect(error.code).toBe('WORKSPACE_NOT_READY');
      expect(error.details).toMatchObject({ cause: 'UNKNOWN_KEY', line: 4, keyPath: 'roles[0].colour', got: 'colour' });
    } finally {
      bad.cleanup();
    }
  });
});
