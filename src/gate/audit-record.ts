/**
 * The audit record the gate appends for every tool call: which tool (and, when the client called
 * it under another name, that name), which conversation, the outcome code, the duration, and the
 * namespace paths the call named. Never arguments other than paths, never contents: the run log
 * may be shown to people who must not see file bytes. A path is a name the operator may see
 * (the run log is the operator's); a path of a call refused before resolving it is kept as the
 * call wrote it, cut at `MAX_RECORDED_PATH` characters.
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
  data: {
    /** The gate tool (`read`, `list`, …), or `(unknown)`. */
    tool: string;
    outcome: 'ok' | ToolErrorCode;
    durationMs: number;
    /**
     * The namespace paths the call named, relative to the workspace root (`.` for the root;
     * a mount outside it by its namespace path): for read, edit, write, delete the file, for
     * move both, for grep and list the folder searched. As the gate resolved them (links
     * followed) when it got that far. Absent for a tool naming no path, or a call refused
     * before its arguments were valid.
     */
    paths?: string[];
    /** The tool name the client called when it is not the gate tool's (the claude-code profile's `Glob`, `LS`, …). */
    clientTool?: string;
  };
}

/** Tool name recorded for a call naming no known tool (the raw name is the caller's text). */
export const UNKNOWN_TOOL = '(unknown)';

/** The longest path or client tool name recorded, in characters (a longer one is cut, ending `…`). */
export const MAX_RECORDED_PATH = 300;

/** What a record says beyond the tool, outcome and duration. */
export interface ToolCallDetail {
  paths?: readonly string[];
  clientTool?: string;
}

/** Builds the record of one call. */
export function toolCallRecord(
  conversation: string | null,
  tool: string,
  outcome: 'ok' | ToolErrorCode,
  durationMs: number,
  detail: ToolCallDetail = {},
): ToolCallRecord {
  const data: ToolCallRecord['data'] = { tool, outcome, durationMs };
  if (detail.paths && detail.paths.length > 0) data.paths = detail.paths.map(cut);
  if (detail.clientTool !== undefined && detail.clientTool !== tool) data.clientTool = cut(detail.clientTool);
  return { type: 'tool_call', conversation, data };
}

function cut(text: string): string {
  const s = String(text);
  return s.length > MAX_RECORDED_PATH ? `${s.slice(0, MAX_RECORDED_PATH - 1)}…` : s;
}
