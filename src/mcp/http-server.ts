/**
 * `gatefs serve --http`: MCP over Streamable HTTP on node:http, one MCP session per client,
 * the conversation in the URL (`/mcp/<conversation>`), many conversations at once. Each request
 * passes the Host/Origin/token guard and a body cap before the SDK transport sees it; bad
 * requests get a JSON-RPC error and never take the server down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../host/types.js';
import { isConversationId } from '../../vfs/registry.js';
import { callsSettled, createMcpServer } from './server.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ensureWorkspace } from './ensure-workspace.js';
import type { Session } from './session.js';
import { ConversationOccupants } from './conversation-occupants.js';
import { randomIds } from '../ports/ids.js';
import { allowedHostHeaders, type ListenAddress } from './listen-address.js';
import { checkRequest, type GuardPolicy } from './request-guard.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from './read-body.js';
import { describeFailure } from './describe-failure.js';

/** Options of `serveHttp`. */
export interface HttpServeOptions {
  address: ListenAddress;
  /** Bearer token every request must carry (required for a non-loopback address). */
  token?: string;
  /** Role for conversations prepared on first use. */
  role?: string;
  /** Body cap in bytes (default 4 MiB); larger requests get 413. */
  maxBodyBytes?: number;
  /** Open MCP sessions at most (default 256); a new one beyond it ends the least recently used. */
  maxSessions?: number;
  /** Where one-line logs go (the CLI passes stderr). */
  log?: (line: string) => void;
}

/** A listening server: its base URL (`http://host:port`) and how to stop it. */
export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

interface Entry {
  conversation: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** Request counter value of the session's last request (for least-recently-used eviction). */
  lastUsed: number;
}


/** Thrown when a non-loopback address is asked for without a token. */
export class InsecureBindError extends Error {
  override readonly name = 'InsecureBindError';
}

/**
 * Starts the HTTP server. Refuses (throws `InsecureBindError`) to bind a non-loopback address
 * without a token. Resolves once listening.
 */
export async function serveHttp(host: Host, options: HttpServeOptions): Promise<RunningHttpServer> {
  const { address, token, role } = options;
  if (!address.loopback && !token) {
    throw new InsecureBindError(`refusing to serve on ${address.host} without a token: pass --token or set GATEFS_TOKEN, or bind 127.0.0.1`);
  }
  const log = options.log ?? (() => undefined);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSessions = options.maxSessions ?? 256;
  const sessions = new Map<string, Entry>();
  const occupants = new ConversationOccupants(host);
  const policy: GuardPolicy = { allowedHosts: new Set<string>(), token }; // refuses all until bound
  let closing = false;
  let requests = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing) return reply(res, 503, 'the server is shutting down');
    const refusal = checkRequest(req.headers, policy);
    if (refusal) {
      if (refusal.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      return reply(res, refusal.status, refusal.reason);
    }
    const path = new URL(req.url ?? '/', 'http://gatefs.invalid').pathname;
    const m = /^\/mcp\/([^/]+)\/?$/.exec(path);
    if (!m) return reply(res, 404, 'not found: the MCP endpoint is /mcp/<conversation>');
    const conversation = m[1];
    if (!isConversationId(conversation)) {
      return reply(res, 404, 'invalid conversation id: use lower-case letters, digits, "-" and "_" (at most 63)');
    }
    const sessionId = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const outcome = await readJsonBody(req, maxBody);
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'too-large') {
        res.setHeader('Connection', 'close');
        res.once('finish', () => req.destroy());
        return reply(res, 413, `request body larger than ${outcome.limit} bytes`);
      }
      if (outcome.kind === 'invalid-json') return reply(res, 400, 'parse error: the body is not valid JSON', -32700);
      body = outcome.value;
    }
    if (typeof sessionId === 'string') {
      const entry = sessions.get(sessionId);
      if (!entry || entry.conversation !== conversation) return reply(res, 404, 'session not found: initialize a new session', -32001);
      entry.lastUsed = ++requests;
      return entry.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return reply(res, 405, 'method not allowed without a session: POST an initialize request first');
    if (!isInitializeRequest(body)) return reply(res, 400, 'bad request: no session; send an initialize request first');
    if (sessions.size >= maxSessions) await evictLeastRecentlyUsed();
    await openEntry(conversation, req, res, body);
  }

  /** Clients rarely end their sessions; past the cap, the one idle longest goes. */
  async function evictLeastRecentlyUsed(): Promise<void> {
    let oldest: [string, Entry] | undefined;
    for (const pair of sessions) if (!oldest || pair[1].lastUsed < oldest[1].lastUsed) oldest = pair;
    if (!oldest) return;
    log(`session ${oldest[0]} ended: ${maxSessions} sessions open, it was idle longest`);
    await callsSettled(oldest[1].server);
    await oldest[1].transport.close().catch(() => undefined);
  }

  async function openEntry(conversation: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    try {
      await ensureWorkspace(host, conversation, { role, onProgress: log });
    } catch (e) {
      // The full line may name host paths: it goes to the operator's log, the client gets the code.
      log(`preparing ${conversation} failed: ${describeFailure(e)}`);
      const code = (e as { code?: unknown }).code;
      return reply(res, 500, `could not prepare the workspace${typeof code === 'string' ? ` (${code})` : ''}; the server log says why`);
    }
    const id = randomIds.next('session');
    let session: Session;
    try {
      session = await occupants.occupy(conversation);
    } catch (e) {
      log(`session for ${conversation} refused: ${describeFailure(e)}`);
      const code = (e as { code?: unknown }).code;
      return reply(res, 409, `the workspace cannot be occupied now${typeof code === 'string' ? ` (${code})` : ''}`);
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const mcp = createMcpServer(host, { conversation, holder: session.holder });
    const entry: Entry = { conversation, transport, server: mcp, lastUsed: ++requests };
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      sessions.delete(id);
      void occupants.vacate(conversation);
      log(`session ${id} closed (conversation ${conversation})`);
    };
    transport.onclose = finish;
    await mcp.connect(transport);
    sessions.set(id, entry);
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === id) log(`session ${id} opened (conversation ${conversation}, holder ${session.holder})`);
    else {
      await transport.close();
      finish();
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`request failed: ${describeFailure(e)}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  policy.allowedHosts = allowedHostHeaders(address, port);
  const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${shown}:${port}`,
    port,
    async close() {
      closing = true;
      for (const entry of [...sessions.values()]) {
        await callsSettled(entry.server);
        await entry.transport.close().catch(() => undefined);
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Writes a JSON-RPC error response (id null) with an HTTP status. */
function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
