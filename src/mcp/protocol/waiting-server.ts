/**
 * `createWaitingMcpServer`: the MCP server of `gatefs serve` for a session that answers from the
 * first moment while its workspace is made ready in the background (a `ReadinessSource`: over
 * stdio `WorkspaceReadiness`, over HTTP `HttpReadiness` for a conversation `--allow-new` prepares).
 *
 * - `initialize` needs nothing (it is often answered before this server even exists:
 *   `initialize/early-initialize.ts`); a cause known by then (`options.problem`) ends its instructions.
 * - `tools/list` waits for the host to open and the conversation to be chosen (well under a
 *   second), then lists the role's tools, prepared or not. When the host cannot open (a broken
 *   `gatefs.yaml`, an untrusted state directory) it answers a JSON-RPC error saying why.
 * - `tools/call` waits until the workspace is ready and held. Meanwhile, when the request
 *   carries a `progressToken`, the client gets a `notifications/progress` at once and then every
 *   second, naming what it waits for (so it shows progress and its request timeout restarts);
 *   a workspace that cannot be made ready is a tool error (`WORKSPACE_NOT_READY`, `OCCUPIED`)
 *   saying why and what to do. The first answer after the workspace is ready starts with the
 *   readiness's notice, when it has one (`takeNotice`: a continued workspace's uncommitted files):
 *   the initialize answer went out before the workspace was chosen, so its instructions cannot say it.
 * - `resources/read` of `gatefs://whereami` waits for readiness too (`serveWhereami`).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { trackCall } from './calls-in-flight.js';
import { GATEFS_PROFILE, gateOf, type ToolProfile } from '../profiles/index.js';
import { gatefsVersion, SERVER_CAPABILITIES, workspaceInstructions, type WorkspaceProblem } from '../initialize/index.js';
import type { ReadinessSource } from './readiness.js';
import { serveWhereami } from './whereami-resource.js';

/** How often a waiting call is sent a progress notification, in ms. */
const PROGRESS_EVERY_MS = 1000;

/** Options of `createWaitingMcpServer`. */
interface WaitingServerOptions {
  /** The conversation named in the instructions (undefined: chosen later, `--conversation auto`). */
  conversation?: string;
  /** A failure as the client reads it: what is wrong and what to do. */
  explain: (e: unknown) => string;
  /** The facts of a failure, sent as `tools/list`'s JSON-RPC error data. */
  detailsOf?: (e: unknown) => Record<string, unknown>;
  /** Why the workspace cannot be prepared, when known before `initialize`: the instructions end with it. */
  problem?: WorkspaceProblem | null;
  /** The names and shapes the tools are offered under (default: `GATEFS_PROFILE`). */
  profile?: ToolProfile;
}

/** Creates the server over `readiness` (see the file comment). Connect it with `server.connect(transport)`. */
export function createWaitingMcpServer(readiness: ReadinessSource, options: WaitingServerOptions): Server {
  const profile = options.profile ?? GATEFS_PROFILE;
  const server = new Server(
    { name: 'gatefs', version: gatefsVersion() },
    { capabilities: { ...SERVER_CAPABILITIES }, instructions: workspaceInstructions(options.conversation, profile.name, options.problem) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      const declared = await readiness.tools();
      return { tools: profile.tools(declared, readiness.conversationId ?? options.conversation) };
    } catch (e) {
      throw new McpError(ErrorCode.InternalError, `gatefs cannot serve this workspace: ${options.explain(e)}`, options.detailsOf?.(e));
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const call = async (): Promise<CallToolResult> => {
      const token = request.params._meta?.progressToken;
      const ready = readiness.isReady || token === undefined ? await readiness.ready() : await withProgress(readiness, token, extra);
      if (!ready.ok) return profile.refusal(name, ready.error);
      const result = await profile.call(name, args ?? {}, gateOf(ready.host, ready.conversation, ready.holder));
      const notice = readiness.takeNotice?.();
      return notice ? { ...result, content: [{ type: 'text', text: `Note from gatefs: ${notice}` }, ...result.content] } : result;
    };
    return trackCall(server, call());
  });
  serveWhereami(server, async () => {
    const ready = await readiness.ready();
    return ready.ok ? { host: ready.host, conversation: ready.conversation } : { code: ready.error.code, message: ready.error.message };
  });
  return server;
}

/** Waits for `readiness`, sending progress for `token` at once and every `PROGRESS_EVERY_MS`. */
async function withProgress(
  readiness: ReadinessSource,
  token: string | number,
  extra: { sendNotification: (n: ServerNotification) => Promise<void> },
) {
  let progress = 0;
  const send = () => {
    const seconds = Math.round((progress * PROGRESS_EVERY_MS) / 1000);
    const message = `waiting for gatefs: ${readiness.phase}${seconds > 0 ? ` (${seconds} s)` : ''}`;
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } })
      .catch(() => undefined);
  };
  send();
  const timer = setInterval(send, PROGRESS_EVERY_MS);
  try {
    return await readiness.ready();
  } finally {
    clearInterval(timer);
  }
}
