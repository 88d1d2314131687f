/**
 * The manifest used when there is none (docs/ARCHITECTURE.md § Manifest and settings): one role
 * `agent`, backend `worktree`, tools read, grep, list, edit, write, no mounts, no disclosure policy.
 */
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES } from './role-from-file.js';
import type { Manifest } from './types.js';
import { DEFAULT_EXEC } from './exec-settings.js';

/** Returns a fresh default manifest (callers may modify their copy). */
export function defaultManifest(): Manifest {
  return {
    roles: [
      {
        name: 'agent',
        maxVisits: null,
        tools: ['read', 'grep', 'list', 'edit', 'write'],
        workspace: { backend: 'worktree', mounts: [], progressiveDisclosure: null },
        artifacts: { autoPatch: true, maxFileBytes: DEFAULT_MAX_FILE_BYTES, maxFiles: DEFAULT_MAX_FILES },
        subagents: { isolate: 'worktree' },
        exec: { ...DEFAULT_EXEC, env: [...DEFAULT_EXEC.env] },
        share: [],
      },
    ],
    checks: [],
  };
}
