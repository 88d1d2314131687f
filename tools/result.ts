/**
 * The tool result shape shared by every tool, the gate, the CLI and the MCP server:
 * `{ ok: true, value }` or `{ ok: false, error: { code, message, path? } }` (docs/ARCHITECTURE.md
 * § Tools, results and error codes).
 * The codes themselves are documented in `tools/codes.ts`.
 */
import { CodedError } from '../vfs/index.js';
import type { ToolErrorCode } from './codes.js';

/** A refusal: a stable code, a message for the agent, and the path it concerns. */
export interface ToolError {
  code: ToolErrorCode;
  message: string;
  /** A namespace path (never a host path), when the error concerns one. */
  path?: string;
  /**
   * Structured facts about the refusal, as plain JSON, for an agent that reads only the
   * structure (e.g. edit's `NO_MATCH` carries the closest candidate region). Never host paths.
   */
  details?: Record<string, unknown>;
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
 * namespace path as the agent writes it (never a host path). A `CodedError` whose message is
 * shown to the agent as is; the gate also throws it for its own refusals.
 */
export class ToolFailure extends CodedError<ToolErrorCode, { readonly path?: string; readonly details?: Record<string, unknown> }> {
  override readonly name = 'ToolFailure';

  /** `details`: structured facts the agent receives beside the message (`ToolError.details`). */
  constructor(code: ToolErrorCode, message: string, path?: string, details?: Record<string, unknown>) {
    super(code, message, { ...(path === undefined ? {} : { path }), ...(details === undefined ? {} : { details }) });
  }

  /** The namespace path the refusal concerns, as the agent writes it; undefined when none. */
  get path(): string | undefined {
    return this.data.path;
  }

  /** The `ToolError` the agent receives: the code, the message, and the path when there is one. */
  toToolError(): ToolError {
    const error: ToolError = { code: this.code, message: this.message };
    if (this.path !== undefined) error.path = this.path;
    if (this.data.details !== undefined) error.details = this.data.details;
    return error;
  }
}

/** `{ ok: true, value }`. */
export function ok<T>(value: T): ToolResult<T> {
  return { ok: true, value };
}
