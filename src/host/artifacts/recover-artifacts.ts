/**
 * What a crashed handoff can leave in the artifact store, and its removal
 * (docs/ARCHITECTURE.md § Durable work): a temp object a dead writer was writing (never read:
 * removed), and a run folder — or its staging folder — that no handoff record names (the process
 * died between building or renaming it and the record). Such a folder is removed at host start and
 * before its visit collects again, unless a live process holds the visit's handoff lock: it may be
 * collecting into it right now. Objects a crash left without a record stay: they are whole
 * (fsynced before their name appears), and the next handoff of the same content uses them.
 *
 * Only folders the store lists by name grammar are considered, and paths are derived from the
 * state directory, the run and the `<role>-v<visit>` name, never read from a record.
 */
import type { ArtifactParts } from './artifact-types.js';
import { handoffLockOf } from './artifact-service.js';

/** What to sweep: every run folder (and dead writers' temp objects with `temps`), or `only` one visit's folder. */
export interface SweepScope {
  temps?: boolean;
  only?: { run: string; folder: string };
}

/** Removes the record-less folders in `scope` (see the file comment). Result: how many folders were removed. */
export function removeRecordlessFolders(parts: ArtifactParts, scope: SweepScope): number {
  const { store, platform, liveness } = parts;
  const artifactStore = platform.artifactStore;
  if (scope.temps) {
    const self = String(liveness.self.pid);
    artifactStore.removeTemps((tag) => /^[1-9][0-9]*$/.test(tag) && tag !== self && !liveness.isAlive({ pid: Number(tag), start: null }));
  }
  const named = new Set(store.runs.folders().map((f) => `${f.run}/${f.folder}`));
  let removed = 0;
  for (const found of artifactStore.listFolders()) {
    if (scope.only && (found.run !== scope.only.run || found.name !== scope.only.folder)) continue;
    if (!found.staging && named.has(`${found.run}/${found.name}`)) continue;
    if (scope.only) {
      // The caller holds the visit's lock already.
      if (artifactStore.removeFolder(found.run, found.name)) removed++;
      continue;
    }
    const owner = store.runs.visits(found.run).find((v) => `${v.role}-v${v.visit}` === found.name)?.conversation;
    if (owner === undefined) {
      if (artifactStore.removeFolder(found.run, found.name)) removed++;
      continue;
    }
    const key = handoffLockOf(owner);
    const token = `sweep-${liveness.self.pid}-${found.run}-${found.name}`;
    if (!store.preparationLocks.tryLock(key, { ...liveness.self, token })) continue;
    try {
      // Looked at again under the lock: a record committed meanwhile keeps the folder.
      const recorded = store.runs.folders().some((f) => f.run === found.run && f.folder === found.name);
      if ((found.staging || !recorded) && artifactStore.removeFolder(found.run, found.name)) removed++;
    } finally {
      store.preparationLocks.unlock(key, token);
    }
  }
  return removed;
}
