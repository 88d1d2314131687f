/**
 * Attack class P, the network door, against a real `gatefs serve --http` process:
 * - no token by default → a token is generated, shown once on stderr, saved with mode 600 to
 *   `<stateDir>/serve-token-<host>-<port>` (a link planted there is replaced, its target
 *   untouched, never read), absent from the command line, and kept for that address;
 * - a token file others can read, or a token too weak, is refused before serving;
 * - unlimited workspace creation → without `--allow-new` nothing is created, whatever is asked;
 * - one session evicting another → a flood of initializes leaves the victim's session working;
 * - size limits that disagree between transports → a body over the cap gets a JSON-RPC error
 *   with its id, nothing is written, and the next call works; so does a body under the byte cap
 *   whose structure (values, nesting) is past what any schema allows, before it is parsed.
 * No answer to an unauthenticated client names a host path or the token.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { gatefs, git, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, freePort, httpClient, startHttpServer, type HttpServer } from '../mcp/mcp-client.js';
import { MAX_MESSAGE_BYTES } from '../../src/mcp/message-limits/message-limit.js';

let repo: ReturnType<typeof sampleRepo>;
let server: HttpServer;
let token: string;
let sentinel: string;
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
let sentinelHash: string;
let tokenFile: string;

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const r = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

const initialize = (id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
});

beforeAll(async () => {
  repo = sampleRepo();
  const prepared = await gatefs(['prepare', 'victim', '--repo', repo.dir]);
  if (prepared.code !== 0) throw new Error(prepared.stderr);
  // An attacker who can write the state dir plants a link where the token will be saved.
  sentinel = join(repo.root, 'sentinel.txt');
  writeFileSync(sentinel, 'outside bytes\n', { mode: 0o644 });
  sentinelHash = sha(sentinel);
  const port = await freePort();
  tokenFile = join(repo.dir, `.gatefs/serve-token-127.0.0.1-${port}`);
  symlinkSync(sentinel, tokenFile);
  server = await startHttpServer(['--http', `127.0.0.1:${port}`, '--repo', repo.dir], repo.root);
  token = server.token!;
});

afterAll(async () => {
  await server?.stop();
  repo?.cleanup();
});

describe('P: a token by default', () => {
  it('is generated, shown once on stderr, saved with mode 600, and not on the command line', () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.stderr().split(token).length - 1).toBe(1);
    const file = tokenFile;
    expect(lstatSync(file).isFile()).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${token}\n`);
    expect(readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8')).not.toContain(token);
  });

  it('the link planted at the token file was replaced, its target untouched and never read', () => {
    expect(server.stderr()).toContain('is a link; gatefs never follows one there: replaced by a new token');
    expect(sha(sentinel)).toBe(sentinelHash);
    expect(statSync(sentinel).mode & 0o777).toBe(0o644);
  });

  it('a request without it, or with another, gets 401 naming the problem, no host path and no token', async () => {
    const missing = await post('/mcp/victim', initialize());
    const wrong = await post('/mcp/victim', initialize(), { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    for (const [r, reason] of [
      [missing, /no Authorization header/],
      [wrong, /the bearer token is not this server's/],
    ] as const) {
      expect(r.status).toBe(401);
      const body = JSON.parse(r.text);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
      expect(body.error.message).toMatch(reason);
      expect(body.error.message).toContain(
        `the token is in the file serve-token-127.0.0.1-${server.port} in the .gatefs folder of the repository it serves`,
      );
      expect(r.text).not.toContain(repo.root);
      expect(r.text).not.toContain(token);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="gatefs"/);
    }
  });

  it('the OAuth discovery URLs say at once that there is no OAuth, without a host path', async () => {
    const r = await fetch(`${server.base}/.well-known/oauth-protected-resource/mcp/victim`);
    expect(r.status).toBe(404);
    const text = await r.text();
    expect(JSON.parse(text).error_description).toMatch(/^gatefs does not use OAuth/);
    expect(text).not.toContain(repo.root);
  });
});

describe('P: the token stays out of agent tools', () => {
  it('an agent whose workspace is the repository itself (shared backend) cannot read, grep or list it', async () => {
    const manifest = join(repo.root, 'shared.yaml');
    writeFileSync(manifest, 'roles:\n  - name: sharer\n    tools: [read, grep, list]\n    workspace:\n      backend: shared\n');
    const cli = (args: string[]) => gatefs([...args, '--repo', repo.dir, '--manifest', manifest]);
    expect((await cli(['prepare', 'sharer', '--role', 'sharer'])).code).toBe(0);
    const outputs = [
      await cli(['call', 'sharer', 'read', JSON.stringify({ path: `.gatefs/serve-token-127.0.0.1-${server.port}` })]),
      await cli(['call', 'sharer', 'grep', JSON.stringify({ pattern: token.slice(0, 20), literal: true })]),
      await cli(['call', 'sharer', 'list', '{"pattern":"**/*token*"}']),
    ];
    expect(outputs[0].stderr).toMatch(/NOT_FOUND/);
    for (const o of outputs) expect(o.stdout + o.stderr).not.toContain(token.slice(0, 20));
    expect((await cli(['release', 'sharer'])).code).toBe(0);
  });
});

describe('P: no unlimited workspace creation', () => {
  it('without --allow-new, 20 new conversations are refused and nothing is created', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const worktreesBefore = readdirSync(join(repo.dir, '.gatefs/worktrees')).sort();
    const gitBefore = git(repo.dir, 'worktree', 'list', '--porcelain');
    const status = async () =>
      (JSON.parse((await gatefs(['status', '--json', '--repo', repo.dir])).stdout) as { conversation: string; state: string }[]).map(
        (r) => `${r.conversation}:${r.state}`,
      );
    const statusBefore = await status();
    for (let i = 0; i < 20; i++) {
      const r = await post(`/mcp/new-${i}`, initialize(i), auth);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.text)).toMatchObject({
        id: i,
        error: {
          message: expect.stringMatching(new RegExp(`conversation "new-${i}" has no workspace; prepare it first: gatefs prepare new-${i}`)),
        },
      });
    }
    expect(readdirSync(join(repo.dir, '.gatefs/worktrees')).sort()).toEqual(worktreesBefore);
    expect(git(repo.dir, 'worktree', 'list', '--porcelain')).toBe(gitBefore);
    expect(await status()).toEqual(statusBefore);
    expect(statusBefore.some((row) => row.startsWith('new-'))).toBe(false);
  });
});

describe('P: no session evicts another', () => {
  let victim: Client;
  beforeAll(async () => {
    victim = await httpClient(`${server.base}/mcp/victim`, { Authorization: `Bearer ${token}` });
  });
  afterAll(async () => {
    await victim?.close().catch(() => undefined);
  });

  it('100 initializes on the victim conversation: 7 open (the cap is 8), the rest get 429, the victim keeps working', async () => {
    const statuses: number[] = [];
    const opened: string[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await post('/mcp/victim', initialize(i), { authorization: `Bearer ${token}` });
      statuses.push(r.status);
      if (r.headers.get('mcp-session-id')) opened.push(r.headers.get('mcp-session-id')!);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.filter((s) => s === 429)).toHaveLength(93);
    const r = await callTool(victim, 'write', { path: 'still-mine.txt', content: 'victim\n' });
    expect(r.isError).toBe(false);
    // Closing the flood's sessions frees the cap for the tests after this one.
    for (const id of opened) {
      const closed = await fetch(`${server.base}/mcp/victim`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': id },
      });
      expect(closed.status).toBe(200);
    }
  });

  it('a body over the cap gets 413 with its id; nothing is written; the next call works', async () => {
    const content = '\u0001'.repeat(Math.ceil(MAX_MESSAGE_BYTES / 6) + 1); // 6 bytes a character once escaped: over the cap
    const refused = await victim.callTool({ name: 'write', arguments: { path: 'huge.txt', content } }).then(
      () => null,
      (e: Error) => e,
    );
    expect(refused?.message).toMatch(/413|request too large/);
    expect(refused?.message).toMatch(/"id":\d+/);
    expect(refused?.message).toContain('"code":-32600'); // the same code as on stdio
    expect(refused?.message).toMatch(/request too large: \d+ bytes, over this server's limit of \d+ bytes per message/);
    expect(server.stderr()).toMatch(/refused a request body of \d+ bytes on \/mcp\/victim/);
    expect((await callTool(victim, 'read', { path: 'huge.txt' })).structured.error.code).toBe('NOT_FOUND');
    expect((await callTool(victim, 'read', { path: 'still-mine.txt' })).structured.content).toBe('victim\n');
  });

  it('a body of 200,000 empty objects (600 KB, far under the byte cap) gets 413 with its id before it is parsed; nothing is written', async () => {
    // Parsing costs time per value: 120 MiB of `{},` held the whole server for minutes, every
    // conversation with it. No tool's arguments come near this many values.
    const padding = Array.from({ length: 200_000 }, () => ({}));
    const refused = await victim.callTool({ name: 'write', arguments: { path: 'complex.txt', content: 'x' }, _meta: { padding } }).then(
      () => null,
      (e: Error & { code?: number }) => e,
    );
    expect(refused?.code).toBe(413);
    expect(refused?.message).toMatch(/"id":\d+/);
    expect(refused?.message).toContain('"code":-32600');
    expect(refused?.message).toMatch(/request too complex: more than \d+ JSON tokens/);
    expect(server.stderr()).toMatch(/refused a request body of more than \d+ JSON tokens on \/mcp\/victim/);
    expect((await callTool(victim, 'read', { path: 'complex.txt' })).structured.error.code).toBe('NOT_FOUND');
    expect((await callTool(victim, 'read', { path: 'still-mine.txt' })).structured.content).toBe('victim\n');
  });
});

describe('P: bytes that are not UTF-8', () => {
  it('a write whose body holds bytes that are not UTF-8 gets 400 with a parse error and its id; nothing is written', async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const opened = await fetch(`${server.base}/mcp/victim`, { method: 'POST', headers: auth, body: JSON.stringify(initialize()) });
    expect(opened.status).toBe(200);
    const session = { ...auth, 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    await opened.text();
    const head = Buffer.from(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"path":"latin1.txt","content":"caf',
    );
    const r = await fetch(`${server.base}/mcp/victim`, {
      method: 'POST',
      headers: session,
      body: Buffer.concat([head, Buffer.from([0xe9, 0xff]), Buffer.from('"}}}')]),
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32700, message: expect.stringMatching(/not valid UTF-8/) },
    });
    const read = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read', arguments: { path: 'latin1.txt' } } };
    const after = await (await fetch(`${server.base}/mcp/victim`, { method: 'POST', headers: session, body: JSON.stringify(read) })).text();
    expect(after).toContain('NOT_FOUND');
    await fetch(`${server.base}/mcp/victim`, { method: 'DELETE', headers: session });
  });
});

describe('P: a token the operator chooses', () => {
  it('--token-file readable by others is refused before serving; mode 600 serves and leaves the kept token alone', async () => {
    const file = join(repo.root, 'my-token');
    writeFileSync(file, 'chosen-token-0123456789abcdef\n');
    chmodSync(file, 0o644);
    const refused = await gatefs(['serve', '--http', '127.0.0.1:0', '--token-file', file, '--repo', repo.dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`the token file ${file} has mode 644: group or others may read or change it; run "chmod 600 ${file}"`);
    chmodSync(file, 0o600);
    const before = readFileSync(tokenFile, 'utf8');
    const chosen = await startHttpServer(['--repo', repo.dir, '--token-file', file], repo.root);
    try {
      expect(chosen.token).toBeUndefined(); // nothing generated, nothing printed
      expect(chosen.stderr()).not.toContain('chosen-token-0123456789abcdef');
      const ok = await httpClient(`${chosen.base}/mcp/victim`, { Authorization: 'Bearer chosen-token-0123456789abcdef' }).then(
        (c) => c.close().then(() => 'connected'),
        (e: Error) => e.message,
      );
      // The victim's sessions on the other server occupy the conversation: reaching OCCUPIED proves the token passed.
      expect(ok).toMatch(/connected|OCCUPIED/);
      const denied = await fetch(`${chosen.base}/mcp/victim`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(denied.status).toBe(401);
      expect(readFileSync(tokenFile, 'utf8')).toBe(before);
    } finally {
      await chosen.stop();
    }
  });

  it('GATEFS_TOKEN shorter than 16 characters is refused', async () => {
    const r = await gatefs(['serve', '--http', '127.0.0.1:0', '--repo', repo.dir], { env: { GATEFS_TOKEN: 'SECRET' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/GATEFS_TOKEN holds a token of 6 characters; use at least 16/);
  });
});
