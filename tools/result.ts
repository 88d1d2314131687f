/**
 * The tool result shape shared by every tool, the gate, the CLI and the MCP server:
 * `{ ok: true, value }` or `{ ok: false, error: { code, message, path? } }` (DESIGN.md).
 * The codes themselves are documented in `tools/codes.ts`.
 */
import type { ToolErrorCode } from './codes.js';

/** A refusal: a stable code, a message for the agent, and the path it concerns. */
export interface ToolError {
  code: ToolErrorCode;
  message: string;
  /** A namespace path (never a host path), when the error concerns one. */
  path?: string;
}

/** The result of every tool call. */
export type ToolResult<T = unknown> = { ok: true; value: T } | { ok: false; error: ToolError };

/** What a client needs to offer a tool: MCP-ready JSON Schemas and annotations. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/**
 * A tool-level refusal thrown by a handler (`NO_MATCH`, `STALE_CONTENT`, …). The gate turns it
 * into `{ ok: false, error }`; a handler may also return that result directly. `path` is a
 * namespace path as the agent writes it (never a host path).
 */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';

  constructor(readonly code: ToolErrorCode, message: string, readonly path?: string) {
    super(message);
  }
}

/** `{ ok: true, value }`. */
export function ok<T>(value: T): ToolResult<T> {
  return { ok: true, value };
}
