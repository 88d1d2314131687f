/**
 * The protocol room of src/mcp: the adapter between MCP and a `Host`'s tool gate, whatever the
 * transport. `createMcpServer` serves a ready workspace; `createWaitingMcpServer` answers from
 * the first moment while a `ReadinessSource` makes the workspace ready (its tool calls wait);
 * `callsSettled` waits for the tool calls a server started. A session occupies its workspace
 * as a holder (`openSession`, `newHolderId`), and `ensureWorkspace` prepares a missing one,
 * once for every caller at the same time.
 *
 * Loads the MCP SDK's server: the CLI imports this door only once it serves.
 */
export { callsSettled } from './calls-in-flight.js';
export { ensureWorkspace } from './ensure-workspace.js';
export type { Readiness, ReadinessSource } from './readiness.js';
export { createMcpServer } from './server.js';
export { clientNameOf, newHolderId, openSession, type Session } from './session.js';
export { createWaitingMcpServer } from './waiting-server.js';
