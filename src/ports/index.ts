/**
 * The front door of src/ports: the effects the rest of gatefs takes as values (clock, ids, host
 * exec, check runs, process liveness, cross-process locks, write doors), their node
 * implementations and the scripted ones the memory host uses. `lock-file-dir.ts` and
 * `write-door-dir.ts` (better-sqlite3)
 * is entered by its own path, by the disk host only (test/architecture.test.ts `SIDE_DOORS`).
 */
export { BubblewrapSandbox } from './bubblewrap-sandbox.js';
export {
  type RunningCommand,
  type Sandbox,
  type SandboxBind,
  type SandboxPlan,
  type SandboxRun,
  SandboxUnavailableError,
} from './sandbox.js';
export { ScriptedSandbox } from './scripted-sandbox.js';
export { CHECK_OUTPUT_BYTES, type CheckRun, type CheckRunner, type CheckSpec, checkOutput } from './check-runner.js';
export { type Clock, ManualClock, systemClock } from './clock.js';
export { type ArtifactFs, type ArtifactStore, ArtifactStoreDir, type ObjectWriter } from './artifact-store.js';
export type { ContentStore } from './content-store.js';
export { ContentStoreDir } from './content-store-dir.js';
export { DiskFolderImage } from './disk-folder-image.js';
export { byPath, type FolderImage, FolderImageError, type FolderScan, type ImageEntry, segmentsOf } from './folder-image.js';
export { MemoryContentStore } from './memory-content-store.js';
export type { CrossProcessHold, CrossProcessLocks } from './cross-process-locks.js';
export { type ExecRequest, type ExecResult, type HostExec, HostExecError, forbiddenHostExec } from './host-exec.js';
export { type IdSource, randomIds, SequentialIds } from './ids.js';
export { isMissingPath } from './missing-path.js';
export { NodeHostExec } from './node-host-exec.js';
export { nodeProcessLiveness } from './node-process-liveness.js';
export { ownPid, ownUid } from './own-process.js';
export { ManualLiveness, type ProcessIdentity, type ProcessLiveness } from './process-liveness.js';
export { isPidGone, pidExists } from './process-signals.js';
export { environment } from './process-io.js';
export { type CheckCall, type ScriptedCheckResult, ScriptedCheckRunner } from './scripted-check-runner.js';
export { ScriptedHostExec } from './scripted-host-exec.js';
export type { ShutDoor, WriteDoor, WriteDoors } from './write-door.js';
