/**
 * `readRun`: what `gatefs run status` and `gatefs artifacts` show of a run, read through a quiet
 * host (`host.runs.status`, `host.runs.artifacts`), each auto-patch with the host path of its
 * object (`<stateDir>/artifacts/objects/<sha256>`: the operator's to apply). The run name is checked first (the
 * conversation-id grammar): a malformed one is a usage error naming it; one gatefs never saw is
 * the host's `WorkspaceError` `UNKNOWN_RUN`.
 */
import { join, resolve } from 'node:path';
import type { RunArtifact, RunStatus } from '../host/artifacts/index.js';
import type { GlobalFlags } from './global-flags.js';
import { withReadingHost } from './open-host.js';
import type { ListedPatch } from './run-text.js';
import { UsageError } from './usage-error.js';

/** A run's status (its patches with their store paths when the host gives them) and its artifacts. */
export interface RunRead {
  status: RunStatus & { patches: ListedPatch[] };
  artifacts: RunArtifact[];
}

const RUN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Reads run `name` for `command` (see the file comment). */
export async function readRun(globals: GlobalFlags, name: string, command: string): Promise<RunRead> {
  if (typeof name !== 'string' || !RUN_NAME.test(name)) {
    throw new UsageError(`"${String(name).slice(0, 80)}" is not a run name (lowercase letters, digits, '-' and '_', at most 63)`, command);
  }
  const read = await withReadingHost(globals, async (host) => ({ status: host.runs.status(name), artifacts: host.runs.artifacts(name) }));
  // A patch's object is `<stateDir>/artifacts/objects/<sha256>` (src/ports/artifact-store.ts).
  const objects = join(resolve(globals.stateDir ?? join(globals.repo, '.gatefs')), 'artifacts', 'objects');
  const patches = read.status.patches.map((p: ListedPatch) => ({ ...p, storePath: p.storePath ?? join(objects, p.sha256) }));
  return { status: { ...read.status, patches }, artifacts: read.artifacts };
}
