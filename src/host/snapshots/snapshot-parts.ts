/**
 * What the snapshots room takes of a host (`SnapshotParts`), where a conversation's snapshot is
 * taken from (`snapshotFolderOf`: the folder that holds everything the conversation changed), and
 * the refusals every operation shares.
 *
 * The folder is derived from the record's backend and id, never read from it
 * (src/host/platform/workspace-paths.ts): a worktree's folder (its `.git` file left out), a
 * copy's upper folder (its changes over the pinned tree, the overlay's whiteouts included: the
 * pinned tree never changes, so the upper is the whole difference), an empty workspace's
 * scratch folder. A `shared` workspace is the checkout every conversation sees: a snapshot of it
 * would hold, and a restore undo, other conversations' work, so it has none. Mounts are never in
 * a snapshot: absolute mounts are folders of their own (an `/archive` shared between
 * conversations), relative ones come from the pinned commit.
 */
import type { Clock } from '../../ports/index.js';
import type { StateStore, WorkspaceRecord } from '../../state/index.js';
import { isDotGitName, OVERLAY_META } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { refreshRegistration } from '../lifecycle/index.js';
import type { HostPlatform } from '../platform/index.js';
import { checkoutOf } from '../platform/index.js';
import type { ProcessLiveness, WriteDoors } from '../../ports/index.js';

/** What a snapshot or restore takes of the host's parts. */
export type SnapshotParts = Parameters<typeof refreshRegistration>[0] & {
  readonly platform: HostPlatform;
  readonly store: StateStore;
  readonly clock: Clock;
  readonly doors?: WriteDoors;
  /** Resolves once no tool call of `conversation` is in flight in this process. */
  drain(conversation: string): Promise<void>;
  /** True while an agent's command runs in `conversation` (a restore waits for none). */
  commandsRunning(conversation: string): boolean;
  /** Called at each save point of a snapshot or restore (the crash tests end the process there). */
  savePoint?: (point: SnapshotSavePoint) => void;
  /** Who this process is (the cross-process snapshot lock names it). */
  readonly liveness: Pick<ProcessLiveness, 'self'>;
  /** Waits between tries of a lock another process holds. */
  wait(ms: number): Promise<void>;
};

/** The save points, in the order a restore passes them (a snapshot passes the first only). */
export const SNAPSHOT_SAVE_POINTS = [
  'snapshot.objects',
  'restore.journaled',
  'restore.removed',
  'restore.writing',
  'restore.written',
] as const;
export type SnapshotSavePoint = (typeof SNAPSHOT_SAVE_POINTS)[number];

/** Which object store a snapshot's files go to: git objects for a worktree, the content store for the others. */
export type SnapshotKind = 'git' | 'store';

/** A ready workspace that can have snapshots, with its folder and kind. */
export interface SnapshotTarget {
  readonly record: WorkspaceRecord;
  readonly folder: string;
  readonly kind: SnapshotKind;
}

/**
 * The ready workspace of `conversation` and its snapshot folder. Throws `WorkspaceError`
 * `UNKNOWN_CONVERSATION` (none, not ready, released) or `BACKEND_UNAVAILABLE` (a `shared` workspace).
 */
export function snapshotTargetOf(parts: Pick<SnapshotParts, 'store' | 'platform'>, conversation: string): SnapshotTarget {
  const record = parts.store.workspaces.get(conversation);
  if (record?.state !== 'ready') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
  }
  if (record.backend === 'shared') {
    throw new WorkspaceError(
      'BACKEND_UNAVAILABLE',
      `the workspace of '${conversation}' is the shared checkout, which every conversation sees: a snapshot of it would hold other conversations' work, and a restore would undo it`,
      { conversation, backend: record.backend, hint: 'snapshots are taken of worktree, copy and empty workspaces' },
    );
  }
  return {
    record,
    folder: checkoutOf(parts.platform, conversation, record.backend),
    kind: record.backend === 'worktree' ? 'git' : 'store',
  };
}

/**
 * What is left out of a snapshot of a `backend` workspace (and so never changed by a restore): a
 * `.git` at any depth (a worktree's link to its repository, a nested repository's), and in a
 * copy's upper folder the overlay's records other than its whiteout list (`apply`'s base and
 * journal: what the source folder held, which a restore of the workspace must not rewind).
 */
export function skipperOf(backend: string): (path: string) => boolean {
  return (path) => {
    const slash = path.lastIndexOf('/');
    if (isDotGitName(path.slice(slash + 1))) return true;
    return backend === 'copy' && path.startsWith(`${OVERLAY_META}/`) && path !== `${OVERLAY_META}/${WHITEOUT_LIST}`;
  };
}

/** The overlay's whiteout list, in its records folder (vfs/whiteout-set.ts). */
const WHITEOUT_LIST = 'whiteouts.json';

/** `WorkspaceError` `SNAPSHOT_NOT_FOUND` for `snapshotId` of `conversation`, naming the ones there are. */
export function snapshotNotFound(conversation: string, snapshotId: string, available: readonly string[]): WorkspaceError {
  const list = available.length === 0 ? 'it has none' : `it has ${available.join(', ')}`;
  return new WorkspaceError('SNAPSHOT_NOT_FOUND', `'${conversation}' has no snapshot '${String(snapshotId).slice(0, 40)}' (${list})`, {
    conversation,
    snapshotId: String(snapshotId).slice(0, 40),
    available: [...available],
  });
}

/** The ref of a worktree snapshot. */
export function snapshotRef(conversation: string, n: number): string {
  return `refs/gatefs/snapshots/${conversation}/${n}`;
}
