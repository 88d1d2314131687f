/**
 * `gatefs serve --http --allow-new` on loopback with a bearer token from GATEFS_TOKEN, driven by
 * the SDK's Streamable HTTP client: two conversations isolated through two sessions, progressive
 * disclosure through request_files, a write of 10 Mi characters (an 11+ MiB body), and garbage
 * (invalid JSON, a rebinding Host header, a foreign Origin, a missing token, a client that hangs
 * up mid-call) that leaves the server up and the workspaces intact.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { gatefs, git, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, httpClient, startHttpServer, type HttpServer } from './mcp-client.js';

const TOKEN = 'test-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
let repo: ReturnType<typeof sampleRepo>;
let server: HttpServer;
let alice: Client;
let bob: Client;

/** A raw HTTP request, for what the SDK client would never send. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const host = () => ({ host: `127.0.0.1:${server.port}` });

beforeAll(async () => {
  repo = sampleRepo();
  // carol is a reviewer (progressive disclosure), prepared by the CLI; the server reuses it.
  const prepared = await gatefs(['prepare', 'carol', '--role', 'reviewer', '--repo', repo.dir]);
  if (prepared.code !== 0) throw new Error(`gatefs prepare carol failed: ${prepared.stderr}`);
  server = await startHttpServer(['--repo', repo.dir, '--allow-new'], repo.root, { GATEFS_TOKEN: TOKEN });
  alice = await httpClient(`${server.base}/mcp/alice`, AUTH);
  bob = await httpClient(`${server.base}/mcp/bob`, AUTH);
});

afterAll(async () => {
  await alice?.close().catch(() => undefined);
  await bob?.close().catch(() => undefined);
  await server?.stop();
  repo?.cleanup();
});

describe('two conversations over HTTP', () => {
  it('opens a session on a new conversation at once, prepares it in the background, and lists its tools', async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['edit', 'grep', 'list', 'read', 'write']);
    expect(server.stderr()).toMatch(/session session-[0-9a-f]+ opened \(conversation alice, holder once its workspace is ready\)/);
    expect((await callTool(alice, 'list', {})).isError).toBe(false); // waits for the preparation
    expect(server.stderr()).toMatch(/session session-[0-9a-f]+ holds conversation alice \(holder mcp-\d+-[0-9a-f]+\)/);
  });

  it("a write in alice's workspace is invisible to bob and to the main checkout", async () => {
    const w = await callTool(alice, 'write', { path: 'src/greeting.js', content: 'export const greeting = () => "hi";\n' });
    expect(w.isError).toBe(false);
    expect((await callTool(alice, 'read', { path: 'src/greeting.js' })).structured.content).toContain('"hi"');
    const b = await callTool(bob, 'read', { path: 'src/greeting.js' });
    expect(b.structured.content).toContain('Hello, ${name}!');
    expect(readFileSync(join(repo.dir, 'src/greeting.js'), 'utf8')).toContain('Hello, ${name}!');
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });

  it('the sessions of a conversation occupy it: a CLI write meanwhile is refused with OCCUPIED', async () => {
    const w = await gatefs(['call', 'bob', 'write', '{"path":"cli.txt","content":"x"}', '--repo', repo.dir]);
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/^gatefs: OCCUPIED: /);
    const second = await httpClient(`${server.base}/mcp/bob`, AUTH);
    try {
      expect((await callTool(second, 'write', { path: 'second.txt', content: 'two sessions, one holder\n' })).isError).toBe(false);
      expect((await callTool(bob, 'read', { path: 'second.txt' })).structured.content).toBe('two sessions, one holder\n');
    } finally {
      await second.close();
    }
  });

  it("bob cannot reach alice's workspace by its namespace path", async () => {
    const r = await callTool(bob, 'read', { path: '/worktrees/alice/src/greeting.js' });
    expect(r.isError).toBe(true);
    expect(r.structured.error.code).toBe('OUTSIDE_MOUNTS');
  });

  it('a reviewer conversation prepared by the CLI discloses files through request_files', async () => {
    const carol = await httpClient(`${server.base}/mcp/carol`, AUTH);
    try {
      expect((await carol.listTools()).tools.map((t) => t.name).sort()).toEqual(['grep', 'list', 'read', 'request_files']);
      const hidden = await callTool(carol, 'read', { path: 'src/secret-config.js' });
      expect(hidden.structured.error?.code).toBe('NOT_DISCLOSED');
      const asked = await callTool(carol, 'request_files', { paths: ['src/secret-config.js'], reason: 'check retries' });
      expect(asked.isError).toBe(false);
      expect(asked.structured).toMatchObject({ outcome: 'approved', disclosedPaths: ['src/secret-config.js'] });
      const shown = await callTool(carol, 'read', { path: 'src/secret-config.js' });
      expect(shown.structured.content).toContain('retries = 3');
    } finally {
      await carol.close().catch(() => undefined);
    }
  });
});

describe('garbage leaves the server up and the workspaces intact', () => {
  it('invalid JSON gets 400 with a JSON-RPC parse error', async () => {
    const r = await raw('POST', '/mcp/alice', { ...host(), ...AUTH }, '{"jsonrpc": "2.0", "method":');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.code).toBe(-32700);
  });

  it('a DNS-rebinding Host header gets 403', async () => {
    const r = await raw('POST', '/mcp/alice', { host: `evil.example:${server.port}`, ...AUTH }, '{}');
    expect(r.status).toBe(403);
    expect(r.body).toContain('Host header');
  });

  it('a foreign Origin gets 403', async () => {
    const r = await raw('POST', '/mcp/alice', { ...host(), ...AUTH, origin: 'https://evil.example' }, '{}');
    expect(r.status).toBe(403);
  });

  it('a missing or wrong token gets 401, also through the SDK client', async () => {
    expect((await raw('POST', '/mcp/alice', host(), '{}')).status).toBe(401);
    expect((await raw('POST', '/mcp/alice', { ...host(), authorization: 'Bearer nope' }, '{}')).status).toBe(401);
    await expect(httpClient(`${server.base}/mcp/alice`)).rejects.toThrow();
  });

  it('a write of 10 Mi characters (an 11+ MiB body once JSON-escaped) succeeds; the bytes on disk match', async () => {
    const content = 'ab"\n'.repeat(2.5 * 1024 * 1024); // quotes and newlines escape to 2 bytes each
    expect(Buffer.byteLength(JSON.stringify(content))).toBeGreaterThan(11 * 1024 * 1024);
    const w = await callTool(alice, 'write', { path: 'large.txt', content });
    expect(w.isError).toBe(false);
    expect(w.structured.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    const onDisk = readFileSync(join(repo.dir, '.gatefs/worktrees/alice/large.txt'));
    expect(createHash('sha256').update(onDisk).digest('hex')).toBe(w.structured.sha256);
  });

  it('unknown paths, bad conversation ids and unknown sessions get 404', async () => {
    expect((await raw('POST', '/elsewhere', { ...host(), ...AUTH }, '{}')).status).toBe(404);
    expect((await raw('POST', '/mcp/Not..Valid', { ...host(), ...AUTH }, '{}')).status).toBe(404);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await raw('POST', '/mcp/alice', { ...host(), ...AUTH, 'mcp-session-id': 'mcp-unknown' }, ping)).status).toBe(404);
  });

  it('a request without a session that is not initialize gets 400', async () => {
    const r = await raw('POST', '/mcp/alice', { ...host(), ...AUTH }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(r.status).toBe(400);
  });

  it('a client that hangs up mid-call leaves the file whole and the server answering', async () => {
    const headers = { ...host(), ...AUTH };
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const opened = await raw('POST', '/mcp/alice', headers, JSON.stringify(init));
    expect(opened.status).toBe(200);
    const session = { ...headers, 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    expect((await raw('POST', '/mcp/alice', session, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status).toBe(
      202,
    );
    const content = 'y'.repeat(1024 * 1024);
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'write', arguments: { path: 'hangup.txt', content } },
    });
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/mcp/alice',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...session },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.end(call, () => setTimeout(() => req.destroy(), 5));
    });
    await new Promise((r) => setTimeout(r, 300));
    const r = await callTool(alice, 'read', { path: 'hangup.txt', limit: 1 });
    // The write either happened whole or not at all: never a partial file.
    if (!r.isError) expect(r.structured.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    else expect(r.structured.error.code).toBe('NOT_FOUND');
    expect((await callTool(alice, 'list', { path: 'src' })).isError).toBe(false);
  });

  it('after all of it, both sessions still work', async () => {
    expect((await callTool(alice, 'read', { path: 'README.md' })).isError).toBe(false);
    expect((await callTool(bob, 'list', {})).isError).toBe(false);
    expect(server.child.exitCode).toBeNull();
  });
});

describe('stopping the server', () => {
  it('SIGTERM ends it with exit code 0 and frees every occupancy', async () => {
    await server.stop();
    expect(server.child.exitCode).toBe(0);
    const rows = JSON.parse((await gatefs(['status', '--json', '--repo', repo.dir])).stdout) as {
      conversation: string;
      holder: string | null;
    }[];
    expect(rows.filter((r) => r.holder !== null)).toEqual([]);
    expect(rows.map((r) => r.conversation).sort()).toEqual(['alice', 'bob', 'carol']);
  });
});
