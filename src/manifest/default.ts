/**
 * The manifest used when there is none (docs/ARCHITECTURE.md § Manifest and settings): one role
 * `agent`, backend `worktree`, tools read, grep, list, edit, write, delete, move, diff, commit, submit,
 * messages, whereami (DESIGN § "The agent's and operator's loop": an agent can bring its work home and read
 * its landing's outcome without a manifest, and ask where it works), no mounts, no disclosure policy.
 */
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES } from './role-from-file.js';
import type { Manifest } from './types.js';
import { DEFAULT_EXEC } from './exec-settings.js';

/** The tools of the default role, in the order clients list them. */
const DEFAULT_TOOLS = [
  'read',
  'grep',
  'list',
  'edit',
  'write',
  'delete',
  'move',
  'diff',
  'commit',
  'submit',
  'messages',
  'whereami',
] as const;

/** Returns a fresh default manifest (callers may modify their copy). */
export function defaultManifest(): Manifest {
  return {
    roles: [
      {
        name: 'agent',
        maxVisits: null,
        tools: [...DEFAULT_TOOLS],
        workspace: { backend: 'worktree', mounts: [], progressiveDisclosure: null },
        artifacts: { autoPatch: true, maxFileBytes: DEFAULT_MAX_FILE_BYTES, maxFiles: DEFAULT_MAX_FILES },
        subagents: { isolate: 'worktree' },
        exec: { ...DEFAULT_EXEC, env: [...DEFAULT_EXEC.env] },
        share: [],
        attachMode: 'shared-read',
      },
    ],
    checks: [],
  };
}
