/** The state module: the SQLite store of workspaces, the run log, occupancy and preparation locks. */
export { StateStore } from './store.js';
export { StateError } from './state-error.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './migrations.js';
export { stableStringify } from './stable-json.js';
export type { RunEvent } from './event-log.js';
export type { EventDraft } from './run-log-events.js';
export { formatOrigin, parseOrigin, sameOrigin, type StateOrigin } from './state-origin.js';
export { isProcessAlive } from './preparation-lock.js';
export type { LanderFailure, SubmissionRecord } from './submission-record.js';
