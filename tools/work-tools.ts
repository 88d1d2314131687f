/**
 * The tools that bring work home (`diff`, `commit`, `submit`) and read what became of it
 * (`messages`), in the order clients show them.
 * Like every tool they run only when the role declares them.
 */
import { commitTool } from './commit.js';
import { diffTool } from './diff.js';
import { messagesTool } from './messages.js';
import { submitTool } from './submit.js';
import type { ToolDefinition } from './tool.js';

export const WORK_TOOLS: readonly ToolDefinition[] = [diffTool, commitTool, submitTool, messagesTool];
