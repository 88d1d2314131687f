/**
 * The MCP shapes of the gate's own tools (the `gatefs` profile): a tool descriptor as an MCP
 * `Tool`, and a gate result as a `CallToolResult` (`structuredContent` the value or `{ error }`,
 * `content` readable text, an image as image content).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDescriptor, ToolResult } from '../../../tools/index.js';
import { TOOL_ERROR_CODES } from '../../../tools/index.js';
import { toolResultText } from '../text/index.js';

/** The `{ error }` shape a failed call carries in `structuredContent`. */
export const errorEnvelopeSchema = {
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
