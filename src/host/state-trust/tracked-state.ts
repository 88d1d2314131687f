/**
 * Check 2 of the state directory's trust (state-trust.ts): in a git work tree, nothing under the
 * state directory is tracked by git — it would have come with the repository.
 */
import { untrustedState } from './untrusted-state.js';

/**
 * Check 2: `tracked` lists files under the state directory that git tracks (repository-relative,
 * as `git ls-files` prints them). Throws `STATE_UNTRUSTED` (reason `TRACKED`) when any is.
 */
export function refuseTracked(stateDir: string, shownAs: string, tracked: readonly string[]): void {
  if (tracked.length === 0) return;
  const shown = tracked.slice(0, 3).join(', ') + (tracked.length > 3 ? ', …' : '');
  throw untrustedState(
    stateDir,
    'TRACKED',
    `the state directory '${stateDir}' is tracked by git (${shown}): it came with the repository, and gatefs never acts on state it did not create`,
    `take it out of git (git rm -r --cached '${shownAs}'), move it aside (mv '${shownAs}' '${shownAs}.untrusted'), and run gatefs again: it creates a fresh state directory`,
    { tracked: tracked.slice(0, 20) },
  );
}
