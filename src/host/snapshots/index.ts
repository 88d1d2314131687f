/** The front door of src/host/snapshots: per-conversation snapshots and restore (docs/ARCHITECTURE.md § Snapshots). */
export type { SnapshotSavePoint } from './snapshot-parts.js';
export { SnapshotService } from './snapshot-service.js';
export type { RestoreResult, SnapshotInfo, SnapshotOptions, SnapshotReason } from './snapshot-types.js';
export { gitBlobId } from './snapshot-entries.js';
