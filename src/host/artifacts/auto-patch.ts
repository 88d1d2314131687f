/**
 * `makeAutoPatch`: the auto-patch of a worktree visit (docs/ARCHITECTURE.md § Runs, handoffs and
 * artifacts): what the conversation changed against its pinned base, kept as one object of the
 * artifact store and recorded in `patches`. Never routed to another role, never applied anywhere.
 *
 * 1. A snapshot of the workspace (reason `patch`): a commit of the whole working tree written by
 *    fast-import from the bytes gatefs read, so no filter of the repository runs and nothing the
 *    agent left half-written between two git commands is compared.
 * 2. `SnapshotGit.snapshotPatch`: the binary `git diff --full-index` from the pinned base to that
 *    commit, tracked changes and untracked files that are not ignored (`node_modules/` stays out),
 *    no filter, textconv or external diff run.
 * 3. The bytes stored (`objects/<sha256>`, durable) before the `patches` row names them, then the
 *    run log's `patch.kept`.
 *
 * A workspace that changed nothing gets a patch too: 0 bytes, 0 files, so `gatefs run status`
 * says the visit changed nothing instead of saying nothing.
 */
import type { GitContext } from '../../git/index.js';
import type { PatchRow, StateStore } from '../../state/index.js';
import type { HostPlatform } from '../platform/index.js';
import { checkoutOf } from '../platform/index.js';
import type { SnapshotService } from '../snapshots/index.js';

/** What an auto-patch takes of the host. */
export interface AutoPatchParts {
  readonly store: StateStore;
  readonly platform: HostPlatform;
  readonly snapshots: Pick<SnapshotService, 'snapshot'>;
}

/** What made an auto-patch. */
export type AutoPatchReason = 'handoff' | 'end';

/**
 * Makes, stores and records the auto-patch of `conversation`'s workspace (see the file comment).
 * Result: the `patches` row, or null when the conversation has no ready worktree with a pinned
 * base or no visit of a run (whether its role keeps auto-patches, `artifacts.auto_patch`, is the
 * caller's to ask). Throws what the snapshot throws (`BUSY` when files keep changing under it)
 * and `GitError` when git fails; nothing is recorded then.
 */
export async function makeAutoPatch(parts: AutoPatchParts, conversation: string, reason: AutoPatchReason): Promise<PatchRow | null> {
  const { store, platform } = parts;
  const record = store.workspaces.get(conversation);
  const visit = store.runs.visitOf(conversation);
  if (record?.state !== 'ready' || record.backend !== 'worktree' || !record.pinnedSha || !visit) return null;
  const taken = await parts.snapshots.snapshot(conversation, { reason: 'patch', label: `auto-patch (${reason})` });
  if (taken.commit === null) return null;
  const context: GitContext = { tag: 'patch', chain: store.lineage.of(conversation).chain };
  const worktree = checkoutOf(platform, conversation, 'worktree');
  const patch = await platform.snapshotGit.snapshotPatch(
    platform.repo,
    { worktree, base: record.pinnedSha, commit: taken.commit },
    context,
  );
  const stored = await platform.artifactStore.put(patch.bytes);
  await platform.artifactStore.flush();
  const row = store.runs.recordPatch({
    conversation,
    run: visit.run,
    role: visit.role,
    visit: visit.visit,
    reason,
    baseSha: record.pinnedSha,
    sha256: stored.sha256,
    bytes: stored.bytes,
    files: patch.files.length,
  });
  store.runLog.append({
    type: 'patch.kept',
    conversation,
    data: { n: row.n, sha256: row.sha256, bytes: row.bytes, files: row.files, reason },
  });
  return row;
}
