/**
 * The readable text of a tool result for the operator's terminal: `toolResultText` over a copy
 * of the result in which every one-line field (a path, a branch, a target, an error message)
 * has its line breaks escaped too, so an agent-chosen file name cannot start a line of its own
 * (a fake "all checks passed"). The fields meant to span lines (file content, a patch, an
 * edit's snippet and diff, a grep hit's text) stay blocks; `Output.print` escapes the rest.
 */
import type { ToolResult } from '../../tools/index.js';
import { withSafeFields } from '../../tools/text/index.js';
import { toolResultText } from '../mcp/text/index.js';

/** The keys of a tool result whose strings are text of several lines. */
const BLOCK_FIELDS: ReadonlySet<string> = new Set(['content', 'patch', 'snippet', 'diff', 'text']);

/** `toolResultText(tool, result)` with one-line fields kept to one line. */
export function safeToolText(tool: string, result: ToolResult): string {
  return toolResultText(tool, withSafeFields(result, BLOCK_FIELDS));
}
