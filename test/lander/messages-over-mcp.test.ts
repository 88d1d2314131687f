/**
 * The agent's loop over the real MCP server (`gatefs serve` over stdio, the official SDK client),
 * with no gatefs.yaml (the default role), real git and the state store on disk: the agent
 * submits, the lander (another process's host, real check processes) refuses it on a failing
 * check, and the agent reads with `messages {requestId}` the checks that ran, each exit code and
 * duration, and the failing one's output tail; it fixes the work, and reads the landing's report
 * with `unread`; a new server sees those messages read; another conversation sees none of them;
 * `diff` after the landing shows only work not yet on main. `gatefs lander status` shows why a
 * submission is blocked and what unblocks it; `gatefs lander` alone lists its actions.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createHost } from '../../src/host/composition/create-host.js';
import { ExecCheckRunner } from '../../src/ports/check-runner.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { callTool, stdioClient } from '../mcp/mcp-client.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * The lander's checks: `lint` passes, `unit` fails with exit 3 and a message on stderr unless
 * a.txt says "good". Run as plain processes (test/sandbox/ covers the sandboxed runner).
 */
const SETTINGS = {
  lander: {
    checks: [
      { name: 'lint', command: 'true' },
      { name: 'unit', command: `sh -c 'echo running unit; grep -q good a.txt || { echo "a.txt: expected good" >&2; exit 3; }'` },
    ],
  },
};

/** Runs the lander once over `repo`, in this process, as `gatefs lander run` would. */
async function runLander(repo: TempRepo) {
  const host = await createHost({ repo: repo.dir, settings: SETTINGS, checks: new ExecCheckRunner(new NodeHostExec()) });
  try {
    return await host.lander.run();
  } finally {
    await host.close();
  }
}

async function serve(repo: TempRepo, conversation: string): Promise<Client> {
  const { client } = await stdioClient(['--repo', repo.dir, '--conversation', conversation], repo.dir);
  cleanups.push(() => client.close());
  return client;
}

async function ok(client: Client, tool: string, args: Record<string, unknown>) {
  const r = await callTool(client, tool, args);
  expect(r.isError, `${tool}: ${r.text}`).toBe(false);
  return r;
}

/** A CLI run's printed text and exit code. */
async function cli(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const out = {
    print: (t: string) => void lines.push(t),
    json: () => undefined,
    jsonLine: () => undefined,
    progress: (t: string) => void lines.push(t),
    problem: (t: string) => void lines.push(t),
  };
  const code = await runCli(args, COMMANDS, out);
  return { code, text: lines.join('\n') };
}

describe('messages over MCP', () => {
  it('an agent reads its failed check, then its landing, and diff shows only what is not home', async () => {
    const repo = makeTempRepo({ 'README.md': '# r\n', 'a.txt': 'start\n' });
    cleanups.push(() => repo.cleanup());
    const agent = await serve(repo, 'a');
    const listed = (await agent.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(expect.arrayContaining(['diff', 'commit', 'submit', 'messages']));

    await ok(agent, 'write', { path: 'a.txt', content: 'bad\n' });
    await ok(agent, 'commit', { message: 'a.txt: bad' });
    const first = await ok(agent, 'submit', { divergence: 'None' });
    const { requestId, submissionId } = first.structured as { requestId: string; submissionId: string };
    expect(first.text).toContain(`messages {"requestId": "${requestId}"}`);
    const queued = await ok(agent, 'messages', { requestId });
    expect(queued.structured).toEqual({
      messages: [],
      pending: [{ requestId, submissionId, target: 'main', state: 'queued', queuePosition: 1 }],
      more: 0,
    });
    expect(queued.text).toContain('is queued for main, position 1');

    expect((await runLander(repo)).failed).toEqual([submissionId]);
    const refused = await ok(agent, 'messages', { requestId });
    const [input] = refused.structured.messages;
    expect(input).toMatchObject({ kind: 'input', outcome: 'failed', reason: 'CHECK_FAILED', submissionId, target: 'main' });
    expect(input.checks.map((c: { name: string; exitCode: number }) => [c.name, c.exitCode])).toEqual([
      ['lint', 0],
      ['unit', 3],
    ]);
    for (const c of input.checks) expect(c.durationMs).toBeGreaterThanOrEqual(0);
    expect(input.checks[1].output).toContain('running unit');
    expect(input.checks[1].output).toContain('a.txt: expected good');
    expect(input.checks[0].output).toBeUndefined();
    expect(refused.text).toMatch(/check lint: exit code 0, \d+ ms/);
    expect(refused.text).toMatch(/check unit: exit code 3, \d+ ms\n {4}output:\n {6}running unit/);
    // The operator's view of the same message.
    const printed = await cli(['messages', 'a', '--repo', repo.dir]);
    expect(printed.text).toMatch(
      /was not landed: check 'unit' failed with exit code 3\n {2}check lint: exit code 0, \d+ ms\n {2}check unit: exit code 3, \d+ ms\n {2}output:/,
    );
    // Read by its id: not unread any more.
    expect((await ok(agent, 'messages', { unread: true })).structured.messages).toEqual([]);

    await ok(agent, 'write', { path: 'a.txt', content: 'good\n' });
    await ok(agent, 'commit', { message: 'a.txt: good' });
    const second = (await ok(agent, 'submit', { divergence: 'None', summary: 'a.txt is good' })).structured as { requestId: string };
    expect((await runLander(repo)).landed).toHaveLength(1);
    expect(repo.git('show', 'main:a.txt')).toBe('good');
    const landed = await ok(agent, 'messages', { unread: true });
    expect(landed.structured.messages.map((m: { kind: string; requestId: string }) => [m.kind, m.requestId])).toEqual([
      ['report', second.requestId],
      ['note', `${second.requestId}/note`],
    ]);
    const report = landed.structured.messages[0];
    expect(report).toMatchObject({ outcome: 'landed', target: 'main', landedSha: repo.git('rev-parse', 'main') });
    expect(report.checks.map((c: { name: string; exitCode: number }) => [c.name, c.exitCode])).toEqual([
      ['lint', 0],
      ['unit', 0],
    ]);
    expect(landed.text).toMatch(
      /landed on main at [0-9a-f]{12}; 2 check\(s\) passed\n {2}check lint: exit code 0, \d+ ms\n {2}check unit: exit code 0/,
    );

    // diff: the landed work is home; only what comes after shows.
    const home = await ok(agent, 'diff', {});
    expect(home.structured).toMatchObject({ base: 'pinned', files: [], landedOn: 'main' });
    expect(home.text).toContain('changes not yet on main');
    await ok(agent, 'write', { path: 'later.txt', content: 'later\n' });
    const later = await ok(agent, 'diff', {});
    expect(later.structured.files).toEqual([{ path: 'later.txt', status: 'added' }]);
    await agent.close();

    // A new server over the same state: the messages stay read, and are still there by id.
    const again = await serve(repo, 'a');
    expect((await ok(again, 'messages', { unread: true })).structured.messages).toEqual([]);
    expect((await ok(again, 'messages', { requestId })).structured.messages).toHaveLength(1);

    // Another conversation sees none of a's messages, by id or otherwise.
    const other = await serve(repo, 'b');
    for (const args of [{}, { unread: true }, { requestId }, { requestId: second.requestId }, { requestId: `${second.requestId}/note` }]) {
      expect((await ok(other, 'messages', args)).structured).toEqual({ messages: [], pending: [], more: 0 });
    }
  });

  it('lander status says why a submission is blocked and what unblocks it; lander alone lists its actions', async () => {
    const repo = makeTempRepo({ 'README.md': '# r\n', 'a.txt': 'start\n' });
    cleanups.push(() => repo.cleanup());
    const settings = join(repo.dir, '..', 'settings.json');
    writeFileSync(settings, JSON.stringify({ lander: { checks: [] } }));
    const host = await createHost({ repo: repo.dir, settings: { lander: { checks: [] } } });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'a' });
    expect(await host.gate.call('a', 'write', { path: 'a.txt', content: 'from a\n' })).toMatchObject({ ok: true });
    expect(await host.gate.call('a', 'commit', { message: 'a' })).toMatchObject({ ok: true });
    const submitted = await host.gate.call('a', 'submit', { divergence: 'None' });
    const { submissionId, requestId } = (submitted as { value: { submissionId: string; requestId: string } }).value;
    // A person's uncommitted change to the same file in the checkout that has main checked out.
    writeFileSync(join(repo.dir, 'a.txt'), 'edited by hand\n');
    const run = await cli(['lander', 'run', '--repo', repo.dir, '--settings', settings]);
    expect(run.code).toBe(0);
    expect(run.text).toContain(`blocked ${submissionId}`);

    const status = await cli(['lander', 'status', '--repo', repo.dir]);
    expect(status.code).toBe(0);
    expect(status.text).toMatch(new RegExp(`${submissionId} .* checked .* blocked: UNCOMMITTED_CHANGES`));
    expect(status.text).toContain(
      `${submissionId} is blocked: moving main would overwrite uncommitted changes (a.txt) in the checkout that has it checked out.`,
    );
    expect(status.text).toContain('To unblock: commit, stash or discard those changes in the checkout that has main checked out');
    expect(host.lander.status()[0]).toMatchObject({ state: 'checked', reason: 'UNCOMMITTED_CHANGES', blocked: { files: ['a.txt'] } });

    // The submitter reads the same through messages.
    const seen = await host.gate.call('a', 'messages', { requestId });
    expect(seen).toMatchObject({
      ok: true,
      value: {
        messages: [],
        pending: [{ submissionId, state: 'checked', blocked: { reason: 'UNCOMMITTED_CHANGES', files: ['a.txt'] } }],
      },
    });

    // Once the person commits, the next run lands it and the block is gone.
    repo.git('checkout', '--', 'a.txt');
    expect((await cli(['lander', 'run', '--repo', repo.dir, '--settings', settings])).code).toBe(0);
    expect(host.lander.status()[0]).toMatchObject({ state: 'done', reason: null, blocked: null });

    const bare = await cli(['lander', '--repo', repo.dir]);
    expect(bare.code).toBe(2);
    expect(bare.text).toContain('lander needs an action: run (land every queued submission once; ');
    expect(bare.text).toContain(', or status (show the queue, and why a submission failed or is blocked)');
    expect((await cli(['lander', 'land', '--repo', repo.dir])).text).toContain('lander needs an action (got "land"): run (');
  });
});
