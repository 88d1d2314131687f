/** The state module: the SQLite store of workspaces, the run log, occupancy and preparation locks. */
export { StateStore, type StateStoreOptions } from './store.js';
export { StateError, type StateErrorCode } from './state-error.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './migrations.js';
export { stableStringify } from './stable-json.js';
export type { WorkspaceRecord, WorkspaceDraft, WorkspacePatch, WorkspaceRecordState } from './workspace-table.js';
export type { EventDraft, EventFilter, RunEvent } from './event-log.js';
export type { OccupancyMode, OccupancyRecord, OccupancyRequest, ActiveOccupancy, Acquired, IsHolderGone } from './occupancy-table.js';
export { formatOrigin, parseOrigin, sameOrigin, type StateOrigin, type FileIdentity } from './state-origin.js';
export { isProcessAlive, type IsProcessAlive, type IsIdentityAlive, type LockOwner, type PreparationLock } from './preparation-lock.js';
export {
  PENDING_STATES,
  type SubmissionRecord,
  type SubmissionState,
  type SubmissionDraft,
  type SubmissionPatch,
} from './submission-table.js';
export type { MessageRecord, MessageKind, MessageDraft } from './message-table.js';
export type { Lineage } from './lineage-table.js';
