/**
 * The durable record of a release in progress, kept in the workspace record's `data.release`
 * (docs/ARCHITECTURE.md § Durable work: each step is recorded before it is acted on). While it is
 * there the workspace is out of service: its release holder occupies it for exclusive write.
 *
 * - `checking`: occupancy taken, writes drained, work being looked for. Nothing removed yet:
 *   an interrupted release at this step is undone (the workspace serves again).
 * - `removing`: the check passed (or `discard` was asked): the checkout is being removed. An
 *   interrupted release at this step is finished.
 */
import type { WorkspaceRecord } from '../../state/index.js';

/** The step a release has reached. */
type ReleaseStep = 'checking' | 'removing';

/** What `data.release` holds. */
export interface PendingRelease {
  step: ReleaseStep;
  /** The occupancy holder the release took. */
  holder: string;
  /** Untracked and ignored files go too (`release --discard`). */
  discard: boolean;
}

/** The release in progress recorded in `record`, or null. */
export function pendingReleaseOf(record: WorkspaceRecord | null): PendingRelease | null {
  const r = (record?.data as { release?: Partial<PendingRelease> } | undefined)?.release;
  if (!r || (r.step !== 'checking' && r.step !== 'removing') || typeof r.holder !== 'string') return null;
  return { step: r.step, holder: r.holder, discard: r.discard === true };
}

/** `data` with `release` set to `pending`, or without it when `pending` is null. */
export function withPendingRelease(data: Record<string, unknown>, pending: PendingRelease | null): Record<string, unknown> {
  const { release: _gone, ...rest } = data;
  return pending ? { ...rest, release: { ...pending } } : rest;
}
