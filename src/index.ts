/**
 * The gatefs package root: the host factories, the public types, and the error classes a
 * caller may need to branch on (`import { createHost } from 'gatefs'`). The memory host and
 * what tests use with it are `gatefs/testing` (src/testing.ts); `createMemoryHost` is also here,
 * loading that entry (and memfs with it) only when called.
 */
import type { CreateMemoryHostOptions, MemoryHost } from './host/memory/index.js';

export { createHost, type CreateHostOptions } from './host/composition/index.js';
export { WorkspaceHost } from './host/composition/index.js';
export type { Host, PrepareOptions, ReleaseOptions, ReleaseResult, WorkspaceState, WorkspaceStatus } from './host/composition/index.js';
export type { ApplyEntry, ApplyOptions, ApplyReport, ApplyStatus } from './host/composition/index.js';
export type { RestoreResult, SnapshotInfo, SnapshotOptions, SnapshotReason } from './host/composition/index.js';
export type { ExecutionSnapshot, ProjectionKind, WorkspaceFacts } from './host/composition/index.js';
export type { CallContext, ToolGateApi } from './gate/index.js';
export type { DrainReport } from './lander/index.js';
export { LANDER_SAVE_POINTS, type SavePoint, type SavePointHook } from './lander/index.js';
export type { SubmissionStatus } from './host/work/index.js';
export type { LandSubagentResult } from './host/subagents/index.js';
export type { StartSubagentOptions } from './host/subagents/index.js';
export type { MessageKind, MessageRecord } from './state/index.js';
export type { CheckRun, CheckRunner, CheckSpec } from './ports/index.js';
export type { CommitValue, DiffValue, SubmitValue, WorkRequests } from '../tools/index.js';
export type { CheckpointValue, RollbackValue, SnapshotListing, SnapshotRequests } from '../tools/index.js';
export type { Backend, Guarantee } from './manifest/index.js';
export type { RunEvent } from './state/index.js';
export type { RunEventData, RunEventType } from './state/index.js';
export type { OccupancyMode } from './state/index.js';
export type { ToolDescriptor, ToolError, ToolResult } from '../tools/index.js';
export { TOOL_ERROR_CODES, type ToolErrorCode } from '../tools/index.js';
export { CodedError, isCodedError, codeOf, type ErrorData } from '../vfs/index.js';
export { WorkspaceError, isWorkspaceError, type WorkspaceErrorCode, type WorkspaceErrorReason } from './workspace-error.js';
export { ManifestError, isManifestError, type ManifestErrorCode } from './manifest/index.js';
export type { Manifest, Role, MountSpec, DisclosurePolicy } from './manifest/index.js';
export { StateError, type StateErrorCode } from './state/index.js';
export { VfsError, isVfsError, type VfsCode } from '../vfs/index.js';
export { GitError, isGitError, type GitErrorCode } from './git/index.js';
export { HostExecError, type ExecRequest, type ExecResult, type HostExec } from './ports/index.js';
export { NodeHostExec } from './ports/index.js';
export { ScriptedHostExec } from './ports/index.js';
export { ManualClock, systemClock, type Clock } from './ports/index.js';
export { SequentialIds, randomIds, type IdSource } from './ports/index.js';

/**
 * Builds a memory host: `createMemoryHost` of `gatefs/testing`, imported on the first call so a
 * program that only opens disk hosts never loads memfs. Throws what that one throws.
 */
export async function createMemoryHost(options: CreateMemoryHostOptions): Promise<MemoryHost> {
  const testing = await import('./testing.js');
  return testing.createMemoryHost(options);
}
