/**
 * Subagents (docs/ARCHITECTURE.md § Subagents and lineage): a child conversation working in its own
 * worktree made from its parent's branch head, whose work comes back by fast-forwarding the
 * parent's branch.
 *
 * - `start({ parent, child, isolate: 'worktree', role? })`: records the lineage (the child's
 *   chain is its parent's chain plus itself), then prepares the child from the parent branch's
 *   head (role: the given one, else the parent's).
 * - `land(child)`: the child's checkout must be clean; the parent's branch must be an ancestor
 *   of the child's (else `NOT_CLEAN`, reason `PARENT_MOVED`); the parent's branch is moved to the
 *   child's head by compare-and-swap, the parent's worktree files following (its own
 *   uncommitted changes kept; `DIRTY_WORKTREE` when they, or its untracked or ignored files,
 *   would be overwritten, deleted or written into: data.reason `UNCOMMITTED_CHANGES` or
 *   `UNTRACKED_FILES`); a child branch holding the state directory's name is `NOT_CLEAN`
 *   (reason `PROTECTED_PATH`); then the child is released and its branch, now contained in the
 *   parent's, deleted.
 * - `discard(child)`: removes a clean checkout and keeps its branch.
 * A child whose branch holds commits its parent lacks cannot be released (`NOT_CLEAN`): land or
 * discard it.
 */
import type { Manifest } from '../../manifest/index.js';
import type { StateStore } from '../../state/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { WorkspaceStatus } from '../lifecycle/index.js';
import type { PrepareOptions, ReleaseResult } from '../lifecycle/index.js';
import type { HostPlatform } from '../platform/index.js';
import { branchOf, branchOfRecord } from '../platform/index.js';

/** What subagents use of the host: the manifest, the store, git through the platform, and the host's own prepare and release. */
export interface SubagentParts {
  readonly manifest: Manifest;
  readonly store: StateStore;
  readonly platform: HostPlatform;
  /** The host's `prepare` (through its task queue). */
  prepare(options: PrepareOptions): Promise<WorkspaceStatus>;
  /** Releases without the unlanded-commits check (land and discard decide themselves). */
  releaseChecked(conversation: string, options: { deleteBranch?: boolean; chain: readonly string[] }): Promise<ReleaseResult>;
}

/** The parent of subagent `child`. Throws `WorkspaceError` `UNKNOWN_CONVERSATION` when none is recorded. */
export function parentOf(store: Pick<StateStore, 'lineage'>, child: string): string {
  const parent = store.lineage.of(child).parent;
  if (parent === null)
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `'${child}' is not a subagent (no parent is recorded)`, { conversation: child });
  return parent;
}

/** The ready `worktree` record of `conversation`. Throws `UNKNOWN_CONVERSATION` (none ready) or `BACKEND_UNAVAILABLE` (not a worktree). */
export function worktreeOf(store: Pick<StateStore, 'workspaces'>, conversation: string): WorkspaceRecord {
  const record = store.workspaces.get(conversation);
  if (record?.state !== 'ready')
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
  if (record.backend !== 'worktree') {
    throw new WorkspaceError('BACKEND_UNAVAILABLE', `'${conversation}' is a ${record.backend} workspace; subagents need worktrees`, {
      conversation,
    });
  }
  return record;
}

/**
 * The full ref of `conversation`'s branch: its record's (`branchOfRecord`: an explicit branch, or
 * `refs/heads/gatefs/<id>`), or `gatefs/<id>` when no worktree is recorded. Throws
 * `STATE_UNTRUSTED` (`FORGED_BRANCH`) for a recorded name prepare never takes.
 */
export function refOf(store: Pick<StateStore, 'workspaces'>, conversation: string): string {
  const record = store.workspaces.get(conversation);
  return `refs/heads/${(record ? branchOfRecord(record) : null) ?? branchOf(conversation, 'worktree')!}`;
}
