/**
 * Sessions and workspace creation over HTTP, in process over the memory host (the same
 * `WorkspaceHost` as on disk, with memfs and SQLite :memory:) and a manual clock for idle times:
 * a session beyond a cap is refused and no open session is ever ended to make room; only
 * sessions idle past their documented time are ended; all sessions of a conversation share one
 * occupancy holder; conversations without a workspace are prepared only with `allowNew`, within
 * its budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMemoryHost, ManualClock, type Host } from '../../src/index.js';
import { serveHttp, type HttpServeOptions, type RunningHttpServer } from '../../src/mcp/http/http-server.js';
import { parseListenAddress } from '../../src/mcp/http/listen-address.js';

const TOKEN = 'sessions-test-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const MINUTE = 60_000;
let host: Host;
let server: RunningHttpServer;
let clock: ManualClock;
let logs: string[] = [];
const clients: Client[] = [];

async function start(options: Partial<HttpServeOptions> = {}, prepared = ['task']): Promise<void> {
  clock = new ManualClock();
  host = await createMemoryHost({ files: { 'README.md': '# shared\n' } });
  for (const conversation of prepared) await host.prepare({ conversation });
  logs = [];
  server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token: TOKEN, clock, log: (l) => logs.push(l), ...options });
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await server?.close();
  await host?.close();
});

/** An SDK client: it keeps its GET event stream open while connected (an active session). */
async function connect(conversation = 'task'): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${conversation}`), { requestInit: { headers: AUTH } });
  const client = new Client({ name: 'sessions-test', version: '1' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** A raw initialize without an event stream; resolves to the status, the body and the session id. */
async function rawInitialize(conversation = 'task'): Promise<{ status: number; body: any; session: string | null }> {
  const init = {
    jsonrpc: '2.0',
    id: 'init-1',
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const r = await fetch(`${server.url}/mcp/${conversation}`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(init),
  });
  const text = await r.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/data: (.*)/.exec(text)![1]);
  return { status: r.status, body: json, session: r.headers.get('mcp-session-id') };
}

async function rawPing(conversation: string, session: string): Promise<number> {
  const r = await fetch(`${server.url}/mcp/${conversation}`, {
    method: 'POST',
    headers: {
      ...AUTH,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await r.text();
  return r.status;
}

const holder = (conversation = 'task') => host.status().find((w) => w.conversation === conversation)?.holder ?? null;
const read = (client: Client) => client.callTool({ name: 'read', arguments: { path: 'README.md' } });

describe('session caps never end an open session', () => {
  it('a session beyond the per-conversation cap gets 429 with a JSON-RPC error; the open ones keep working', async () => {
    await start({ sessionLimits: { perConversation: 2 } }, ['task', 'other']);
    const first = await connect();
    const second = await connect();
    const refused = await rawInitialize();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 'init-1', error: { code: -32000 } });
    expect(refused.body.error.message).toMatch(
      /conversation "task" already has 2 open sessions \(the limit per conversation is 2\); open sessions are never ended/,
    );
    await expect(connect()).rejects.toThrow(/429|already has 2 open sessions/);
    expect((await read(first.client)).isError).toBeFalsy();
    expect((await read(second.client)).isError).toBeFalsy();
    // another conversation has its own cap
    expect((await read((await connect('other')).client)).isError).toBeFalsy();
  });

  it('beyond the total cap a new session gets 503, whatever the conversation', async () => {
    await start({ sessionLimits: { total: 2 } }, ['task', 'other', 'third']);
    const a = await connect('task');
    const b = await connect('other');
    const refused = await rawInitialize('third');
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(/this server already has 2 open sessions \(the limit in total is 2\)/);
    expect((await read(a.client)).isError).toBeFalsy();
    expect((await read(b.client)).isError).toBeFalsy();
  });

  it('300 initializes on a conversation do not end its client (the issue: the victim got 404)', async () => {
    await start({}, ['task']);
    const victim = await connect();
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const { status } = await rawInitialize();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(statuses.get(200)).toBe(7); // the default cap is 8: the victim holds one
    expect(statuses.get(429)).toBe(293);
    expect((await read(victim.client)).isError).toBeFalsy();
  });
});

describe('idle sessions end after their documented time, active ones never', () => {
  it('a session without requests ends after 15 minutes idle, not before; a connected SDK client stays', async () => {
    await start({ sessionLimits: { perConversation: 2 } });
    const active = await connect();
    const idle = await rawInitialize();
    expect(idle.status).toBe(200);
    clock.advance(15 * MINUTE - 1);
    expect(await server.reapIdle()).toBe(0);
    expect(await rawPing('task', idle.session!)).toBe(200); // a request: idle time starts again
    clock.advance(15 * MINUTE);
    expect((await rawInitialize()).status).toBe(200); // at the cap, the idle session made room
    expect(await rawPing('task', idle.session!)).toBe(404);
    clock.advance(24 * 60 * MINUTE);
    await server.reapIdle();
    expect((await read(active.client)).isError).toBeFalsy(); // its event stream kept it active
  });

  it('a client that dropped its event stream is ended after 1 minute', async () => {
    await start();
    const gone = await connect();
    await read(gone.client);
    await gone.client.close(); // aborts the stream; no DELETE, as when a client process dies
    while (!logs.some((l) => /event stream closed/.test(l))) await new Promise((r) => setTimeout(r, 10));
    clock.advance(59_000);
    expect(await server.reapIdle()).toBe(0);
    expect(holder()).not.toBeNull();
    clock.advance(1_000);
    expect(await server.reapIdle()).toBe(1);
    expect(holder()).toBeNull(); // its occupancy ended with it
  });
});

describe('one occupancy holder per conversation', () => {
  it('is held while any session is open and freed when the last one ends', async () => {
    await start();
    const first = await connect();
    const second = await connect();
    const occupant = holder();
    expect(occupant).toMatch(/^mcp-\d+-[0-9a-f]+$/);
    expect((await second.client.callTool({ name: 'write', arguments: { path: 'b.md', content: 'b\n' } })).isError).toBeFalsy();
    expect(holder()).toBe(occupant);
    await first.transport.terminateSession();
    expect(holder()).toBe(occupant);
    await second.transport.terminateSession();
    expect(holder()).toBeNull();
  });
});

describe('new conversations only with allowNew, within its budget', () => {
  it('without allowNew, a conversation without a workspace is refused (404) and nothing is prepared', async () => {
    await start({}, ['task']);
    const r = await rawInitialize('newcomer');
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe(
      'conversation "newcomer" has no workspace; prepare it first: gatefs prepare newcomer (this server prepares none itself: it runs without --allow-new)',
    );
    expect(host.status().map((w) => w.conversation)).toEqual(['task']);
  });

  it('without allowNew, a released conversation is not prepared again', async () => {
    await start({}, ['task', 'done']);
    await host.release('done');
    const r = await rawInitialize('done');
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(/conversation "done" was released; prepare it first: gatefs prepare done/);
    expect(host.status().find((w) => w.conversation === 'done')?.state).toBe('released');
  });

  it('with allowNew, at most `total` new workspaces per run; prepared ones still open', async () => {
    await start({ allowNew: true, creationLimits: { total: 2 } }, ['task']);
    expect((await read((await connect('new-1')).client)).isError).toBeFalsy();
    expect((await read((await connect('new-2')).client)).isError).toBeFalsy();
    const third = await rawInitialize('new-3');
    expect(third.status).toBe(403);
    expect(third.body.error.message).toMatch(
      /already prepared 2 new conversations \(the --allow-new limit is 2 per run\); prepare "new-3" with: gatefs prepare new-3/,
    );
    expect(
      host
        .status()
        .map((w) => w.conversation)
        .sort(),
    ).toEqual(['new-1', 'new-2', 'task']);
    expect((await read((await connect('task')).client)).isError).toBeFalsy();
    expect((await read((await connect('new-1')).client)).isError).toBeFalsy(); // a second session: no new preparation
  });
});

describe('the run of conversations the server prepares', () => {
  it('with allowNew and run, a new conversation takes its visit in that run; one prepared before keeps its own', async () => {
    await start({ allowNew: true, run: 'r9' }, ['task']);
    expect((await read((await connect('new-1')).client)).isError).toBeFalsy();
    expect((await read((await connect('task')).client)).isError).toBeFalsy();
    const rows = host.status().map((w) => [w.conversation, w.run, w.visit]);
    expect(rows.sort()).toEqual([
      ['new-1', 'r9', 1],
      ['task', 'default', 1],
    ]);
  });
});

describe('a new conversation with allowNew is prepared in the background', () => {
  /** `host` whose `prepare` waits until `open()` is called (everything else is the host's own). */
  function gated(inner: Host): { host: Host; open: () => void } {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const proxy = new Proxy(inner, {
      get(target, key) {
        if (key === 'prepare') return async (options: Parameters<Host['prepare']>[0]) => (await gate, target.prepare(options));
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { host: proxy, open };
  }

  it('the session opens before the workspace exists; a call waits with progress, then works; the holder comes with it', async () => {
    clock = new ManualClock();
    const inner = await createMemoryHost({ files: { 'README.md': '# shared\n' } });
    const { host: slow, open } = gated(inner);
    host = inner;
    logs = [];
    server = await serveHttp(slow, {
      address: parseListenAddress('127.0.0.1:0'),
      token: TOKEN,
      clock,
      log: (l) => logs.push(l),
      allowNew: true,
    });
    const { client } = await connect('fresh');
    expect(inner.status().find((w) => w.conversation === 'fresh')?.state).not.toBe('ready');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('read');
    const progress: string[] = [];
    const call = client.callTool({ name: 'read', arguments: { path: 'README.md' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(progress[0]).toBe('waiting for gatefs: preparing the workspace of "fresh"');
    open();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { content: string }).content).toBe('# shared\n');
    expect(inner.status().find((w) => w.conversation === 'fresh')?.holder).toMatch(/^mcp-\d+-[0-9a-f]+$/);
    expect(logs.some((l) => /session session-[0-9a-f]+ holds conversation fresh \(holder mcp-/.test(l))).toBe(true);
  });

  it('a preparation that fails answers the calls with WORKSPACE_NOT_READY naming its code', async () => {
    await start({ allowNew: true, role: 'no-such-role' }, []);
    const { client } = await connect('doomed');
    const r = await client.callTool({ name: 'read', arguments: { path: 'README.md' } });
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'WORKSPACE_NOT_READY',
      message: expect.stringContaining('could not be prepared (UNKNOWN_ROLE)'),
    });
  });
});
