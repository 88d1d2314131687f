/**
 * `gatefs serve --http`: MCP over Streamable HTTP on node:http, one MCP session per client,
 * the conversation in the URL (`/mcp/<conversation>`), many conversations at once. Each request
 * passes, in order: the Host/Origin guard (403), the OAuth probe answers (gatefs has none), the
 * bearer token (401), the route, and the body limits (413, `MAX_MESSAGE_BYTES` and
 * `MAX_MESSAGE_TOKENS`, the same limits as stdio; at most a few bodies over 1 MiB are kept at once,
 * `BodySlots`); a new session then passes the session caps (429/503, `SessionTable`) and, for a
 * conversation without a ready workspace, the creation budget (`--allow-new`,
 * `CreationBudget`). Every refusal is a JSON-RPC error body; none takes the server down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Host } from '../host/types.js';
import { isConversationId } from '../../vfs/registry.js';
import { CodedError, codeOf } from '../../vfs/coded-error.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { randomIds } from '../ports/ids.js';
import { callsSettled, createMcpServer } from './server.js';
import { ensureWorkspace } from './ensure-workspace.js';
import type { Session } from './session.js';
import { ConversationOccupants } from './conversation-occupants.js';
import { allowedHostHeaders, type ListenAddress } from './listen-address.js';
import { checkAuthorization, checkOrigin, tokenHowTo, type GuardPolicy } from './request-guard.js';
import { answerAuthProbe } from './auth-probe.js';
import { readJsonBody } from './read-body.js';
import { BodySlots, DEFAULT_LARGE_BODY_SLOTS } from './body-slots.js';
import { NOT_UTF8_MESSAGE } from './strict-utf8.js';
import { MAX_MESSAGE_BYTES, MAX_MESSAGE_TOKENS, OVERSIZED_MESSAGE_CODE, tooComplexMessage, tooLargeMessage } from './message-limit.js';
import { DEFAULT_SESSION_LIMITS, SessionTable, type SessionLimits, type SessionRefusal } from './session-table.js';
import { CreationBudget, CreationRefusal, DEFAULT_CREATION_LIMITS, type CreationLimits } from './creation-budget.js';
import { describeFailure } from './describe-failure.js';
import { reply, sendJson, sessionCapMessage, SERVER_ERROR } from './http-reply.js';

/** Options of `serveHttp`. */
export interface HttpServeOptions {
  address: ListenAddress;
  /** Bearer token every request must carry; `null` for none, allowed on a loopback address only. */
  token: string | null;
  /** Where clients find the token, for 401 messages; never a host path (see `GuardPolicy`). */
  tokenHint?: string;
  /** Prepare workspaces for conversations that have none (`--allow-new`; default false). */
  allowNew?: boolean;
  /** Role for conversations the server prepares (with `allowNew`). */
  role?: string;
  /** Body cap in bytes (default `MAX_MESSAGE_BYTES`, derived from the tool schemas). */
  maxBodyBytes?: number;
  /** Body cap in structural JSON tokens (default `MAX_MESSAGE_TOKENS`, derived from the tool schemas). */
  maxBodyTokens?: number;
  /** Bodies over 1 MiB kept in memory at once (default `DEFAULT_LARGE_BODY_SLOTS`); the others wait. */
  largeBodySlots?: number;
  /** Session caps and idle times (defaults: `DEFAULT_SESSION_LIMITS`). */
  sessionLimits?: Partial<SessionLimits>;
  /** Limits of `allowNew` (defaults: `DEFAULT_CREATION_LIMITS`). */
  creationLimits?: Partial<Omit<CreationLimits, 'allow'>>;
  /** Clock for session idle times (default: the system clock). */
  clock?: Clock;
  /** Where one-line logs go (the CLI passes stderr). */
  log?: (line: string) => void;
}

/** A listening server: its base URL (`http://host:port`) and how to stop it. */
export interface RunningHttpServer {
  url: string;
  port: number;
  /** Ends idle sessions now (the server also does so on a timer); resolves to how many. */
  reapIdle(): Promise<number>;
  close(): Promise<void>;
}

interface Entry {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** Thrown when a non-loopback address is asked for without a token (code `INSECURE_BIND`). */
export class InsecureBindError extends CodedError<'INSECURE_BIND'> {
  override readonly name = 'InsecureBindError';

  constructor(message: string) {
    super('INSECURE_BIND', message, {});
  }
}

/**
 * Starts the HTTP server. Refuses (throws `InsecureBindError`) to bind a non-loopback address
 * without a token. Resolves once listening.
 */
export async function serveHttp(host: Host, options: HttpServeOptions): Promise<RunningHttpServer> {
  const { address, token, role } = options;
  if (!address.loopback && token === null) {
    throw new InsecureBindError(`refusing to serve on ${address.host} without a token: only a loopback address may run with --no-token`);
  }
  const log = options.log ?? (() => undefined);
  const bodyLimits = {
    maxBytes: options.maxBodyBytes ?? MAX_MESSAGE_BYTES,
    maxTokens: options.maxBodyTokens ?? MAX_MESSAGE_TOKENS,
    largeBodies: new BodySlots(options.largeBodySlots ?? DEFAULT_LARGE_BODY_SLOTS),
  };
  const clock = options.clock ?? systemClock;
  const sessions = new SessionTable<Entry>({ ...DEFAULT_SESSION_LIMITS, ...options.sessionLimits }, clock);
  const creation = new CreationBudget({ ...DEFAULT_CREATION_LIMITS, ...options.creationLimits, allow: options.allowNew === true });
  const occupants = new ConversationOccupants(host);
  /** Occupancies being freed by closed sessions; `close` waits for them before the host closes. */
  const vacating = new Set<Promise<void>>();
  const policy: GuardPolicy = { allowedHosts: new Set<string>(), token, tokenHint: options.tokenHint }; // refuses all until bound
  const howTo = token === null ? 'this server needs no token' : tokenHowTo(options.tokenHint);
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing) return reply(res, 503, 'the server is shutting down');
    const hostRefusal = checkOrigin(req.headers, policy.allowedHosts);
    if (hostRefusal) return reply(res, hostRefusal.status, hostRefusal.reason);
    const path = new URL(req.url ?? '/', 'http://gatefs.invalid').pathname;
    const probe = answerAuthProbe(path, howTo);
    if (probe) return sendJson(res, probe.status, probe.body);
    const tokenRefusal = checkAuthorization(req.headers, policy);
    if (tokenRefusal) {
      res.setHeader('WWW-Authenticate', tokenRefusal.challenge ?? 'Bearer realm="gatefs"');
      return reply(res, 401, tokenRefusal.reason);
    }
    const m = /^\/mcp\/([^/]+)\/?$/.exec(path);
    if (!m) return reply(res, 404, 'not found: the MCP endpoint is /mcp/<conversation>');
    const conversation = m[1];
    if (!isConversationId(conversation)) {
      return reply(res, 404, 'invalid conversation id: use lower-case letters, digits, "-" and "_" (at most 63)');
    }
    const sessionId = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const outcome = await readJsonBody(req, bodyLimits);
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'too-large') {
        log(`refused a request body of ${outcome.bytes} bytes on /mcp/${conversation} (the limit is ${outcome.limit})`);
        return reply(res, 413, tooLargeMessage(outcome.bytes, outcome.limit), OVERSIZED_MESSAGE_CODE, outcome.id);
      }
      if (outcome.kind === 'too-complex') {
        log(`refused a request body of more than ${outcome.limit} JSON tokens on /mcp/${conversation}`);
        return reply(res, 413, tooComplexMessage(outcome.limit), OVERSIZED_MESSAGE_CODE, outcome.id);
      }
      if (outcome.kind === 'not-utf8') return reply(res, 400, NOT_UTF8_MESSAGE, -32700, outcome.id);
      if (outcome.kind === 'invalid-json') return reply(res, 400, 'parse error: the body is not valid JSON', -32700);
      body = outcome.value;
    }
    const id = requestId(body);
    if (typeof sessionId === 'string') {
      const record = sessions.get(sessionId);
      if (!record || record.conversation !== conversation) return reply(res, 404, 'session not found: initialize a new session', -32001, id);
      const stream = req.method === 'GET';
      const end = sessions.begin(sessionId, stream ? 'stream' : 'request');
      res.once('close', () => {
        end();
        if (stream && record.streams === 0 && sessions.get(sessionId)) {
          log(`session ${sessionId}: event stream closed; the session ends after ${Math.round(sessions.limits.detachedMs / 1000)} s without requests`);
        }
      });
      return record.value.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return reply(res, 405, 'method not allowed without a session: POST an initialize request first');
    if (!isInitializeRequest(body)) return reply(res, 400, 'bad request: no session; send an initialize request first', SERVER_ERROR, id);
    let slot = sessions.reserve(conversation);
    if (isRefusal(slot) && (await reapIdle()) > 0) slot = sessions.reserve(conversation);
    if (isRefusal(slot)) {
      log(`session on ${conversation} refused: ${slot.open} open, the ${slot.scope} limit is ${slot.limit}`);
      return reply(res, slot.scope === 'conversation' ? 429 : 503, sessionCapMessage(conversation, slot, sessions.limits), SERVER_ERROR, id);
    }
    let committed = false;
    try {
      committed = await openEntry(conversation, req, res, body, (sid, entry) => slot.commit(sid, entry));
    } finally {
      if (!committed) slot.cancel();
    }
  }

  /**
   * Opens a session: the workspace (prepared only within the creation budget), the shared
   * occupancy holder, then the transport. Resolves true once the slot was committed.
   */
  async function openEntry(
    conversation: string,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    commit: (id: string, entry: Entry) => void,
  ): Promise<boolean> {
    const rpcId = requestId(body);
    try {
      await ensureWorkspace(host, conversation, {
        role,
        onProgress: log,
        reserve: (c) => creation.take(c, host.status().find((w) => w.conversation === c)?.state),
      });
    } catch (e) {
      if (e instanceof CreationRefusal) {
        log(`session on ${conversation} refused: ${e.message}`);
        const status = e.code === 'NOT_ALLOWED' ? 404 : e.code === 'TOTAL_LIMIT' ? 403 : 429;
        if (e.code === 'CONCURRENT_LIMIT') res.setHeader('Retry-After', '1');
        reply(res, status, e.message, SERVER_ERROR, rpcId);
        return false;
      }
      // The full line may name host paths: it goes to the operator's log, the client gets the code.
      log(`preparing ${conversation} failed: ${describeFailure(e)}`);
      const code = codeOf(e);
      reply(res, 500, `could not prepare the workspace${code === undefined ? '' : ` (${code})`}; the server log says why`, SERVER_ERROR, rpcId);
      return false;
    }
    let session: Session;
    try {
      session = await occupants.occupy(conversation);
    } catch (e) {
      log(`session for ${conversation} refused: ${describeFailure(e)}`);
      const code = codeOf(e);
      reply(res, 409, `the workspace cannot be occupied now${code === undefined ? '' : ` (${code})`}`, SERVER_ERROR, rpcId);
      return false;
    }
    const id = randomIds.next('session');
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const mcp = createMcpServer(host, { conversation, holder: session.holder });
    commit(id, { transport, server: mcp });
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      sessions.remove(id);
      const freed: Promise<void> = occupants.vacate(conversation).finally(() => vacating.delete(freed));
      vacating.add(freed);
      log(`session ${id} closed (conversation ${conversation})`);
    };
    transport.onclose = finish;
    await mcp.connect(transport);
    res.once('close', sessions.begin(id, 'request'));
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === id) log(`session ${id} opened (conversation ${conversation}, holder ${session.holder})`);
    else {
      await transport.close();
      finish();
    }
    return true;
  }

  /** Ends the sessions idle past their idle time; resolves to how many it ended. */
  async function reapIdle(): Promise<number> {
    const idle = sessions.reapable();
    for (const record of idle) {
      if (record.inFlight > 0 || record.streams > 0) continue; // became active while others were ended
      const seconds = Math.round((clock.now() - record.lastActive) / 1000);
      log(`session ${record.id} ended: idle for ${seconds} s${record.hadStream ? ' after its stream closed' : ''} (conversation ${record.conversation})`);
      await callsSettled(record.value.server);
      await record.value.transport.close().catch(() => undefined);
      sessions.remove(record.id);
    }
    return idle.length;
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`request failed: ${describeFailure(e)}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  // Node closes an idle keep-alive connection after 5 s; a client that reuses it just then (one
  // whose event loop was busy serializing a large request, say) sees its POST fail with a reset
  // instead of an answer. Keep idle connections a minute; `close` ends them all anyway.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const sweepMs = Math.max(1000, Math.min(60_000, Math.min(sessions.limits.idleMs, sessions.limits.detachedMs) / 2));
  const sweeper = setInterval(() => void reapIdle().catch((e: unknown) => log(`ending idle sessions failed: ${describeFailure(e)}`)), sweepMs);
  sweeper.unref();
  const port = (server.address() as AddressInfo).port;
  policy.allowedHosts = allowedHostHeaders(address, port);
  const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${shown}:${port}`,
    port,
    reapIdle,
    async close() {
      closing = true;
      clearInterval(sweeper);
      for (const record of sessions.all()) {
        await callsSettled(record.value.server);
        await record.value.transport.close().catch(() => undefined);
      }
      await Promise.allSettled([...vacating]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function isRefusal<T>(slot: T | SessionRefusal): slot is SessionRefusal {
  return typeof slot === 'object' && slot !== null && 'scope' in slot;
}

/** The id of a JSON-RPC request body, when it has a valid one. */
function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
