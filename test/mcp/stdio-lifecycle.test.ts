/**
 * A real `gatefs serve` over stdio frees its workspace however it is stopped: the client closing
 * stdin, SIGTERM (what MCP clients send after closing stdin), SIGINT (Ctrl-C) and SIGHUP (a
 * closed terminal). Before the stop a `gatefs call … write` is refused with OCCUPIED; after it
 * the same call succeeds. The server says on stderr what happened; stdout carries only JSON-RPC.
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
  send: (message: unknown) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `gatefs serve --conversation <id>` and waits until it answered `initialize`. */
async function serve(conversation: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir, '--conversation', conversation], { stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdin.on('error', () => undefined); // a server that stopped reading: EPIPE on our side
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const initialized = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('"id":1')) resolve();
    });
    void exited.then(() => reject(new Error(`serve exited early:\n${err}`)));
  });
  const send = (message: unknown) => void child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lifecycle', version: '1' } } });
  await initialized;
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { child, stdout: () => out, stderr: () => err, send, exited };
}

const cliWrite = (conversation: string, name: string) => gatefs(['call', conversation, 'write', JSON.stringify({ path: name, content: 'from the CLI\n' }), '--repo', repo.dir]);

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
    if (existsSync(file)) expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(createHash('sha256').update(content).digest('hex'));
    expect((await cliWrite('life-midcall', 'after.txt')).code).toBe(0);
  });
});
