/**
 * Session bookkeeping of the HTTP server, in process over the memory host (the same
 * `WorkspaceHost` as on disk, with memfs and SQLite :memory:): past the session cap the session
 * idle longest is ended, and the conversation's occupancy is held while any session is open and
 * freed when the last one ends.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMemoryHost, type Host } from '../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { parseListenAddress } from '../../src/mcp/listen-address.js';

let host: Host;
let server: RunningHttpServer;

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/shared-task`));
  const client = new Client({ name: 'sessions-test', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

const holder = () => host.status().find((w) => w.conversation === 'shared-task')?.holder ?? null;

beforeAll(async () => {
  host = await createMemoryHost({ files: { 'README.md': '# shared\n' } });
  server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), maxSessions: 2 });
});

afterAll(async () => {
  await server?.close();
  await host?.close();
});

it('past the cap, the session idle longest ends; the others keep working under one holder', async () => {
  const first = await connect();
  const second = await connect();
  const occupant = holder();
  expect(occupant).toMatch(/^mcp-\d+-[0-9a-f]+$/);
  await second.client.listTools(); // second is now more recently used than first
  const third = await connect();
  await expect(first.client.listTools()).rejects.toThrow(/session not found/);
  expect((await second.client.callTool({ name: 'read', arguments: { path: 'README.md' } })).isError).toBeFalsy();
  expect((await third.client.callTool({ name: 'write', arguments: { path: 'b.md', content: 'b\n' } })).isError).toBeFalsy();
  expect(holder()).toBe(occupant);
  await second.transport.terminateSession();
  expect(holder()).toBe(occupant);
  await third.transport.terminateSession();
  expect(holder()).toBeNull();
  for (const c of [first, second, third]) await c.client.close().catch(() => undefined);
});
