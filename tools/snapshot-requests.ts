/**
 * `SnapshotRequests`: the port `checkpoint` and `rollback` call to take and restore snapshots of
 * the caller's own workspace (docs/ARCHITECTURE.md § Snapshots). Declared here, by the tools that
 * need it, so tools/ depends on nothing outside vfs/; the host implements it (src/host/snapshots/)
 * and hands it to the tools as `ToolContext.snapshots`, scoped to one conversation: a tool can
 * never name another conversation's snapshots.
 *
 * Refusals are thrown as `ToolFailure` with the public codes: `SNAPSHOT_NOT_FOUND` (with
 * `details.available`, the ids there are), `OCCUPIED`, `BUSY`, `BACKEND_UNAVAILABLE` (a `shared`
 * workspace, which is the user's checkout and never snapshotted).
 */
import { ToolFailure } from './result.js';

/** The value of `checkpoint`: the snapshot taken. */
export interface CheckpointValue {
  /** The snapshot's id in this conversation ('1', '2', …): pass it to `rollback`. */
  snapshotId: string;
  label: string | null;
  /** Files (and links) it holds. */
  files: number;
  /** Bytes of those files. */
  bytes: number;
  /** Bytes it added to the store (0 when nothing changed since the one before). */
  storedBytes: number;
}

/** The value of `rollback`: what was restored, and the snapshot that undoes it. */
export interface RollbackValue {
  /** The snapshot restored. */
  snapshotId: string;
  /** The snapshot taken first of the workspace as it was: `rollback` to it undoes this one. */
  before: string;
  /** Files, links and folders written or changed. */
  written: number;
  /** Entries removed. */
  removed: number;
}

/** One snapshot as the tools list it. */
export interface SnapshotListing {
  snapshotId: string;
  label: string | null;
  /** Who took it: `manual`, `checkpoint`, `restore`, `exec`, `fork`. */
  reason: string;
  /** Clock ms. */
  createdAt: number;
}

/** One conversation's snapshots, as the tools see them. */
export interface SnapshotRequests {
  /** Takes a snapshot of the whole workspace (reason `checkpoint`); `holder`: the caller's occupancy holder. */
  checkpoint(label: string | undefined, holder: string | undefined): Promise<CheckpointValue>;
  /** Restores `snapshotId` after taking a snapshot of the workspace as it is. */
  rollback(snapshotId: string, holder: string | undefined): Promise<RollbackValue>;
  /** The conversation's snapshots, oldest first (for `SNAPSHOT_NOT_FOUND`'s list and a tool text). */
  list(): SnapshotListing[];
}

/** The conversation's snapshot port, or `BACKEND_UNAVAILABLE` when its workspace takes none. */
export function snapshotsOf(ctx: { readonly snapshots?: SnapshotRequests; readonly conversation: string }): SnapshotRequests {
  if (ctx.snapshots) return ctx.snapshots;
  throw new ToolFailure(
    'BACKEND_UNAVAILABLE',
    `the workspace of '${ctx.conversation}' takes no snapshots here (a shared workspace is the user's own checkout)`,
  );
}
