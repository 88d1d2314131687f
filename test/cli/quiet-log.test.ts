/**
 * The run log records what agents and operators did, not gatefs looking at itself: a session
 * of read-only commands (status, lander status, messages, log, tools, diff, a reading tool's call) through
 * the built binary leaves the record count unchanged but for the calls' own `tool_call`
 * records; gatefs's start-up git probes are never recorded; a `tool_call` names the paths the
 * call touched and, over MCP with the claude-code profile, the tool the client called (Glob and
 * LS, both the gate's list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { gatefs, sampleRepo } from './run-gatefs.js';
import { callTool, stdioClient } from '../mcp/mcp-client.js';

interface Logged {
  seq: number;
  type: string;
  conversation: string | null;
  data: Record<string, unknown>;
}

let repo: ReturnType<typeof sampleRepo>;
const run = (...args: string[]) => gatefs(args, { cwd: repo.dir });

/** Every record of the run log, through `gatefs log --json` (itself a read-only command). */
async function events(): Promise<Logged[]> {
  const r = await run('log', '--json', '--tail', '0');
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Logged);
}

beforeAll(async () => {
  repo = sampleRepo();
  expect((await run('prepare', 'alpha')).code).toBe(0);
}, 120_000);
afterAll(() => repo?.cleanup());

describe('read-only CLI commands append nothing to the run log', () => {
  it('status, lander status, messages, log, tools and diff leave the record count unchanged', async () => {
    const before = await events();
    expect(before.length).toBeGreaterThan(0);
    for (const args of [
      ['status'],
      ['status', '--json'],
      ['lander', 'status'],
      ['lander', 'status', '--json'],
      ['messages'],
      ['messages', 'alpha'],
      ['log'],
      ['log', '--failed'],
      ['log', '--wide', '--conversation', 'alpha'],
      ['tools', 'alpha'],
      ['diff', 'alpha'],
    ]) {
      const r = await run(...args);
      expect(r.code, `gatefs ${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    await run('doctor'); // exit 1 where no sandbox runs: it looks at the machine only
    const after = await events();
    expect(after.length).toBe(before.length);
    expect(after.at(-1)?.seq).toBe(before.at(-1)?.seq);
  });

  it("a reading tool's call leaves its tool_call record and nothing else", async () => {
    const before = await events();
    expect((await run('call', 'alpha', 'read', '{"path":"README.md"}')).code).toBe(0);
    expect((await run('call', 'alpha', 'list', '{"path":"src"}')).code).toBe(0);
    expect((await run('call', 'alpha', 'grep', '{"pattern":"export"}')).code).toBe(0);
    expect((await run('call', 'alpha', 'read', '{"path":"../outside"}')).code).toBe(1);
    const added = (await events()).slice(before.length);
    expect(added.map((e) => [e.type, e.conversation, e.data.tool, e.data.outcome, e.data.paths])).toEqual([
      ['tool_call', 'alpha', 'read', 'ok', ['README.md']],
      ['tool_call', 'alpha', 'list', 'ok', ['src']],
      ['tool_call', 'alpha', 'grep', 'ok', ['.']],
      ['tool_call', 'alpha', 'read', 'PATH_ESCAPE', ['../outside']],
    ]);
  });

  it('a writing call recovers and says so (host.start) and records its paths; the start-up git probes are never recorded', async () => {
    const before = await events();
    expect((await run('call', 'alpha', 'write', '{"path":"notes/new.md","content":"secret words\\n"}')).code).toBe(0);
    const added = (await events()).slice(before.length);
    expect(added.map((e) => e.type)).toEqual(['host.start', 'tool_call']);
    expect(added[1]!.data).toMatchObject({ tool: 'write', outcome: 'ok', paths: ['notes/new.md'] });
    expect(JSON.stringify(added)).not.toContain('secret words');
    const all = await events();
    expect(all.filter((e) => e.type === 'exec' && e.data.tag === 'start')).toEqual([]);
    // The preparation's own git commands are what an operator may need when it fails: kept.
    expect(all.some((e) => e.type === 'exec' && e.data.tag === 'prepare')).toBe(true);
  });
});

describe('tool_call records over MCP', () => {
  it('an edit records the path it changed and the gate tool', async () => {
    const { client } = await stdioClient(['--conversation', 'alpha'], repo.dir);
    try {
      const r = await callTool(client, 'edit', { path: 'README.md', oldString: 'sample', newString: 'example' });
      expect(r.isError, r.text).toBe(false);
    } finally {
      await client.close();
    }
    const edit = (await events()).filter((e) => e.type === 'tool_call' && e.data.tool === 'edit').at(-1);
    expect(edit?.data).toMatchObject({ tool: 'edit', outcome: 'ok', paths: ['README.md'] });
    expect(edit?.data.clientTool).toBeUndefined();
    expect(JSON.stringify(edit)).not.toContain('example');
  });

  it("the claude-code profile's Glob and LS both call list, and each record names the tool the client called", async () => {
    let client: Client | undefined;
    try {
      ({ client } = await stdioClient(['--conversation', 'alpha', '--profile', 'claude-code'], repo.dir));
      const glob = await callTool(client, 'Glob', { pattern: '**/*.ts' });
      expect(glob.isError, glob.text).toBe(false);
      const ls = await callTool(client, 'LS', { path: '/worktrees/alpha/src' });
      expect(ls.isError, ls.text).toBe(false);
      const read = await callTool(client, 'Read', { file_path: '/worktrees/alpha/README.md' });
      expect(read.isError, read.text).toBe(false);
    } finally {
      await client?.close();
    }
    const calls = (await events()).filter((e) => e.type === 'tool_call').slice(-3);
    expect(calls.map((e) => [e.data.tool, e.data.clientTool, e.data.outcome, e.data.paths])).toEqual([
      ['list', 'Glob', 'ok', ['.']],
      ['list', 'LS', 'ok', ['src']],
      ['read', 'Read', 'ok', ['README.md']],
    ]);
  });
});
