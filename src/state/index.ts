/** The state module: the SQLite store of workspaces, the run log, occupancy and preparation locks. */
export { StateStore, type StateStoreOptions } from './store.js';
export { StateError, type StateErrorCode } from './state-error.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './migrations.js';
export { stableStringify } from './stable-json.js';
export type { WorkspaceRecord, WorkspaceDraft, WorkspacePatch, WorkspaceRecordState } from './workspace-table.js';
export type { EventFilter, RunEvent } from './event-log.js';
export {
  RUN_EVENT_DOCS,
  RUN_EVENT_TYPES,
  type EventDraft,
  type PreparationRollback,
  type RunEventBody,
  type RunEventData,
  type RunEventType,
} from './run-log-events.js';
export type { OccupancyMode, OccupancyRecord, OccupancyRequest, ActiveOccupancy, Acquired, IsHolderGone } from './occupancy-table.js';
export { formatOrigin, parseOrigin, sameOrigin, type StateOrigin, type FileIdentity } from './state-origin.js';
export { isProcessAlive, type IsProcessAlive, type IsIdentityAlive, type LockOwner, type PreparationLock } from './preparation-lock.js';
export type { SubmissionDraft, SubmissionPatch } from './submission-table.js';
export {
  PENDING_STATES,
  isSubmissionIn,
  submissionIn,
  type CheckSummary,
  type LanderFailure,
  type LanderFailureReason,
  type LandingOutcome,
  type SubmissionIn,
  type SubmissionRecord,
  type SubmissionState,
} from './submission-record.js';
export type { MessageRecord, MessageKind, MessageDraft } from './message-table.js';
export type { Lineage } from './lineage-table.js';
