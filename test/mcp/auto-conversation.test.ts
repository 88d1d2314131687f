/**
 * `gatefs serve --conversation auto` through the built binary and the SDK client, as MCP clients
 * start it: one workspace per client window in the working folder, the same one when a window
 * reconnects, a closed window's workspace continued by the next window, so workspaces do not
 * pile up. A window is the process that started the server; here `sleep` processes stand for
 * windows (GATEFS_WINDOW_PID), and the test process itself for one window when it is not set.
 * A window that continues a closed window's workspace holding uncommitted files is told so
 * with its first tool answer (how many, their names, and that diff shows them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, gatefs, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, type CallOutcome } from './mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
const windows: ChildProcess[] = [];

beforeAll(() => {
  repo = sampleRepo();
});
afterAll(() => {
  for (const w of windows) w.kill('SIGKILL');
  repo?.cleanup();
});

/** A process standing for a client window; `close()` ends it. */
function newWindow(): { pid: number; close: () => Promise<void> } {
  const w = spawn('sleep', ['600'], { stdio: 'ignore' });
  windows.push(w);
  return {
    pid: w.pid!,
    close: () =>
      new Promise((resolve) => {
        w.once('exit', () => resolve());
        w.kill('SIGKILL');
      }),
  };
}

/** `gatefs serve --conversation auto` from the repository folder, for `window` (undefined: this process). */
async function connect(window?: number): Promise<{ client: Client; conversation: () => string; first: CallOutcome; stderr: () => string }> {
  const env = { ...process.env } as Record<string, string>;
  delete env.GATEFS_WINDOW_PID;
  if (window) env.GATEFS_WINDOW_PID = String(window);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--conversation', 'auto'],
    cwd: repo.dir,
    env,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => (err += d));
  const client = new SdkClient({ name: 'auto-test', version: '1' });
  await client.connect(transport);
  // The first call waits until the conversation is chosen and its workspace ready.
  const first = await callTool(client, 'list', {});
  expect(first.isError).toBe(false);
  const conversation = () => {
    const m = /conversation "([a-z0-9_-]+)" for the client window/.exec(err);
    if (!m) throw new Error(`no conversation chosen:\n${err}`);
    return m[1]!;
  };
  return { client, conversation, first, stderr: () => err };
}

/** The note gatefs puts before the first answer of a continued workspace, or undefined. */
function noticeOf(outcome: CallOutcome): string | undefined {
  return /^Note from gatefs: (.*)$/m.exec(outcome.text)?.[1];
}

async function workspaces(): Promise<string[]> {
  const rows = JSON.parse((await gatefs(['status', '--json'], { cwd: repo.dir })).stdout) as { conversation: string; state: string }[];
  return rows.filter((r) => r.state === 'ready').map((r) => r.conversation);
}

describe('serve --conversation auto', () => {
  it('two windows get two workspaces; a reconnect finds its own; a closed window leaves its workspace to the next one', async () => {
    const w1 = newWindow();
    const w2 = newWindow();
    const a = await connect(w1.pid);
    const b = await connect(w2.pid);
    expect(noticeOf(a.first)).toBeUndefined();
    expect(a.conversation()).toMatch(/^repo-[0-9a-f]{6}-1$/);
    expect(b.conversation()).toMatch(/^repo-[0-9a-f]{6}-2$/);
    expect((await callTool(a.client, 'write', { path: 'from-a.txt', content: 'a\n' })).isError).toBe(false);
    expect((await callTool(b.client, 'read', { path: 'from-a.txt' })).structured.error.code).toBe('NOT_FOUND');

    // Window 1 reconnects (its client restarted the server): the same workspace, with its file.
    await a.client.close();
    const again = await connect(w1.pid);
    expect(again.conversation()).toBe(a.conversation());
    expect(noticeOf(again.first)).toBeUndefined(); // the same window: its agent knows its own work
    expect((await callTool(again.client, 'read', { path: 'from-a.txt' })).structured.content).toBe('a\n');

    // Window 1 closes; a third window continues its workspace instead of making a third.
    await again.client.close();
    await w1.close();
    const w3 = newWindow();
    const c = await connect(w3.pid);
    expect(c.conversation()).toBe(a.conversation());
    // The new window's agent did not write from-a.txt: its first answer says the workspace holds it.
    const notice = noticeOf(c.first);
    expect(notice).toContain('holds 1 uncommitted file from before: from-a.txt.');
    expect(notice).toContain('The diff tool');
    expect(c.first.structured.entries).toBeDefined(); // the answer itself is intact
    expect(c.stderr()).toContain('continues a closed window');
    // Told once: the next answer carries no note.
    expect(noticeOf(await callTool(c.client, 'read', { path: 'from-a.txt' }))).toBeUndefined();
    expect((await callTool(c.client, 'read', { path: 'from-a.txt' })).structured.content).toBe('a\n');
    expect((await workspaces()).sort()).toEqual([a.conversation(), b.conversation()].sort());
    await b.client.close();
    await c.client.close();
  }, 120_000);

  it('without GATEFS_WINDOW_PID the window is the process that started the server: a restart reconnects', async () => {
    const first = await connect();
    const id = first.conversation();
    await first.client.close();
    const second = await connect();
    expect(second.conversation()).toBe(id);
    await second.client.close();
  });
});
