/**
 * `gatefs serve` over stdio: one MCP server for one conversation on this process's stdin and
 * stdout. Nothing else may write to stdout while it runs (logs go to stderr).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Host } from '../host/types.js';
import { callsSettled, createMcpServer } from './server.js';
import { openSession } from './session.js';

/**
 * Serves `conversation` (already prepared) over stdio until the client closes stdin or the
 * transport closes; resolves then. The session is the occupancy holder when the host has one;
 * throws `WorkspaceError` `OCCUPIED` when another live holder occupies the workspace.
 */
export async function serveStdio(host: Host, conversation: string, holder: string): Promise<void> {
  const session = await openSession(host, conversation, holder);
  const server = createMcpServer(host, { conversation, holder });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await callsSettled(server);
  await server.close().catch(() => undefined);
  await session.close();
}
