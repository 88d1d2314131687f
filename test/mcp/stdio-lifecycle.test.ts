/**
 * A real `gatefs serve` over stdio frees its workspace however it is stopped: the client closing
 * stdin, SIGTERM (what MCP clients send after closing stdin), SIGINT (Ctrl-C) and SIGHUP (a
 * closed terminal). Before the stop a `gatefs call … write` is refused with OCCUPIED; after it
 * the same call succeeds. The server says on stderr what happened; stdout carries only JSON-RPC.
 * Calls sent before stdin closed are all answered; a client that does not read the answers makes
 * the server stop reading requests (as a pipe does) instead of buffering answers without end.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, gatefs, sampleRepo } from '../cli/run-gatefs.js';

let repo: ReturnType<typeof sampleRepo>;

beforeAll(() => {
  repo = sampleRepo();
});
afterAll(() => repo?.cleanup());

interface Served {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  send: (message: unknown) => boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `gatefs serve --conversation <id>`, waits until it answered `initialize`, then until a
 * first tool call (id "ready") is answered: the workspace is then prepared and held.
 */
async function serve(conversation: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir, '--conversation', conversation], { stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdin.on('error', () => undefined); // a server that stopped reading: EPIPE on our side
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const initialized = new Promise<void>((resolve, reject) => {
    let waiting = true;
    child.stdout.on('data', (d) => {
      out += d;
      if (waiting && out.includes('"id":1')) {
        waiting = false;
        resolve();
      }
    });
    void exited.then(() => reject(new Error(`serve exited early:\n${err}`)));
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lifecycle', version: '1' } },
  });
  await initialized;
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 'ready', method: 'tools/call', params: { name: 'list', arguments: {} } });
  while (!out.includes('"id":"ready"')) {
    if (child.exitCode !== null) throw new Error(`serve exited early:\n${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, stdout: () => out, stderr: () => err, send, exited };
}

const cliWrite = (conversation: string, name: string) =>
  gatefs(['call', conversation, 'write', JSON.stringify({ path: name, content: 'from the CLI\n' }), '--repo', repo.dir]);

const stops: [string, string, (s: Served) => void][] = [
  ['the client closes stdin', 'stdin closed', (s) => s.child.stdin.end()],
  ['SIGTERM', 'SIGTERM', (s) => s.child.kill('SIGTERM')],
  ['SIGINT', 'SIGINT', (s) => s.child.kill('SIGINT')],
  ['SIGHUP', 'SIGHUP', (s) => s.child.kill('SIGHUP')],
];

describe('stopping a stdio server frees its workspace', () => {
  it.each(stops)('%s', async (_name, reason, stop) => {
    const conversation = `life-${reason.toLowerCase().replace(/\W+/g, '-')}`;
    const served = await serve(conversation);
    const before = await cliWrite(conversation, 'before.txt');
    expect(before.code).toBe(1);
    expect(before.stderr).toMatch(/^gatefs: OCCUPIED: /);
    stop(served);
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toContain(`gatefs: ${reason}: conversation "${conversation}" is free again; exiting`);
    for (const line of served.stdout().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const after = await cliWrite(conversation, 'after.txt');
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  });

  it('SIGTERM right after a write: the file is whole or absent, and the workspace is free', async () => {
    const served = await serve('life-midcall');
    const content = 'z'.repeat(4 * 1024 * 1024);
    served.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write', arguments: { path: 'mid.txt', content } } });
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
    const file = join(repo.dir, '.gatefs/worktrees/life-midcall/mid.txt');
    if (existsSync(file))
      expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(createHash('sha256').update(content).digest('hex'));
    expect((await cliWrite('life-midcall', 'after.txt')).code).toBe(0);
  });

  it('a client that sends calls and closes stdin at once gets an answer to each', async () => {
    const served = await serve('life-batch');
    const calls: [string, object][] = [
      ['grep', { pattern: 'greet' }],
      ['grep', { pattern: 'function', literal: true }],
      ['list', { pattern: '**/*' }],
      ['read', { path: 'README.md' }],
      ['write', { path: 'batch.txt', content: 'piped\n' }],
      ['grep', { pattern: 'piped|greet' }],
    ];
    calls.forEach(([name, args], i) =>
      served.send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name, arguments: args } }),
    );
    served.child.stdin.end();
    expect(await served.exited).toEqual({ code: 0, signal: null });
    const answered = served
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    for (let i = 0; i < calls.length; i++)
      expect(answered.find((m) => m.id === 10 + i)?.result, `answer to ${calls[i][0]} (id ${10 + i})`).toBeDefined();
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/life-batch/batch.txt'), 'utf8')).toBe('piped\n');
  });

  it('a client that does not read the answers: the server stops taking requests until it does, then answers every one', async () => {
    const served = await serve('life-unread');
    served.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      // 2,000 lines of 127 characters: read's default window, about 256 KiB of text (no line is cut).
      params: { name: 'write', arguments: { path: 'big.txt', content: `${'a'.repeat(127)}\n`.repeat(2000) } },
    });
    while (!served.stdout().includes('"id":2')) await new Promise((r) => setTimeout(r, 20));
    const answered = new Set<number>();
    let rest = '';
    served.child.stdout.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop()!;
      for (const line of lines) answered.add(JSON.parse(line).id);
    });
    served.child.stdout.pause(); // from now on nothing reads the answers (about 0.5 MB each)
    const requests = 150;
    let accepted = true;
    for (let i = 0; i < requests; i++) {
      accepted = served.send({
        jsonrpc: '2.0',
        id: 100 + i,
        method: 'tools/call',
        params: { name: 'read', arguments: { path: 'big.txt' }, _meta: { pad: 'p'.repeat(2000) } },
      });
    }
    expect(accepted).toBe(false); // 300 KB of requests: more than the pipe holds
    // A server that kept reading would take all 300 KB at once and buffer 75 MB of answers.
    const drained = await Promise.race([
      new Promise((resolve) => served.child.stdin.once('drain', () => resolve('drained'))),
      new Promise((resolve) => setTimeout(() => resolve('held'), 5000)),
    ]);
    expect(drained).toBe('held');
    served.child.stdout.resume();
    while (answered.size < requests) await new Promise((r) => setTimeout(r, 50));
    expect([...answered].sort((a, b) => a - b)).toEqual(Array.from({ length: requests }, (_, i) => 100 + i));
    served.child.stdin.end();
    expect(await served.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('stdin ending in the middle of a message: the message is not run, and the log says so', async () => {
    const served = await serve('life-partial');
    served.child.stdin.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'write', arguments: { path: 'half.txt', content: 'x' } },
      }),
    );
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toMatch(/stdio: stdin ended in the middle of a message \(\d+ bytes without a newline\); it was not run/);
    expect(existsSync(join(repo.dir, '.gatefs/worktrees/life-partial/half.txt'))).toBe(false);
  });

  it('the client closing its end of stdout: the server stops at its next answer, says why, and frees the workspace', async () => {
    const served = await serve('life-epipe');
    served.child.stdout.destroy();
    served.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toContain(
      'gatefs: stdout failed (EPIPE): the client stopped reading: conversation "life-epipe" is free again; exiting',
    );
    expect((await cliWrite('life-epipe', 'after.txt')).code).toBe(0);
  });
});
