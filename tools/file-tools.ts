/**
 * The agent file tools of this package, in the order clients show them. The gate runs these by
 * default; `request_files` joins as one more `ToolDefinition` passed to the gate.
 */
import { deleteTool } from './delete.js';
import { editTool } from './edit.js';
import { moveTool } from './move.js';
import { grepTool } from './grep.js';
import { listTool } from './list.js';
import { readTool } from './read.js';
import type { ToolDefinition } from './tool.js';
import { writeTool } from './write.js';

export const FILE_TOOLS: readonly ToolDefinition[] = [readTool, grepTool, listTool, editTool, writeTool, deleteTool, moveTool];
