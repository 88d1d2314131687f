/**
 * Commands over a `copy` workspace: a kernel overlay of the workspace's folders under a fresh
 * upper folder (sandbox.ts `SandboxOverlay`). Not built yet: such a plan is refused.
 */
import type { RunningCommand, SandboxPlan, SandboxRequest } from './sandbox.js';
import { SandboxUnavailableError } from './sandbox.js';

/** Starts a command whose plan has an overlay. */
export async function runOverlay(
  _bwrap: string,
  _request: SandboxRequest,
  _argvOf: (plan: SandboxPlan, script: string, extraFds: number) => string[],
): Promise<RunningCommand> {
  throw new SandboxUnavailableError('commands in copy workspaces are not built yet', 'use a worktree workspace');
}
