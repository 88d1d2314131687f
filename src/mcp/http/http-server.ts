/**
 * `gatefs serve --http`: MCP over Streamable HTTP on node:http, one MCP session per client,
 * the conversation in the URL (`/mcp/<conversation>`, or `/c/<conversation>/mcp`), many
 * conversations at once, the read-only status page at `/` (`status-page/status-routes.ts`, same token),
 * and `POST /api/file-references/resolve` (`file-reference-route.ts`, same token). Each request
 * passes, in order: the Host/Origin guard (403), the OAuth probe answers (gatefs has none), the
 * bearer token (401), the route, and the body limits (413, `MAX_MESSAGE_BYTES` and
 * `MAX_MESSAGE_TOKENS`, the same limits as stdio; at most a few bodies over 1 MiB are kept at once,
 * `BodySlots`) — `admitRequest`; a new session then passes the session caps (429/503,
 * `SessionTable`) and, for a conversation without a ready workspace, the creation budget
 * (`--allow-new`, `CreationBudget`) — `HttpSessions`. Every refusal is a JSON-RPC error body;
 * none takes the server down.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Host } from '../../host/composition/index.js';
import { CodedError } from '../../../vfs/index.js';
import { systemClock, type Clock } from '../../ports/index.js';
import { allowedHostHeaders, type ListenAddress } from './listen-address.js';
import { tokenHowTo } from '../guard/index.js';
import { BodySlots, DEFAULT_LARGE_BODY_SLOTS } from './body-slots.js';
import { MAX_MESSAGE_BYTES, MAX_MESSAGE_TOKENS } from '../message-limits/index.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './session-table.js';
import { DEFAULT_CREATION_LIMITS, type CreationLimits } from './creation-budget.js';
import { describeFailure } from '../text/index.js';
import { reply } from './http-reply.js';
import { admitRequest, type AdmissionPolicy } from './http-admission.js';
import { HttpSessions } from './http-sessions.js';
import type { ToolProfile } from '../profiles/index.js';
import { isStatusPath, StatusRoutes } from '../status-page/index.js';
import { FILE_REFERENCES_PATH, serveFileReference } from './file-reference-route.js';
import { gatefsVersion } from '../initialize/index.js';

/** Options of `serveHttp`. */
export interface HttpServeOptions {
  address: ListenAddress;
  /**
   * Bearer token every request must carry; `null` for none, allowed on a loopback address only;
   * or a function answering the token in force at each request (a saved token file that
   * `gatefs token rotate` may replace: `SavedTokenWatch`).
   */
  token: string | null | (() => string | null);
  /**
   * Where clients find the token, for 401 messages; never a host path (see `GuardPolicy`). A
   * function is given the bound port (a saved token file is named by it).
   */
  tokenHint?: string | ((port: number) => string);
  /** Prepare workspaces for conversations that have none (`--allow-new`; default false). */
  allowNew?: boolean;
  /** Role for conversations the server prepares (with `allowNew`). */
  role?: string;
  /** Run of conversations the server prepares (with `allowNew`; default `default`). */
  run?: string;
  /** Agent identity of conversations the server prepares (with `allowNew`; default: their role's name). */
  agent?: string;
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
  /** How often the status page's live feed looks at the host (default 1000 ms). */
  statusEveryMs?: number;
  /** The names and shapes the tools are offered under (`--profile`; default: the gate's own). */
  profile?: ToolProfile;
}

/** A listening server: its base URL (`http://host:port`) and how to stop it. */
export interface RunningHttpServer {
  url: string;
  port: number;
  /** Ends idle sessions now (the server also does so on a timer); resolves to how many. */
  reapIdle(): Promise<number>;
  close(): Promise<void>;
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
 * without a token. Resolves once listening. Each request passes `admitRequest` (the guard chain)
 * and is then served by `HttpSessions`; an unexpected failure answers 500 and is logged.
 */
export async function serveHttp(host: Host, options: HttpServeOptions): Promise<RunningHttpServer> {
  const { address } = options;
  const tokenNow = typeof options.token === 'function' ? options.token : () => options.token as string | null;
  if (!address.loopback && tokenNow() === null) {
    throw new InsecureBindError(`refusing to serve on ${address.host} without a token: only a loopback address may run with --no-token`);
  }
  const log = options.log ?? (() => undefined);
  const admission = admissionPolicy(options, log);
  const sessions = new HttpSessions(host, {
    role: options.role,
    ...(options.run ? { run: options.run } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    sessionLimits: { ...DEFAULT_SESSION_LIMITS, ...options.sessionLimits },
    creationLimits: { ...DEFAULT_CREATION_LIMITS, ...options.creationLimits, allow: options.allowNew === true },
    clock: options.clock ?? systemClock,
    log,
    ...(options.profile ? { profile: options.profile } : {}),
  });
  const status = new StatusRoutes(host, {
    token: tokenNow,
    allowedHosts: () => admission.guard.allowedHosts,
    sessions: () => sessions.openPerConversation(),
    version: gatefsVersion(),
    log,
    ...(options.statusEveryMs ? { feedEveryMs: options.statusEveryMs } : {}),
  });
  let closing = false;
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`request failed: ${describeFailure(e)}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing) return reply(res, 503, 'the server is shutting down');
    const url = new URL(req.url ?? '/', 'http://gatefs.invalid');
    if (isStatusPath(url.pathname)) return status.handle(req, res, url);
    if (url.pathname === FILE_REFERENCES_PATH) {
      return serveFileReference(host, req, res, {
        token: tokenNow,
        allowedHosts: () => admission.guard.allowedHosts,
        tokenHint: () => admission.guard.tokenHint,
      });
    }
    admission.guard.token = tokenNow();
    const request = await admitRequest(req, res, admission);
    if (request) await sessions.serve(req, res, request);
  }

  const port = await listen(server, address);
  const stopReaping = sessions.startReaping();
  admission.guard.allowedHosts = allowedHostHeaders(address, port);
  if (typeof options.tokenHint === 'function') {
    admission.guard.tokenHint = options.tokenHint(port);
    admission.howTo = tokenHowTo(admission.guard.tokenHint);
  }
  const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${shown}:${port}`,
    port,
    reapIdle: () => sessions.reapIdle(),
    async close() {
      closing = true;
      status.close();
      stopReaping();
      await sessions.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The guard chain's policy; its Host allow list refuses every request until the server is bound. */
function admissionPolicy(options: HttpServeOptions, log: (line: string) => void): AdmissionPolicy {
  const token = typeof options.token === 'function' ? options.token() : options.token;
  const tokenHint = typeof options.tokenHint === 'function' ? undefined : options.tokenHint;
  return {
    guard: { allowedHosts: new Set<string>(), token, tokenHint },
    howTo: token === null ? 'this server needs no token' : tokenHowTo(tokenHint),
    bodyLimits: {
      maxBytes: options.maxBodyBytes ?? MAX_MESSAGE_BYTES,
      maxTokens: options.maxBodyTokens ?? MAX_MESSAGE_TOKENS,
      largeBodies: new BodySlots(options.largeBodySlots ?? DEFAULT_LARGE_BODY_SLOTS),
    },
    log,
  };
}

/** Listens on `address` and resolves to the bound port; rejects with the listen error (`EADDRINUSE`, …). */
async function listen(server: HttpServer, address: ListenAddress): Promise<number> {
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
  return (server.address() as AddressInfo).port;
}
