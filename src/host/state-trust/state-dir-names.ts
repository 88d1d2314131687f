/**
 * `stateDirNames`: the repository-relative paths that stand for the gatefs state directory in
 * every checkout of the repository — `.gatefs` (the default state directory, wherever this
 * host's lies) and the state directory's own path when it lies inside the repository. No agent
 * tool may create or change them at a workspace root, whatever `.gitignore` or `info/exclude`
 * say, and the lander and `subagent land` refuse work whose tree holds them: a checkout updated
 * to it would have its state directory replaced or written into.
 */
import type { HostPlatform } from '../platform/index.js';

/** The default state directory's name, relative to the repository. */
const DEFAULT_STATE_DIR_NAME = '.gatefs';

/** The state directory's names (see the file comment), sorted, each once; never ''. */
export function stateDirNames(platform: Pick<HostPlatform, 'repo' | 'stateDir' | 'relativeInside'>): string[] {
  const inside = platform.relativeInside(platform.repo, platform.stateDir);
  return [...new Set([DEFAULT_STATE_DIR_NAME, ...(inside ? [inside] : [])])].sort();
}
