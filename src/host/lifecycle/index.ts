/** The front door of src/host/lifecycle: prepare, release, recover, status, and the registration of views. */
export { type PreparationParts, prepareWorkspace } from './prepare-workspace.js';
export { agentOfRecord } from './agent-identity.js';
export { recoverInterruptedRelease, recoverWorkspaces, type RecoveryParts } from './recover-workspaces.js';
export type { OpenViews } from './registration.js';
export { followView } from './registration.js';
export { refreshRegistration } from './registry-refresh.js';
export { pendingReleaseOf } from './release-record.js';
export { type ReleaseParts, releaseWorkspace } from './release-workspace.js';
export { refuseVisit } from './run-visit.js';
export { SyncedRegistry } from './synced-registry.js';
export { type StatusParts, statusRowOf, type WorkspaceState, type WorkspaceStatus } from './workspace-status.js';
export type { PrepareOptions, ReleaseOptions, ReleaseResult } from './workspace-types.js';
