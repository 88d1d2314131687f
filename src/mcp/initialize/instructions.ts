/**
 * The `instructions` and capabilities every gatefs MCP server gives its client in the initialize result (one
 * text for the SDK's server and the early answer of `early-initialize.ts`, which must agree).
 * Loads nothing.
 */

import type { ProfileName } from './profile-name.js';
import { problemInstructions, type WorkspaceProblem } from './workspace-problem.js';

/**
 * The instructions for `conversation`, or for a session whose conversation is chosen later
 * (`--conversation auto`), under the tool profile `profile` (default `gatefs`). A `problem` known
 * before the answer (the workspace cannot be prepared) ends them, so the agent reads the cause
 * before its first call.
 */
export function workspaceInstructions(conversation?: string, profile: ProfileName = 'gatefs', problem?: WorkspaceProblem | null): string {
  const text = profileInstructions(conversation, profile);
  return problem ? `${text}\n\n${problemInstructions(problem)}` : text;
}

function profileInstructions(conversation: string | undefined, profile: ProfileName): string {
  const where = conversation === undefined ? 'this client window' : `conversation "${conversation}"`;
  const root = conversation === undefined ? '/worktrees/<conversation>' : `/worktrees/${conversation}`;
  const base =
    `gatefs workspace for ${where}. Relative paths resolve in your workspace root ` +
    `${root}; declared mounts appear at their own paths. Errors carry a stable code. When this server lists exec, ` +
    `run commands with it (a sandbox that sees this workspace), not a shell of the client.`;
  if (profile !== 'claude-code') return base;
  return (
    `${base} Use this server's Read, Write, Edit, MultiEdit, Glob, Grep and LS for every file: they take the same ` +
    `arguments as Claude Code's built-in tools, and file_path may be absolute under ${root}/ (or a mount path) or ` +
    `relative to ${root}. Paths of the machine the client runs on are not this workspace and are refused (OUTSIDE_MOUNTS). ` +
    `When this server lists Bash, run every command with it, not a shell of the client: it runs in a sandbox that sees this workspace.`
  );
}

/** The capabilities a gatefs MCP server declares: tools (a fixed list per conversation) and resources (`gatefs://whereami`). */
export const SERVER_CAPABILITIES = { tools: {}, resources: {} } as const;
