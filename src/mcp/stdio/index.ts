/**
 * The stdio room of src/mcp: `gatefs serve` over stdin and stdout. `serveStdio` serves one
 * conversation through `CappedStdioTransport` (lines framed within the message limits, every
 * message it cannot take answered with a JSON-RPC error, flow control both ways) while
 * `WorkspaceReadiness` opens the host, chooses the conversation, and prepares and occupies its
 * workspace in the background.
 *
 * Loads the MCP SDK: the CLI imports this door only once it serves over stdio.
 */
export { serveStdio } from './stdio.js';
export { WorkspaceReadiness } from './workspace-readiness.js';
