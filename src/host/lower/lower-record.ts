/**
 * Where a `copy` workspace's lower folder lives, and its durable record (docs/ARCHITECTURE.md
 * § Durable work). The lower folder is the pinned commit checked out once, read-only, so the overlay
 * reads unchanged files from a folder instead of from git objects (src/host/lower/lower-folders.ts).
 *
 * Paths are derived from the state directory and the conversation id only, never read from a
 * record: `<stateDir>/lowers/<id>/` holds `tree/` (the finished, verified checkout: it exists
 * only once it is complete, made by one rename), `building/` (a checkout under way) and `index`
 * (its private git index). The record, `data.lower` of the workspace record, says what the
 * host last did: `building` (written before anything is created), `ready` (written after the
 * rename), or `unavailable` (this commit cannot be checked out byte for byte here: served from
 * git objects, not tried again for this pin).
 */
import type { WorkspaceRecord } from '../../state/index.js';
import { isConversationId } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { PathBase } from '../platform/index.js';

/** The state-directory folder that holds the lower folders. */
export const LOWERS_AREA = 'lowers';

/** The host paths of one conversation's lower folder (see the file comment). */
export interface LowerPaths {
  /** `<stateDir>/lowers` */
  area: string;
  /** `<stateDir>/lowers/<id>`: everything below is removed together. */
  root: string;
  /** `<root>/tree`: the finished checkout the view serves. */
  tree: string;
  /** `<root>/building`: a checkout under way. */
  building: string;
  /** `<root>/index`: the checkout's private git index. */
  index: string;
}

/**
 * The lower-folder paths of `conversation`. Throws `WorkspaceError` `PREPARATION_FAILED`
 * (data.reason `BAD_CONVERSATION_ID`) for an id outside the grammar, so no record can name a path.
 */
export function lowerPathsOf(base: PathBase, conversation: string): LowerPaths {
  if (!isConversationId(conversation)) {
    throw new WorkspaceError('PREPARATION_FAILED', `'${String(conversation).slice(0, 80)}' is not a valid conversation id`, {
      conversation: String(conversation).slice(0, 80),
      reason: 'BAD_CONVERSATION_ID',
    });
  }
  const area = base.join(base.stateDir, LOWERS_AREA);
  const root = base.join(area, conversation);
  return { area, root, tree: base.join(root, 'tree'), building: base.join(root, 'building'), index: base.join(root, 'index') };
}

/** What the host last did with a lower folder. */
type LowerState = 'building' | 'ready' | 'unavailable';

/** What `data.lower` holds. */
export interface LowerRecord {
  state: LowerState;
  /** The commit the folder holds (or is being made from): the workspace's pin. */
  sha: string;
  /** The build attempt that wrote the record (a stale builder's result is never taken). */
  token: string;
  /** Why it is `unavailable`. */
  reason?: string;
}

/** The lower record in `record`, or null when there is none (or it is not one gatefs wrote). */
export function lowerOf(record: WorkspaceRecord | null): LowerRecord | null {
  const l = (record?.data as { lower?: Partial<LowerRecord> } | undefined)?.lower;
  if (!l || (l.state !== 'building' && l.state !== 'ready' && l.state !== 'unavailable')) return null;
  if (typeof l.sha !== 'string' || typeof l.token !== 'string') return null;
  return { state: l.state, sha: l.sha, token: l.token, ...(typeof l.reason === 'string' ? { reason: l.reason } : {}) };
}

/** `data` with `lower` set to `lower`, or without it when null. */
export function withLower(data: Record<string, unknown>, lower: LowerRecord | null): Record<string, unknown> {
  const { lower: _gone, ...rest } = data;
  return lower ? { ...rest, lower: { ...lower } } : rest;
}

/** True when `record` says its lower folder is finished for the record's own pin. */
export function isLowerReady(record: WorkspaceRecord): boolean {
  const lower = lowerOf(record);
  return lower?.state === 'ready' && lower.sha === record.pinnedSha;
}
