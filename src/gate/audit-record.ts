/**
 * The audit record the gate appends for every tool call: which tool, which conversation, the
 * outcome code and the duration. Never arguments, paths or contents: the run log may be shown
 * to people who must not see file bytes.
 */
import type { ToolErrorCode } from '../../tools/index.js';

/** Where the gate appends records (the state store's run log, or an array in tests). */
export interface RunLogSink {
  append(event: ToolCallRecord): void;
}

/** The run-log record of one tool call (its data is the catalogue's `tool_call`, src/state/run-log-events.ts). */
export interface ToolCallRecord {
  type: 'tool_call';
  /** The conversation id, or null when the caller passed something that is not a valid id. */
  conversation: string | null;
  data: { tool: string; outcome: 'ok' | ToolErrorCode; durationMs: number };
}

/** Tool name recorded for a call naming no known tool (the raw name is the caller's text). */
export const UNKNOWN_TOOL = '(unknown)';

/** Builds the record of one call. */
export function toolCallRecord(
  conversation: string | null,
  tool: string,
  outcome: 'ok' | ToolErrorCode,
  durationMs: number,
): ToolCallRecord {
  return { type: 'tool_call', conversation, data: { tool, outcome, durationMs } };
}
