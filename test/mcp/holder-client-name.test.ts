/**
 * Occupancy holders named by their client: the name an MCP client gives in `initialize`
 * (`clientInfo.name`) is recorded with the holder its session takes, over stdio and over HTTP,
 * and shows in `gatefs status --json` and the status page's data (`holderClient`). Over HTTP, the
 * sessions of one conversation share one holder, named by every client that joined it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatefs, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, startHttpServer, stdioClient, type HttpServer } from './mcp-client.js';

let repo: ReturnType<typeof sampleRepo>;
let server: HttpServer;

beforeAll(async () => {
  repo = sampleRepo();
  for (const c of ['over-stdio', 'over-http']) expect((await gatefs(['prepare', c], { cwd: repo.dir })).code).toBe(0);
  server = await startHttpServer([], repo.dir);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  repo?.cleanup();
});

interface Row {
  conversation: string;
  holder: string | null;
  holderClient?: string;
}

async function statusRows(): Promise<Row[]> {
  const r = await gatefs(['status', '--json'], { cwd: repo.dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Row[];
}

async function connect(name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.base}/mcp/over-http`), {
      requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
    }),
  );
  return client;
}

describe('a holder named by its client', () => {
  it("over stdio: the session's holder carries the client's initialize name", async () => {
    const { client } = await stdioClient(['--conversation', 'over-stdio'], repo.dir);
    try {
      expect((await callTool(client, 'read', { path: 'README.md' })).isError).toBe(false); // the workspace is held now
      const row = (await statusRows()).find((w) => w.conversation === 'over-stdio')!;
      expect(row.holder).toMatch(/^mcp-\d+-[0-9a-f]+$/);
      expect(row.holderClient).toBe('gatefs-test');
    } finally {
      await client.close();
    }
    await expect.poll(async () => (await statusRows()).find((w) => w.conversation === 'over-stdio')!.holder).toBeNull();
  });

  it('over HTTP: one shared holder named by each client that joined, shown in status and status.json', async () => {
    const first = await connect('claude-code');
    const second = await connect('inspector <b>');
    try {
      const row = (await statusRows()).find((w) => w.conversation === 'over-http')!;
      expect(row.holderClient).toBe('claude-code, inspector <b>');
      const page = await fetch(`${server.base}/status.json`, { headers: { Authorization: `Bearer ${server.token}` } });
      const data = (await page.json()) as { workspaces: Row[] };
      expect(data.workspaces.find((w) => w.conversation === 'over-http')?.holderClient).toBe('claude-code, inspector <b>');
      // The page escapes what a client calls itself.
      const html = await (await fetch(`${server.base}/`, { headers: { Authorization: `Bearer ${server.token}` } })).text();
      expect(html).toContain('<b>claude-code, inspector &lt;b&gt;</b> · over-http');
    } finally {
      await first.close();
      await second.close();
    }
  });
});
