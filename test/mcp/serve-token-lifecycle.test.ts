/**
 * The kept token of `gatefs serve --http`, against real server processes and the SDK's own
 * Streamable HTTP client: the README's client config, written once with the token
 * `gatefs token show` prints, keeps working across a restart; `gatefs token rotate` makes a
 * running server answer the old token with 401 (naming the file of its own address) and take
 * the new one, without a restart; two servers on one state dir at two ports each keep their own
 * token; and the `token` command's refusals say what to do.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatefs, sampleRepo } from '../cli/run-gatefs.js';
import { readmeSnippet } from '../cli/readme-snippets.js';
import { callTool, freePort, startHttpServer, type HttpServer } from './mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
let port: number;
let otherPort: number;
const running: HttpServer[] = [];

beforeAll(async () => {
  repo = sampleRepo();
  expect((await gatefs(['prepare', 'task'], { cwd: repo.dir })).code).toBe(0);
  port = await freePort();
  otherPort = await freePort();
}, 120_000);
afterAll(async () => {
  for (const s of running) await s.stop();
  repo?.cleanup();
});

async function start(at: number): Promise<HttpServer> {
  const server = await startHttpServer(['--http', `127.0.0.1:${at}`], repo.dir);
  running.push(server);
  return server;
}

/** `gatefs token show --address` for `at`: the token it prints. */
async function shownToken(at: number): Promise<string> {
  const r = await gatefs(['token', 'show', '--address', `127.0.0.1:${at}`], { cwd: repo.dir });
  expect(r.code, r.stderr).toBe(0);
  const m = new RegExp(`^127\\.0\\.0\\.1:${at}  (\\S+)  \\(`).exec(r.stdout);
  expect(m, r.stdout).not.toBeNull();
  return m![1]!;
}

/** The README's HTTP client config, for this port and token, connected with the SDK client. */
async function readmeClient(at: number, token: string): Promise<Client> {
  const text = readmeSnippet('http-client')
    .replace('127.0.0.1:8808', `127.0.0.1:${at}`)
    .replace('my-task', 'task')
    .replace('<token>', token);
  const config = (JSON.parse(text) as { mcpServers: { gatefs: { type: string; url: string; headers: Record<string, string> } } }).mcpServers
    .gatefs;
  expect(config.type).toBe('http');
  const client = new Client({ name: 'readme-config', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }));
  return client;
}

/** What the server answers a status request with `token`: the HTTP status and the body. */
async function statusWith(at: number, token: string): Promise<{ status: number; text: string }> {
  const r = await fetch(`http://127.0.0.1:${at}/mcp/task`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  return { status: r.status, text: await r.text() };
}

const tokenFile = (at: number) => join(repo.dir, '.gatefs', `serve-token-127.0.0.1-${at}`);

describe('a kept token', () => {
  it("keeps the README's client config working across a restart", async () => {
    const first = await start(port);
    expect(first.stderr()).toMatch(
      /bearer token for 127\.0\.0\.1:\d+ \(new, saved in .*serve-token-127\.0\.0\.1-\d+, mode 600; kept across restarts/,
    );
    const token = await shownToken(port);
    expect(token).toBe(first.token);
    expect(statSync(tokenFile(port)).mode & 0o777).toBe(0o600);
    const before = await readmeClient(port, token);
    expect((await callTool(before, 'read', { path: 'README.md' })).isError).toBe(false);
    await before.close();
    await first.stop();

    const second = await start(port);
    expect(second.token).toBe(token);
    expect(second.stderr()).toMatch(/\(kept in .*; gatefs token rotate makes a new one\)/);
    const after = await readmeClient(port, token);
    expect((await callTool(after, 'read', { path: 'README.md' })).isError).toBe(false);
    await after.close();
  });

  it('gatefs token rotate: the running server answers the old token with 401 naming its file, and takes the new one', async () => {
    const old = await shownToken(port);
    expect((await statusWith(port, old)).status).not.toBe(401);
    const rotated = await gatefs(['token', 'rotate', '--address', `127.0.0.1:${port}`], { cwd: repo.dir });
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = await shownToken(port);
    expect(fresh).not.toBe(old);
    expect(rotated.stdout).toContain(fresh);
    expect(readFileSync(tokenFile(port), 'utf8')).toBe(`${fresh}\n`);
    expect(statSync(tokenFile(port)).mode & 0o777).toBe(0o600);

    const refused = await statusWith(port, old);
    expect(refused.status).toBe(401);
    const message = (JSON.parse(refused.text) as { error: { message: string } }).error.message;
    expect(message).toContain(`the token is in the file serve-token-127.0.0.1-${port} in the .gatefs folder`);
    expect(message).toContain('gatefs token rotate');
    expect(refused.text).not.toContain(repo.root);
    const client = await readmeClient(port, fresh);
    expect((await callTool(client, 'read', { path: 'README.md' })).isError).toBe(false);
    await client.close();
  });

  it('two servers on one state dir at two ports each keep their own token, across a restart too', async () => {
    const mine = await shownToken(port);
    const other = await start(otherPort);
    expect(other.token).not.toBe(mine);
    expect(readFileSync(tokenFile(port), 'utf8')).toBe(`${mine}\n`);
    expect(readFileSync(tokenFile(otherPort), 'utf8')).toBe(`${other.token}\n`);
    expect((await statusWith(port, mine)).status).not.toBe(401);
    expect((await statusWith(otherPort, other.token!)).status).not.toBe(401);
    const crossed = await statusWith(otherPort, mine);
    expect(crossed.status).toBe(401);
    expect(crossed.text).toContain(`serve-token-127.0.0.1-${otherPort}`);
    expect((await statusWith(port, other.token!)).status).toBe(401);

    await other.stop();
    const again = await start(otherPort);
    expect(again.token).toBe(other.token);
    expect(readFileSync(tokenFile(port), 'utf8')).toBe(`${mine}\n`);
    const listed = await gatefs(['token', 'show', '--json'], { cwd: repo.dir });
    const rows = JSON.parse(listed.stdout) as { address: string; token: string }[];
    expect(rows.map((r) => [r.address, r.token]).sort()).toEqual(
      [
        [`127.0.0.1:${port}`, mine],
        [`127.0.0.1:${otherPort}`, other.token],
      ].sort(),
    );
  });
});

describe('the token command', () => {
  it('without an action lists the actions; an address with no kept token or port 0 is told what to do', async () => {
    const bare = await gatefs(['token'], { cwd: repo.dir });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('token needs an action: show (print each kept token with its address and file), or rotate');
    const none = await gatefs(['token', 'rotate', '--address', '127.0.0.1:9'], { cwd: repo.dir });
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('No token is kept for 127.0.0.1:9 in');
    const zero = await gatefs(['token', 'show', '--address', '127.0.0.1:0'], { cwd: repo.dir });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('port 0 keeps no token');
  });
});
