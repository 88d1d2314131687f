/**
 * A subagent that does not land: `discardSubagent` removes its clean checkout and keeps its
 * branch; `refuseUnlanded` is the check every other release of a subagent passes (its branch
 * holds no commit its parent's lacks).
 */
import type { GitContext } from '../../git/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { ReleaseResult } from '../lifecycle/index.js';
import { parentOf, refOf, type SubagentParts } from './subagent-parts.js';

/** Removes a subagent's clean checkout, keeping its branch. Throws what `release` throws (`DIRTY_WORKTREE`, …). */
export async function discardSubagent(parts: SubagentParts, child: string): Promise<ReleaseResult> {
  const parent = parentOf(parts.store, child);
  const release = await parts.releaseChecked(child, { chain: parts.store.lineage.of(child).chain });
  parts.store.runLog.append({ type: 'subagent.discarded', conversation: child, data: { parent } });
  return release;
}

/**
 * `NOT_CLEAN` when `conversation` is a subagent whose branch holds commits its parent's branch
 * lacks (release would leave them unlanded); nothing otherwise.
 */
export async function refuseUnlanded(
  parts: Pick<SubagentParts, 'store' | 'platform'>,
  conversation: string,
  chain: readonly string[],
): Promise<void> {
  const lineage = parts.store.lineage.of(conversation);
  const record = parts.store.workspaces.get(conversation);
  if (lineage.parent === null || record?.backend !== 'worktree' || record.state !== 'ready') return;
  const context: GitContext = { tag: 'release', chain };
  const head = await parts.platform.landing.readRef(refOf(parts.store, conversation), context);
  const parentHead = await parts.platform.landing.readRef(refOf(parts.store, lineage.parent), context);
  if (head === null || parentHead === null || (await parts.platform.landing.isAncestor(head, parentHead, context))) return;
  const commits = await parts.platform.landing.countAhead(parentHead, head, context);
  throw new WorkspaceError(
    'NOT_CLEAN',
    `'${conversation}' holds ${commits} commit(s) its parent '${lineage.parent}' has not landed: land it or discard it`,
    {
      conversation,
      parent: lineage.parent,
      commits,
      reason: 'UNLANDED_COMMITS',
    },
  );
}
