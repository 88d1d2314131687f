/**
 * What the snapshots room (src/host/snapshots/) takes and gives: a snapshot's public record
 * (`SnapshotInfo`), what a restore did (`RestoreResult`) and the options of both. See
 * docs/ARCHITECTURE.md § Snapshots.
 */
import type { Backend } from '../../manifest/index.js';

/**
 * Who took a snapshot. `restore`: the automatic one a restore takes first; `fork`: a subagent
 * started from working state; `patch`: the state an auto-patch compares with its base (a handoff or end).
 */
export type SnapshotReason = 'manual' | 'checkpoint' | 'restore' | 'exec' | 'fork' | 'patch';

/** One snapshot of a conversation's workspace, as `host.snapshots` lists it. */
export interface SnapshotInfo {
  /** The snapshot's number in its conversation as a decimal string ('1', '2', …). */
  snapshotId: string;
  conversation: string;
  label: string | null;
  reason: SnapshotReason;
  /** When it was taken (clock ms). */
  createdAt: number;
  /** The backend of the workspace it was taken of. */
  backend: Backend;
  /** Files (and links) it holds. */
  files: number;
  /** Bytes of those files. */
  bytes: number;
  /** Bytes this snapshot added to the store: 0 when nothing changed since the one before. */
  storedBytes: number;
  /**
   * Entries of the workspace it could not hold, left as they are by a restore: special files
   * (FIFOs, sockets, devices) and names that are not UTF-8 (the run log's `snapshot.taken` names them).
   */
  skipped: number;
  /** A worktree snapshot's commit (`refs/gatefs/snapshots/<conversation>/<n>`); null for stored ones. */
  commit: string | null;
}

/** What `host.snapshot` takes. */
export interface SnapshotOptions {
  label?: string;
  /** Default `manual`. */
  reason?: SnapshotReason;
}

/** What `host.restore` did. */
export interface RestoreResult {
  /** The snapshot restored. */
  snapshotId: string;
  /** The snapshot taken first, of the workspace as it was: restoring it undoes this restore. */
  before: SnapshotInfo;
  /** Files, links and folders written or changed. */
  written: number;
  /** Entries removed. */
  removed: number;
}
