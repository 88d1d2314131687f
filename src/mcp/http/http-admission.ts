/**
 * The guard chain of `gatefs serve --http`: what a request passes, in order, before any session
 * sees it. The Host/Origin guard (403), the OAuth probe answers (gatefs has none), the bearer
 * token (401), the route `/mcp/<conversation>` or `/c/<conversation>/mcp` (404), and, for a POST, the body limits (413 past
 * `maxBytes` or `maxTokens`, 400 for a body that is not UTF-8 or not JSON). Each refusal is
 * answered here, as a JSON-RPC error body where the client speaks JSON-RPC; the caller only
 * serves what comes through.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isConversationId } from '../../../vfs/index.js';
import { answerAuthProbe } from './auth-probe.js';
import { readJsonBody, type BodyLimits } from './read-body.js';
import { checkAuthorization, checkOrigin, type GuardPolicy } from '../guard/index.js';
import { NOT_UTF8_MESSAGE, OVERSIZED_MESSAGE_CODE, tooComplexMessage, tooLargeMessage } from '../message-limits/index.js';
import { reply, sendJson } from './http-reply.js';

/** What the guard chain enforces. */
export interface AdmissionPolicy {
  /** Host allow list and token; the server fills `allowedHosts` once it knows its port. */
  guard: GuardPolicy;
  /** How to authenticate, for the OAuth probe answers (`tokenHowTo`, or "needs no token"). */
  howTo: string;
  /** The limits of a POST body (the same as over stdio). */
  bodyLimits: BodyLimits;
  /** Where a refused oversized body is logged. */
  log: (line: string) => void;
}

/** A request that passed every guard: its conversation, its session header, and its parsed body. */
export interface AdmittedRequest {
  conversation: string;
  /** The `Mcp-Session-Id` header when it is one string; undefined for a request without a session. */
  sessionId: string | undefined;
  /** The parsed JSON body of a POST; undefined for GET and DELETE. */
  body: unknown;
  /** The JSON-RPC id of the body, when it has a valid one, for the answers that refuse it. */
  rpcId: string | number | null;
}

/**
 * Runs the guard chain on `req`. Resolves to the admitted request, or to null once a refusal was
 * answered on `res` (or the client went away while its body was read).
 */
export async function admitRequest(req: IncomingMessage, res: ServerResponse, policy: AdmissionPolicy): Promise<AdmittedRequest | null> {
  const path = passHeaderGuards(req, res, policy);
  if (path === null) return null;
  const conversation = routeOf(path, res);
  if (conversation === null) return null;
  const header = req.headers['mcp-session-id'];
  const sessionId = typeof header === 'string' ? header : undefined;
  if (req.method !== 'POST') return { conversation, sessionId, body: undefined, rpcId: null };
  const read = await readBody(req, res, conversation, policy);
  if (read === null) return null;
  return { conversation, sessionId, body: read.body, rpcId: requestId(read.body) };
}

/** Host/Origin (403), the OAuth probes, then the token (401): the request's path, or null once refused. */
function passHeaderGuards(req: IncomingMessage, res: ServerResponse, policy: AdmissionPolicy): string | null {
  const hostRefusal = checkOrigin(req.headers, policy.guard.allowedHosts);
  if (hostRefusal) {
    reply(res, hostRefusal.status, hostRefusal.reason);
    return null;
  }
  const path = new URL(req.url ?? '/', 'http://gatefs.invalid').pathname;
  const probe = answerAuthProbe(path, policy.howTo);
  if (probe) {
    sendJson(res, probe.status, probe.body);
    return null;
  }
  const tokenRefusal = checkAuthorization(req.headers, policy.guard);
  if (tokenRefusal) {
    res.setHeader('WWW-Authenticate', tokenRefusal.challenge ?? 'Bearer realm="gatefs"');
    reply(res, 401, tokenRefusal.reason);
    return null;
  }
  return path;
}

/**
 * The conversation named by `/mcp/<conversation>`, or by its alias `/c/<conversation>/mcp` for
 * clients that make every URL end in `/mcp` (MCP Inspector 0.15); null once a 404 was answered.
 */
function routeOf(path: string, res: ServerResponse): string | null {
  const m = /^\/mcp\/([^/]+)\/?$/.exec(path) ?? /^\/c\/([^/]+)\/mcp\/?$/.exec(path);
  if (!m) {
    reply(res, 404, 'not found: the MCP endpoint is /mcp/<conversation> (or /c/<conversation>/mcp); the status page is /');
    return null;
  }
  if (!isConversationId(m[1])) {
    reply(res, 404, 'invalid conversation id: use lower-case letters, digits, "-" and "_" (at most 63)');
    return null;
  }
  return m[1];
}

/** The POST body within the limits, or null once it was refused (413, 400) or the client went away. */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  conversation: string,
  policy: AdmissionPolicy,
): Promise<{ body: unknown } | null> {
  const outcome = await readJsonBody(req, policy.bodyLimits);
  switch (outcome.kind) {
    case 'json':
      return { body: outcome.value };
    case 'aborted':
      return null;
    case 'too-large':
      policy.log(`refused a request body of ${outcome.bytes} bytes on /mcp/${conversation} (the limit is ${outcome.limit})`);
      reply(res, 413, tooLargeMessage(outcome.bytes, outcome.limit), OVERSIZED_MESSAGE_CODE, outcome.id);
      return null;
    case 'too-complex':
      policy.log(`refused a request body of more than ${outcome.limit} JSON tokens on /mcp/${conversation}`);
      reply(res, 413, tooComplexMessage(outcome.limit), OVERSIZED_MESSAGE_CODE, outcome.id);
      return null;
    case 'not-utf8':
      reply(res, 400, NOT_UTF8_MESSAGE, -32700, outcome.id);
      return null;
    case 'invalid-json':
      reply(res, 400, 'parse error: the body is not valid JSON', -32700);
      return null;
  }
}

/** The id of a JSON-RPC request body, when it has a valid one. */
function requestId(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || !('id' in body)) return null;
  const id = body.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
