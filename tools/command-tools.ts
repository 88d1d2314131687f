/**
 * The tools that run commands in the conversation's kernel sandbox (`exec`, `exec_output`,
 * `exec_kill`, `check`), in the order clients show them. Like every tool they run only when the
 * role declares them.
 */
import { checkTool } from './check.js';
import { execKillTool, execOutputTool } from './exec-output.js';
import { execTool } from './exec.js';
import type { ToolDefinition } from './tool.js';

export const COMMAND_TOOLS: readonly ToolDefinition[] = [execTool, execOutputTool, execKillTool, checkTool];
