/**
 * The tools that change a conversation's bindings (`attach`, `detach`, `switch`), in the order
 * clients show them. Like every tool they run only when the role declares them; no default role does.
 */
import { attachTool } from './attach.js';
import { detachTool } from './detach.js';
import { switchTool } from './switch.js';
import type { ToolDefinition } from './tool.js';

export const BINDING_TOOLS: readonly ToolDefinition[] = [attachTool, detachTool, switchTool];
