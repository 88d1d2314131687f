/**
 * `hasNoState`: whether a read-only command (`status`, `lander status`, …) can answer "nothing
 * yet" without opening the host — opening it would create the state directory. True when the
 * repository folder exists and nothing at all is at its state directory's path (not even a link).
 */
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GlobalFlags } from './global-flags.js';
import { checkRepoFolder } from './repo-folder-check.js';

/**
 * True when there is no state directory yet (see the file comment). Throws what
 * `checkRepoFolder` and the manifest loader throw, as opening the host would: a broken
 * `gatefs.yaml` is still reported.
 */
export async function hasNoState(globals: GlobalFlags): Promise<boolean> {
  checkRepoFolder({ repo: globals.repo, given: globals.repoGiven });
  if (!statSync(globals.repo, { throwIfNoEntry: false })?.isDirectory()) return false;
  if (lstatSync(globals.stateDir ?? join(globals.repo, '.gatefs'), { throwIfNoEntry: false })) return false;
  const { loadManifest } = await import('../manifest/index.js');
  loadManifest(globals.manifest);
  return true;
}
