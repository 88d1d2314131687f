/**
 * The gatefs package root: the host factories, the public types, and the error classes a
 * caller may need to branch on (`import { createHost } from 'gatefs'`). The memory host and
 * what tests use with it are `gatefs/testing` (src/testing.ts); `createMemoryHost` is also here,
 * loading that entry (and memfs with it) only when called.
 */
import type { CreateMemoryHostOptions, MemoryHost } from './host/memory/create-memory-host.js';

export { createHost, type CreateHostOptions } from './host/composition/create-host.js';
export { WorkspaceHost } from './host/composition/workspace-host.js';
export type { Host, PrepareOptions, ReleaseOptions, ReleaseResult, WorkspaceState, WorkspaceStatus } from './host/composition/host.js';
export type { CallContext, ToolGateApi } from './gate/tool-gate-api.js';
export type { DrainReport } from './lander/lander.js';
export { LANDER_SAVE_POINTS, type SavePoint, type SavePointHook } from './lander/save-points.js';
export type { SubmissionStatus } from './host/work/host-lander.js';
export type { LandSubagentResult } from './host/subagents/land-subagent.js';
export type { StartSubagentOptions } from './host/subagents/start-subagent.js';
export type { MessageKind, MessageRecord } from './state/message-table.js';
export type { CheckRun, CheckRunner, CheckSpec } from './ports/check-runner.js';
export type { CommitValue, DiffValue, SubmitValue, WorkRequests } from '../tools/work-requests.js';
export type { Backend, Guarantee } from './manifest/types.js';
export type { RunEvent } from './state/event-log.js';
export type { RunEventData, RunEventType } from './state/run-log-events.js';
export type { OccupancyMode } from './state/occupancy-table.js';
export type { ToolDescriptor, ToolError, ToolResult } from '../tools/result.js';
export { TOOL_ERROR_CODES, type ToolErrorCode } from '../tools/codes.js';
export { CodedError, isCodedError, codeOf, type ErrorData } from '../vfs/coded-error.js';
export { WorkspaceError, isWorkspaceError, type WorkspaceErrorCode, type WorkspaceErrorReason } from './workspace-error.js';
export { ManifestError, isManifestError, type ManifestErrorCode } from './manifest/manifest-error.js';
export type { Manifest, Role, MountSpec, DisclosurePolicy } from './manifest/types.js';
export { StateError, type StateErrorCode } from './state/state-error.js';
export { VfsError, isVfsError, type VfsCode } from '../vfs/errors.js';
export { GitError, isGitError, type GitErrorCode } from './git/git-port.js';
export { HostExecError, type ExecRequest, type ExecResult, type HostExec } from './ports/host-exec.js';
export { NodeHostExec } from './ports/node-host-exec.js';
export { ScriptedHostExec } from './ports/scripted-host-exec.js';
export { ManualClock, systemClock, type Clock } from './ports/clock.js';
export { SequentialIds, randomIds, type IdSource } from './ports/ids.js';

/**
 * Builds a memory host: `createMemoryHost` of `gatefs/testing`, imported on the first call so a
 * program that only opens disk hosts never loads memfs. Throws what that one throws.
 */
export async function createMemoryHost(options: CreateMemoryHostOptions): Promise<MemoryHost> {
  const testing = await import('./testing.js');
  return testing.createMemoryHost(options);
}
