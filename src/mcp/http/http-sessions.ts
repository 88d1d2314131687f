/**
 * `HttpSessions`: the MCP sessions of `gatefs serve --http`, one per client, many conversations
 * at once. Three jobs, each a small method:
 * - routing: a request carrying `Mcp-Session-Id` goes to that session's transport (404 when the
 *   session is unknown or belongs to another conversation) and counts as its activity;
 * - opening: an initialize POST without a session takes a place under the session caps (429 per
 *   conversation, 503 in total, after ending idle sessions to make room; `SessionTable`); for a
 *   ready workspace it occupies it (409) and starts the transport; for one that needs preparing
 *   it takes a place in the creation budget (`--allow-new`, `CreationBudget`: 404, 403, 429),
 *   starts the preparation in the background and the transport at once, and its tool calls wait
 *   (`HttpReadiness`: progress notifications; a failed preparation is `WORKSPACE_NOT_READY`);
 * - reaping: sessions idle past their time are ended, on a timer and on demand.
 * Every refusal is a JSON-RPC error body; its text never names a host path (the operator's log
 * gets the full line).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Host } from '../../host/composition/index.js';
import type { Clock } from '../../ports/index.js';
import { randomIds } from '../../ports/index.js';
import { codeOf } from '../../../vfs/index.js';
import { clientNameOf, createMcpServer, callsSettled, createWaitingMcpServer, ensureWorkspace, type Session } from '../protocol/index.js';
import type { ToolProfile } from '../profiles/index.js';
import { HttpReadiness } from './http-readiness.js';
import { ConversationOccupants } from './conversation-occupants.js';
import { SessionTable, type SessionLimits, type SessionRefusal, type SessionSlot } from './session-table.js';
import { CreationBudget, CreationRefusal, type CreationLimits } from './creation-budget.js';
import { describeFailure } from '../text/index.js';
import { reply, sessionCapMessage, SERVER_ERROR } from './http-reply.js';
import type { AdmittedRequest } from './http-admission.js';

/** What `HttpSessions` needs besides the host. */
interface HttpSessionOptions {
  /** Role for conversations the server prepares (with `creationLimits.allow`). */
  role?: string;
  /** Run of conversations the server prepares (default: `default`). */
  run?: string;
  /** Agent identity of conversations the server prepares (default: their role's name). */
  agent?: string;
  sessionLimits: SessionLimits;
  creationLimits: CreationLimits;
  /** Clock for idle times. */
  clock: Clock;
  /** Where one-line logs go. */
  log: (line: string) => void;
  /** The names and shapes the tools are offered under (default: the gate's own). */
  profile?: ToolProfile;
}

/** One open session: its transport and its MCP server. */
interface Entry {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** The sessions of one HTTP server (see the module comment). */
export class HttpSessions {
  private readonly table: SessionTable<Entry>;
  private readonly creation: CreationBudget;
  private readonly occupants: ConversationOccupants;
  /** Occupancies being freed by closed sessions; `closeAll` waits for them before the host closes. */
  private readonly vacating = new Set<Promise<void>>();

  constructor(
    private readonly host: Host,
    private readonly options: HttpSessionOptions,
  ) {
    this.table = new SessionTable<Entry>(options.sessionLimits, options.clock);
    this.creation = new CreationBudget(options.creationLimits);
    this.occupants = new ConversationOccupants(host);
  }

  /** Serves an admitted request: to its session, or, for an initialize POST, in a new one. */
  async serve(req: IncomingMessage, res: ServerResponse, request: AdmittedRequest): Promise<void> {
    if (request.sessionId !== undefined) return this.route(req, res, request, request.sessionId);
    if (req.method !== 'POST') return reply(res, 405, 'method not allowed without a session: POST an initialize request first');
    if (!isInitializeRequest(request.body)) {
      return reply(res, 400, 'bad request: no session; send an initialize request first', SERVER_ERROR, request.rpcId);
    }
    return this.open(req, res, request);
  }

  /** Hands the request to session `sessionId`, counting it (a GET: an event stream) as activity. */
  private async route(req: IncomingMessage, res: ServerResponse, request: AdmittedRequest, sessionId: string): Promise<void> {
    const record = this.table.get(sessionId);
    if (!record || record.conversation !== request.conversation)
      return reply(res, 404, 'session not found: initialize a new session', -32001, request.rpcId);
    const stream = req.method === 'GET';
    const end = this.table.begin(sessionId, stream ? 'stream' : 'request');
    res.once('close', () => {
      end();
      if (stream && record.streams === 0 && this.table.get(sessionId)) {
        this.options.log(
          `session ${sessionId}: event stream closed; the session ends after ${Math.round(this.table.limits.detachedMs / 1000)} s without requests`,
        );
      }
    });
    return record.value.transport.handleRequest(req, res, request.body);
  }

  /** Opens a session in a place under the caps; the place is given back unless the session started. */
  private async open(req: IncomingMessage, res: ServerResponse, request: AdmittedRequest): Promise<void> {
    const { conversation } = request;
    let slot = this.table.reserve(conversation);
    if (isRefusal(slot) && (await this.reapIdle()) > 0) slot = this.table.reserve(conversation);
    if (isRefusal(slot)) {
      this.options.log(`session on ${conversation} refused: ${slot.open} open, the ${slot.scope} limit is ${slot.limit}`);
      return reply(
        res,
        slot.scope === 'conversation' ? 429 : 503,
        sessionCapMessage(conversation, slot, this.table.limits),
        SERVER_ERROR,
        request.rpcId,
      );
    }
    let started = false;
    try {
      const ready = this.host.status().find((w) => w.conversation === conversation)?.state === 'ready';
      if (ready) started = (await this.prepare(res, request)) && (await this.start(req, res, request, slot));
      else started = await this.startPreparing(req, res, request, slot);
    } finally {
      if (!started) slot.cancel();
    }
  }

  /**
   * A conversation without a ready workspace: takes a place in the creation budget now (a
   * refusal is this initialize's HTTP answer, as `prepare` gives it), starts the preparation in
   * the background (`ensureWorkspace`, shared with other sessions), and opens the session at
   * once; its tool calls wait for the workspace and its occupancy (`HttpReadiness`).
   */
  private async startPreparing(
    req: IncomingMessage,
    res: ServerResponse,
    request: AdmittedRequest,
    slot: SessionSlot<Entry>,
  ): Promise<boolean> {
    const { conversation, rpcId } = request;
    const { log, role, run, agent } = this.options;
    let refusal: unknown;
    const preparation = ensureWorkspace(this.host, conversation, {
      role,
      ...(run ? { run } : {}),
      ...(agent ? { agent } : {}),
      onProgress: log,
      // Runs before ensureWorkspace's first await: a refusal is known when the call returns.
      reserve: (c) => {
        try {
          return this.creation.take(c, this.host.status().find((w) => w.conversation === c)?.state);
        } catch (e) {
          refusal = e;
          throw e;
        }
      },
    });
    preparation.catch((e: unknown) => {
      if (e !== refusal) log(`preparing ${conversation} failed: ${describeFailure(e)}`);
    });
    if (refusal instanceof CreationRefusal) return this.refuseCreation(res, conversation, refusal, rpcId);
    let id = '';
    const readiness = new HttpReadiness(
      this.host,
      conversation,
      preparation,
      () => this.occupants.occupy(conversation, clientOf(request)),
      (line) => log(`session ${id} ${line}`),
      role,
    );
    const mcp = createWaitingMcpServer(readiness, {
      conversation,
      explain: (e) => String(codeOf(e) ?? 'an unexpected error'),
      ...(this.options.profile ? { profile: this.options.profile } : {}),
    });
    return this.serveSession(
      req,
      res,
      request,
      slot,
      mcp,
      () => readiness.holdsOccupancy,
      'holder once its workspace is ready',
      (opened) => (id = opened),
    );
  }

  /** Makes sure the workspace is ready, preparing it within the creation budget; false once refused. */
  private async prepare(res: ServerResponse, { conversation, rpcId }: AdmittedRequest): Promise<boolean> {
    const { log, role, run, agent } = this.options;
    try {
      await ensureWorkspace(this.host, conversation, {
        role,
        ...(run ? { run } : {}),
        ...(agent ? { agent } : {}),
        onProgress: log,
        reserve: (c) => this.creation.take(c, this.host.status().find((w) => w.conversation === c)?.state),
      });
      return true;
    } catch (e) {
      if (e instanceof CreationRefusal) return this.refuseCreation(res, conversation, e, rpcId);
      // The full line may name host paths: it goes to the operator's log, the client gets the code.
      log(`preparing ${conversation} failed: ${describeFailure(e)}`);
      reply(res, 500, `could not prepare the workspace${withCode(e)}; the server log says why`, SERVER_ERROR, rpcId);
      return false;
    }
  }

  /** Answers an initialize the creation budget refused (404 not allowed, 403 total, 429 concurrent with `Retry-After`); false. */
  private refuseCreation(res: ServerResponse, conversation: string, refusal: CreationRefusal, rpcId: string | number | null): false {
    this.options.log(`session on ${conversation} refused: ${refusal.message}`);
    if (refusal.code === 'CONCURRENT_LIMIT') res.setHeader('Retry-After', '1');
    reply(res, refusal.code === 'NOT_ALLOWED' ? 404 : refusal.code === 'TOTAL_LIMIT' ? 403 : 429, refusal.message, SERVER_ERROR, rpcId);
    return false;
  }

  /** Occupies the workspace, commits the slot and starts the transport; false when occupancy is refused (409). */
  private async start(req: IncomingMessage, res: ServerResponse, request: AdmittedRequest, slot: SessionSlot<Entry>): Promise<boolean> {
    const { conversation } = request;
    let session: Session;
    try {
      session = await this.occupants.occupy(conversation, clientOf(request));
    } catch (e) {
      this.options.log(`session for ${conversation} refused: ${describeFailure(e)}`);
      reply(res, 409, `the workspace cannot be occupied now${withCode(e)}`, SERVER_ERROR, request.rpcId);
      return false;
    }
    const mcp = createMcpServer(this.host, {
      conversation,
      holder: session.holder,
      ...(this.options.profile ? { profile: this.options.profile } : {}),
    });
    return this.serveSession(req, res, request, slot, mcp, () => true, `holder ${session.holder}`);
  }

  /** Commits the slot to a new session running `mcp` and answers its initialize; `occupies` says whether its end frees a share of the occupancy. */
  private async serveSession(
    req: IncomingMessage,
    res: ServerResponse,
    request: AdmittedRequest,
    slot: SessionSlot<Entry>,
    mcp: Server,
    occupies: () => boolean,
    holderNote: string,
    named: (id: string) => void = () => undefined,
  ): Promise<boolean> {
    const { conversation } = request;
    const id = randomIds.next('session');
    named(id);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    slot.commit(id, { transport, server: mcp });
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      this.ended(id, conversation, occupies());
    };
    transport.onclose = finish;
    await mcp.connect(transport);
    res.once('close', this.table.begin(id, 'request'));
    await transport.handleRequest(req, res, request.body);
    if (transport.sessionId === id) this.options.log(`session ${id} opened (conversation ${conversation}, ${holderNote})`);
    else {
      await transport.close();
      finish();
    }
    return true;
  }

  /** Forgets session `id` and, when it held one, frees its share of the conversation's occupancy. */
  private ended(id: string, conversation: string, occupied: boolean): void {
    this.table.remove(id);
    if (occupied) {
      const freed: Promise<void> = this.occupants.vacate(conversation).finally(() => this.vacating.delete(freed));
      this.vacating.add(freed);
    }
    this.options.log(`session ${id} closed (conversation ${conversation})`);
  }

  /** Open sessions per conversation, now (the status page's Sessions column). */
  openPerConversation(): Map<string, number> {
    const open = new Map<string, number>();
    for (const record of this.table.all()) open.set(record.conversation, (open.get(record.conversation) ?? 0) + 1);
    return open;
  }

  /** Ends the sessions idle past their idle time; resolves to how many it ended. */
  async reapIdle(): Promise<number> {
    const idle = this.table.reapable();
    for (const record of idle) {
      if (record.inFlight > 0 || record.streams > 0) continue; // became active while others were ended
      const seconds = Math.round((this.options.clock.now() - record.lastActive) / 1000);
      this.options.log(
        `session ${record.id} ended: idle for ${seconds} s${record.hadStream ? ' after its stream closed' : ''} (conversation ${record.conversation})`,
      );
      await callsSettled(record.value.server);
      await record.value.transport.close().catch(() => undefined);
      this.table.remove(record.id);
    }
    return idle.length;
  }

  /**
   * Runs `reapIdle` on a timer (half the shorter idle time, between 1 s and 1 min) that does not
   * keep the process alive; returns the function that stops it.
   */
  startReaping(): () => void {
    const { idleMs, detachedMs } = this.table.limits;
    const everyMs = Math.max(1000, Math.min(60_000, Math.min(idleMs, detachedMs) / 2));
    const timer = setInterval(
      () => void this.reapIdle().catch((e: unknown) => this.options.log(`ending idle sessions failed: ${describeFailure(e)}`)),
      everyMs,
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Closes every session once its calls have settled, then waits for their occupancies to be freed. */
  async closeAll(): Promise<void> {
    for (const record of this.table.all()) {
      await callsSettled(record.value.server);
      await record.value.transport.close().catch(() => undefined);
    }
    await Promise.allSettled([...this.vacating]);
  }
}

function isRefusal<T>(slot: T | SessionRefusal): slot is SessionRefusal {
  return typeof slot === 'object' && slot !== null && 'scope' in slot;
}

/** ` (CODE)` for an error that carries a code, else ''; the code is safe to show a client, the message may not be. */
function withCode(e: unknown): string {
  const code = codeOf(e);
  return code === undefined ? '' : ` (${code})`;
}

/** The client's name from an initialize request's body (`clientInfo.name`), when it gives one. */
function clientOf(request: AdmittedRequest): string | undefined {
  const body = request.body as { params?: unknown } | null | undefined;
  return clientNameOf(typeof body === 'object' && body !== null && !Array.isArray(body) ? body.params : undefined);
}
