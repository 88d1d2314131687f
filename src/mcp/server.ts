/**
 * The MCP server for one conversation: the SDK's low-level `Server` with `tools/list` and
 * `tools/call` handlers over a `Host`'s tool gate. The TypeBox JSON Schemas from the tool
 * descriptors go to clients as they are (no zod conversion).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../host/types.js';
import type { ToolDescriptor, ToolResult } from '../../tools/result.js';
import { TOOL_ERROR_CODES } from '../../tools/codes.js';
import { toolResultText } from './tool-text.js';
import { gatefsVersion } from './version.js';
import { SERVER_CAPABILITIES, workspaceInstructions } from './instructions.js';

/** Options of `createMcpServer`. */
export interface McpServerOptions {
  /** The conversation every call of this server is made for (it must already be prepared). */
  conversation: string;
  /** The occupancy holder passed to the gate with every call (e.g. the MCP session id). */
  holder?: string;
}

/** The `{ error }` shape a failed call carries in `structuredContent`. */
const errorEnvelopeSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: [...TOOL_ERROR_CODES] },
        message: { type: 'string' },
        path: { type: 'string' },
        details: { type: 'object' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
} as const;

/**
 * Describes a gate tool for `tools/list`. The output schema accepts the tool's value or the
 * `{ error }` envelope, because the SDK client validates `structuredContent` even on errors.
 */
export function toMcpTool(d: ToolDescriptor): Tool {
  return {
    name: d.name,
    title: d.annotations.title,
    description: d.description,
    inputSchema: d.inputSchema as Tool['inputSchema'],
    outputSchema: { type: 'object', anyOf: [d.outputSchema, errorEnvelopeSchema] } as Tool['outputSchema'],
    annotations: d.annotations,
  };
}

/**
 * Turns a gate result into an MCP `CallToolResult`: `structuredContent` is the value (or
 * `{ error }` with `isError: true`), `content` is readable text that also names the code. An
 * image (read's value with `kind: 'image'`) adds MCP image content (base64 `data` and its
 * `mimeType`) after the text, and `structuredContent` keeps every field but `data`, so the
 * image is sent once.
 */
export function toCallToolResult(tool: string, result: ToolResult): CallToolResult {
  const text = toolResultText(tool, result);
  if (!result.ok) {
    return { content: [{ type: 'text', text }], structuredContent: { error: { ...result.error } }, isError: true };
  }
  const value = result.value;
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  if (isImageValue(structured)) {
    const { data, ...rest } = structured;
    return {
      content: [
        { type: 'text', text },
        { type: 'image', data, mimeType: rest.mimeType },
      ],
      structuredContent: rest,
    };
  }
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function isImageValue(v: Record<string, unknown>): v is Record<string, unknown> & { data: string; mimeType: string } {
  return v.kind === 'image' && typeof v.data === 'string' && typeof v.mimeType === 'string';
}

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

/**
 * Creates an MCP server bound to one conversation of `host`. Connect it to a transport with
 * `server.connect(transport)`. Every tool call goes through `host.gate.call`, so a tool the role
 * lacks answers `TOOL_NOT_ALLOWED` and bad arguments answer `INVALID_INPUT`, as results with
 * `isError: true`, never as protocol errors. The server itself never throws on a bad call.
 */
export function createMcpServer(host: Host, options: McpServerOptions): Server {
  const { conversation, holder } = options;
  const server = new Server(
    { name: 'gatefs', version: gatefsVersion() },
    {
      capabilities: { ...SERVER_CAPABILITIES },
      instructions: workspaceInstructions(conversation),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: host.gate.tools(conversation).map(toMcpTool),
  }));
  const pending = new Set<Promise<unknown>>();
  pendingCalls.set(server, pending);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    let result: ToolResult;
    const call = host.gate.call(conversation, name, args ?? {}, holder ? { holder } : undefined);
    pending.add(call);
    try {
      result = await call;
    } catch {
      // The gate promises never to throw; its message could carry a host path, so it stays out.
      result = { ok: false, error: { code: 'INTERNAL', message: 'the gate failed unexpectedly' } };
    } finally {
      pending.delete(call);
    }
    return toCallToolResult(name, result);
  });
  return server;
}
