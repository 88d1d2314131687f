/**
 * The MCP resource `gatefs://whereami`: the session's execution snapshot as JSON (`mimeType`
 * `application/json`), the same value the `whereami` tool answers (`Host.describeProbed`),
 * offered whatever tools the role declares (it says only what the conversation itself may see).
 * `resources/list` names it at once; `resources/read` answers it once the workspace is ready (a
 * waiting server waits as its tool calls do).
 *
 * A failure is a JSON-RPC error: `InvalidParams` for another URI; otherwise `InternalError` whose
 * message is the code and a sentence of its own (a host's message may name host paths, so it is
 * never forwarded), with `data.code`.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListResourcesRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { codeOf } from '../../../vfs/index.js';
import type { Host } from '../../host/composition/index.js';

/** The resource's URI. */
export const WHEREAMI_URI = 'gatefs://whereami';

/** Where the snapshot comes from: a ready host and conversation, or the code and message of why not (agent-safe). */
type WhereamiSource = () => Promise<{ host: Host; conversation: string } | { code: string; message: string }>;

/** Adds `resources/list` and `resources/read` of `gatefs://whereami` to `server` (declare `resources` in its capabilities). */
export function serveWhereami(server: Server, source: WhereamiSource): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      {
        uri: WHEREAMI_URI,
        name: 'whereami',
        title: 'Where am I',
        description:
          'Your execution snapshot: active workspace, cwd, own and attached workspaces with their access modes, home, worktree root, branch, base, and policy.',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri !== WHEREAMI_URI) throw new McpError(ErrorCode.InvalidParams, `no resource ${uri}: this server offers ${WHEREAMI_URI}`);
    const ready = await source();
    if ('code' in ready) throw new McpError(ErrorCode.InternalError, `${ready.code}: ${ready.message}`, { code: ready.code });
    let text: string;
    try {
      text = JSON.stringify(await ready.host.describeProbed(ready.conversation), null, 2);
    } catch (e) {
      const code = codeOf(e) ?? 'INTERNAL';
      throw new McpError(ErrorCode.InternalError, `${code}: the execution snapshot of '${ready.conversation}' cannot be given`, { code });
    }
    return { contents: [{ uri: WHEREAMI_URI, mimeType: 'application/json', text }] };
  });
}
