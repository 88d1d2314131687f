/** The state module: the SQLite store of workspaces, the run log, occupancy and preparation locks. */
export type { EventFilter, RunEvent } from './event-log.js';
export { summarizeEvent } from './event-summary.js';
export { isFailureEvent } from './run-log-failures.js';
export type { MessageKind, MessageRecord } from './message-table.js';
export type { ActiveOccupancy, OccupancyMode, OccupancyRecord } from './occupancy-table.js';
export type { LockOwner } from './preparation-lock.js';
export type { EventDraft, PreparationRollback, RunEventBody, RunEventData, RunEventType } from './run-log-events.js';
export type { FileStamp, SnapshotRow } from './snapshot-table.js';
export {
  type BindingMode,
  type BindingRecord,
  CANONICAL_WORKSPACE,
  HOME_WORKSPACE,
} from './binding-table.js';
export type { ArtifactRecord, HandoffRow, PatchRow, RunRow, VisitRow } from './run-table.js';
export { stableStringify } from './stable-json.js';
export { StateError, type StateErrorCode } from './state-error.js';
export { type FileIdentity, formatOrigin, parseOrigin, sameOrigin, type StateOrigin } from './state-origin.js';
export { StateStore } from './store.js';
export {
  type BlockedMove,
  type CheckedSubmission,
  type CheckingSubmission,
  type CheckSummary,
  type LandedSubmission,
  type LanderFailure,
  type MergingSubmission,
  type PushedSubmission,
  type QueuedSubmission,
  submissionIn,
  type SubmissionIn,
  type SubmissionRecord,
  type SubmissionState,
} from './submission-record.js';
export type { SubmissionPatch } from './submission-table.js';
export type { WorkspaceRecord } from './workspace-table.js';
