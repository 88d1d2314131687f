/**
 * The MCP server for one conversation: the SDK's low-level `Server` with `tools/list` and
 * `tools/call` handlers over a `Host`'s tool gate, under a `ToolProfile`'s names. The TypeBox
 * JSON Schemas go to clients as they are (no zod conversion).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../../host/composition/index.js';
import { gatefsVersion, SERVER_CAPABILITIES, workspaceInstructions } from '../initialize/index.js';
import { GATEFS_PROFILE, gateOf, type ToolProfile } from '../profiles/index.js';
import { trackCall } from './calls-in-flight.js';
import { serveWhereami } from './whereami-resource.js';

/** Options of `createMcpServer`. */
interface McpServerOptions {
  /** The conversation every call of this server is made for (it must already be prepared). */
  conversation: string;
  /** The occupancy holder passed to the gate with every call (e.g. the MCP session id). */
  holder?: string;
  /** The names and shapes the tools are offered under (default: `GATEFS_PROFILE`). */
  profile?: ToolProfile;
}

/**
 * Creates an MCP server bound to one conversation of `host`. Connect it to a transport with
 * `server.connect(transport)`. Every tool call goes through `host.gate.call` (under the names and
 * shapes of `options.profile`), so a tool the role lacks answers `TOOL_NOT_ALLOWED` and bad
 * arguments answer `INVALID_INPUT`, as results with `isError: true`, never as protocol errors.
 * The server itself never throws on a bad call. It also serves the resource `gatefs://whereami`
 * (`serveWhereami`).
 */
export function createMcpServer(host: Host, options: McpServerOptions): Server {
  const { conversation, holder } = options;
  const profile = options.profile ?? GATEFS_PROFILE;
  const server = new Server(
    { name: 'gatefs', version: gatefsVersion() },
    {
      capabilities: { ...SERVER_CAPABILITIES },
      instructions: workspaceInstructions(conversation, profile.name),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: profile.tools(host.gate.tools(conversation), conversation),
  }));
  const gate = gateOf(host, conversation, holder);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    return trackCall(server, profile.call(name, args ?? {}, gate));
  });
  serveWhereami(server, async () => ({ host, conversation }));
  return server;
}
