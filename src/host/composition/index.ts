/** The front door of src/host/composition: the Host interface, the disk host's factory, the WorkspaceHost it assembles. */
export { createHost, type CreateHostOptions } from './create-host.js';
export type { Host, PrepareOptions, ReleaseOptions, ReleaseResult, WorkspaceState, WorkspaceStatus } from './host.js';
export type { ApplyEntry, ApplyOptions, ApplyReport, ApplyStatus } from './host.js';
export type { RestoreResult, SnapshotInfo, SnapshotOptions, SnapshotReason } from './host.js';
export type { ExecutionSnapshot, ProjectionKind, WorkspaceFacts } from './host.js';
export type { FileReference, ResolveReferenceOptions } from './host.js';
export { WorkspaceHost } from './workspace-host.js';
export { GATE_TOOLS } from './gate-tools.js';
