/**
 * The tools that take and restore snapshots of the caller's own workspace (`checkpoint`,
 * `rollback`), in the order clients show them. Like every tool they run only when the role
 * declares them; no default role does.
 */
import { checkpointTool } from './checkpoint.js';
import { rollbackTool } from './rollback.js';
import type { ToolDefinition } from './tool.js';

export const SNAPSHOT_TOOLS: readonly ToolDefinition[] = [checkpointTool, rollbackTool];
