/**
 * Request bodies over HTTP hold memory only within a bound: every body up to 1 MiB is read at
 * once, but only a few larger ones are kept at a time (each up to the ~120 MiB message cap);
 * the others wait, their TCP flow paused, until one of those is done. Before this, 24 clients
 * each sending a 120 MiB body made the server hold 3 GB. In process over the memory host, with
 * one slot for large bodies so the order is visible.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryHost, type Host } from '../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http/http-server.js';
import { parseListenAddress } from '../../src/mcp/http/listen-address.js';

const TOKEN = 'body-memory-test-token-0123456789';
let host: Host;
let server: RunningHttpServer;
let session: string;

beforeEach(async () => {
  host = await createMemoryHost({ files: { 'README.md': '# bodies\n' } });
  await host.prepare({ conversation: 'task' });
  server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token: TOKEN, largeBodySlots: 1 });
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bodies', version: '1' } },
  };
  const r = await post(JSON.stringify(init)).done;
  session = r.headers['mcp-session-id'] as string;
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': session }).done;
});

afterEach(async () => {
  await server?.close();
  await host?.close();
});

interface Posted {
  request: http.ClientRequest;
  done: Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>;
}

/** Starts a POST; with `body` undefined the caller writes it through `request`. */
function post(body: string | undefined, headers: Record<string, string> = {}): Posted {
  const { port } = new URL(server.url);
  const request = http.request({
    host: '127.0.0.1',
    port: Number(port),
    method: 'POST',
    path: '/mcp/task',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
  });
  const done = new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    request.on('error', reject);
  });
  if (body !== undefined) request.end(body);
  return { request, done };
}

const writeCall = (id: number, path: string, content: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write', arguments: { path, content } } });

/** The tool value in an SSE or JSON answer. */
const valueOf = (body: string) => JSON.parse(body.startsWith('{') ? body : /data: (.*)/.exec(body)![1]).result.structuredContent;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('large request bodies are read a few at a time', () => {
  it('a second large body waits until the first is done; small bodies never wait; both large writes land whole', async () => {
    const firstContent = 'a'.repeat(3 * 1024 * 1024);
    const secondContent = 'b'.repeat(3 * 1024 * 1024);
    const first = writeCall(2, 'first.txt', firstContent);
    const slow = post(undefined, { 'mcp-session-id': session, 'content-length': String(Buffer.byteLength(first)) });
    slow.request.write(first.slice(0, 2 * 1024 * 1024)); // past 1 MiB: holds the one large-body slot
    await new Promise((r) => setTimeout(r, 200));
    const second = post(writeCall(3, 'second.txt', secondContent), { 'mcp-session-id': session });
    let secondAnswered = false;
    void second.done.then(() => (secondAnswered = true));
    const small = await post(writeCall(4, 'small.txt', 'c'), { 'mcp-session-id': session }).done;
    expect(valueOf(small.body)).toMatchObject({ path: 'small.txt', bytes: 1 });
    await new Promise((r) => setTimeout(r, 500));
    expect(secondAnswered).toBe(false); // its body is not read while the first holds the slot
    slow.request.end(first.slice(2 * 1024 * 1024));
    const [a, b] = await Promise.all([slow.done, second.done]);
    expect(valueOf(a.body)).toMatchObject({ path: 'first.txt', sha256: sha(firstContent) });
    expect(valueOf(b.body)).toMatchObject({ path: 'second.txt', sha256: sha(secondContent) });
  });
});
