/**
 * The answers `gatefs serve --http` gives instead of serving a request: JSON-RPC error bodies
 * with an HTTP status, and the sentence that explains a session beyond a cap. Kept apart so every refusal reads the same way.
 */
import type { ServerResponse } from 'node:http';
import type { SessionLimits, SessionRefusal } from './session-table.js';

/** JSON-RPC "server error" code used for every refusal that is not a parse error. */
export const SERVER_ERROR = -32000;

/** Why a new session was refused (which cap, how many are open), and when to retry. */
export function sessionCapMessage(conversation: string, refusal: SessionRefusal, limits: SessionLimits): string {
  const where = refusal.scope === 'conversation' ? `conversation "${conversation}" already has` : 'this server already has';
  const minutes = (ms: number) => `${Math.round(ms / 60_000) || 1} min`;
  return (
    `${where} ${refusal.open} open sessions (the limit ${refusal.scope === 'conversation' ? 'per conversation' : 'in total'} is ${refusal.limit}); ` +
    'open sessions are never ended to make room. Close one you no longer use (HTTP DELETE with its Mcp-Session-Id), ' +
    `or retry later: a session ends after ${minutes(limits.idleMs)} without requests, or ${minutes(limits.detachedMs)} after its client dropped its stream`
  );
}

/** Writes a JSON body with an HTTP status (just ends the response when headers went out already). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Writes a JSON-RPC error response with an HTTP status (`id` null unless the request's is known). */
export function reply(res: ServerResponse, status: number, message: string, code = SERVER_ERROR, id: string | number | null = null): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id });
}
