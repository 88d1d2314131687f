/**
 * The tool result shape shared by every tool, the gate, the CLI and the MCP server:
 * `{ ok: true, value }` or `{ ok: false, error: { code, message, path? } }` (DESIGN.md).
 * The codes themselves are documented in `tools/codes.ts`.
 */
import type { ToolErrorCode } from './codes.js';

export interface ToolError {
  code: ToolErrorCode;
  message: string;
  /** A namespace path (never a host path), when the error concerns one. */
  path?: string;
}

export type ToolResult<T = unknown> = { ok: true; value: T } | { ok: false; error: ToolError };

/** What a client needs to offer a tool: MCP-ready JSON Schemas and annotations. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}
