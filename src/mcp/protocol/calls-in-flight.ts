/**
 * The tool calls an MCP server has started and not finished, so whoever closes the server (and
 * then the host) can wait for them: a write in flight is completed, or never started, but never
 * cut in half. `createMcpServer` and `createWaitingMcpServer` count every call; the transports
 * wait with `callsSettled` before they close.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

const pendingCalls = new WeakMap<Server, Set<Promise<unknown>>>();

/** Counts `call` as a tool call of `server` until it settles (`callsSettled` waits for it). Result: `call`. */
export function trackCall<T>(server: Server, call: Promise<T>): Promise<T> {
  let pending = pendingCalls.get(server);
  if (!pending) pendingCalls.set(server, (pending = new Set()));
  const calls = pending;
  calls.add(call);
  void call.then(
    () => calls.delete(call),
    () => calls.delete(call),
  );
  return call;
}

/**
 * Resolves once every tool call this server has started has finished, so a caller can close
 * the host without cutting a write short (a client that hung up mid-call still gets its
 * write completed, or not started: never half done).
 */
export async function callsSettled(server: Server): Promise<void> {
  const pending = pendingCalls.get(server);
  while (pending && pending.size > 0) await Promise.allSettled([...pending]);
}
