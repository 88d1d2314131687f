/**
 * The `instructions` and capabilities every gatefs MCP server gives its client in the initialize result (one
 * text for the SDK's server and the early answer of `early-initialize.ts`, which must agree).
 * Loads nothing.
 */

/** The instructions for `conversation`, or for a session whose conversation is chosen later (`--conversation auto`). */
export function workspaceInstructions(conversation?: string): string {
  const where = conversation === undefined ? 'this client window' : `conversation "${conversation}"`;
  const root = conversation === undefined ? '/worktrees/<conversation>' : `/worktrees/${conversation}`;
  return (
    `gatefs workspace for ${where}. Relative paths resolve in your workspace root ` +
    `${root}; declared mounts appear at their own paths. Errors carry a stable code.`
  );
}

/** The capabilities a gatefs MCP server declares: tools (a fixed list per conversation). */
export const SERVER_CAPABILITIES = { tools: {} } as const;
