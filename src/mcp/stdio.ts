/**
 * `gatefs serve` over stdio: one MCP server for one conversation on this process's stdin and
 * stdout. Nothing else may write to stdout while it runs (logs go to stderr).
 */
import type { Host } from '../host/types.js';
import { callsSettled, createMcpServer } from './server.js';
import { openSession } from './session.js';
import { CappedStdioTransport } from './capped-stdio-transport.js';

/** Options of `serveStdio`. */
export interface StdioServeOptions {
  /**
   * Resolves with a reason (e.g. "SIGTERM") when the server should stop although stdin is still
   * open. Default: never.
   */
  stop?: Promise<string>;
  /** One-line notes for the operator (the CLI passes stderr). */
  log?: (line: string) => void;
  /** Called once the session holds the workspace, right before serving (not when refused). */
  onServing?: () => void;
}

/**
 * Serves `conversation` (already prepared) over stdio until the client closes stdin, stdout
 * fails, or `options.stop` resolves. Then it stops reading, waits until every request it took
 * is answered and the tool calls in flight have finished (their answers are still written),
 * closes the MCP server and ends the session's occupancy, and resolves with the reason it
 * stopped ("stdin closed", the stdout failure, or the `stop` reason).
 * The session is the occupancy holder when the host has one; throws `WorkspaceError`
 * `OCCUPIED` (before serving) when another live holder occupies the workspace.
 */
export async function serveStdio(host: Host, conversation: string, holder: string, options: StdioServeOptions = {}): Promise<string> {
  const session = await openSession(host, conversation, holder);
  try {
    options.onServing?.();
    const server = createMcpServer(host, { conversation, holder });
    const transport = new CappedStdioTransport({ log: options.log });
    const ended = new Promise<string>((resolve) => {
      transport.onInputEnd = resolve;
      server.onclose = () => resolve('the connection closed');
    });
    await server.connect(transport);
    const reason = await Promise.race([ended, options.stop ?? new Promise<string>(() => undefined)]);
    transport.stopReading();
    await transport.answered();
    await callsSettled(server);
    await server.close().catch(() => undefined);
    return reason;
  } finally {
    await session.close();
  }
}
