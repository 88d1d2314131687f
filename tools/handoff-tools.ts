/**
 * The tools that end a visit of a role in a run (`handoff`, `end`), in the order clients show
 * them. Like every tool they run only when the role declares them; no default role does.
 */
import { endTool } from './end.js';
import { handoffTool } from './handoff.js';
import type { ToolDefinition } from './tool.js';

export const HANDOFF_TOOLS: readonly ToolDefinition[] = [handoffTool, endTool];
