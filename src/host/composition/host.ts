/**
 * The public host interface (docs/ARCHITECTURE.md § Host and lifecycle): what `createHost` and
 * `createMemoryHost` return, and what the CLI and the MCP server drive, with the types its
 * operations take and give (those of the lifecycle are declared in src/host/lifecycle/).
 */
import type { ToolDescriptor } from '../../../tools/index.js';
import type { ExecutionSnapshot } from '../../../tools/index.js';
import type { WorkRequests } from '../../../tools/index.js';
import type { ToolGateApi } from '../../gate/index.js';
import type { DrainReport } from '../../lander/index.js';
import type { EventFilter, RunEvent } from '../../state/index.js';
import type { MessageRecord } from '../../state/index.js';
import type { OccupancyMode, OccupancyRecord } from '../../state/index.js';
import type { BindingRecord } from '../../state/index.js';
import type { BindingMode } from '../../state/index.js';
import type { BindingResult, DetachResult, SwitchResult } from '../agents/index.js';
import type { FileReference, ResolveReferenceOptions } from '../agents/index.js';
import type { ApplyOptions, ApplyReport } from '../apply/index.js';
import type { HandoffRequest, RunArtifact, RunStatus, SeedInventory } from '../artifacts/index.js';
import type { EndValue, HandoffValue } from '../../../tools/index.js';
import type { RunRow } from '../../state/index.js';
import type { AutoConversation, AutoConversationRequest } from '../occupancy/index.js';
import type { LandSubagentResult } from '../subagents/index.js';
import type { StartSubagentOptions } from '../subagents/index.js';
import type { RestoreResult, SnapshotInfo, SnapshotOptions } from '../snapshots/index.js';
import type { SubmissionStatus } from '../work/index.js';
import type { PrepareOptions, ReleaseOptions, ReleaseResult } from '../lifecycle/index.js';
import type { WorkspaceStatus } from '../lifecycle/index.js';
import type { AgentHome } from '../platform/index.js';

export type { PrepareOptions, ReleaseOptions, ReleaseResult } from '../lifecycle/index.js';
export type { ExecutionSnapshot, ProjectionKind, WorkspaceFacts } from '../../../tools/index.js';
export type { WorkspaceState, WorkspaceStatus } from '../lifecycle/index.js';
export type { AgentHome } from '../platform/index.js';
export type { BindingResult, DetachResult, SwitchResult } from '../agents/index.js';
export type { FileReference, ResolveReferenceOptions } from '../agents/index.js';
export type { ApplyEntry, ApplyOptions, ApplyReport, ApplyStatus } from '../apply/index.js';
export type { RestoreResult, SnapshotInfo, SnapshotOptions, SnapshotReason } from '../snapshots/index.js';

/** The lander of a host: lands pending submissions and lists the queue (src/host/work/host-lander.ts). */
export interface HostLander {
  /** Lands every pending submission (of one target branch, or all) and returns what it did. */
  run(options?: { target?: string }): Promise<DrainReport>;
  /** Every submission, oldest first. */
  status(): SubmissionStatus[];
}

/** Subagents of a host: start a child from its parent's branch, land it onto the parent, or discard it (src/host/subagents/). */
export interface HostSubagents {
  start(options: StartSubagentOptions): Promise<WorkspaceStatus>;
  land(child: string): Promise<LandSubagentResult>;
  discard(child: string): Promise<ReleaseResult>;
}

/**
 * Runs of a host: roles taking turns, each visit ending with a handoff or an end
 * (src/host/artifacts/). `handoff` and `end` do what the tools of the same name do, for an
 * operator, whatever the role declares.
 */
export interface HostRuns {
  /** Every run, oldest first. */
  list(): RunRow[];
  /** A run's row, visits, handoffs with their artifact records, and auto-patches. Throws `WorkspaceError` `UNKNOWN_RUN`. */
  status(run: string): RunStatus;
  /** Every declared file of a run's handoffs (collected with its store path, or rejected with code and reason). Throws `UNKNOWN_RUN`. */
  artifacts(run: string): RunArtifact[];
  /**
   * Ends `conversation`'s visit, collecting `files` into the artifact store and routing them to
   * role `to`. Throws `ManifestError` `UNKNOWN_ROLE` (`to`), `WorkspaceError` `VISIT_ENDED`,
   * `UNKNOWN_CONVERSATION`, `BUSY`.
   */
  handoff(conversation: string, request: HandoffRequest): Promise<HandoffValue>;
  /** Ends `conversation`'s visit and its run. Throws `WorkspaceError` `VISIT_ENDED`, `UNKNOWN_CONVERSATION`, `BUSY`. */
  end(conversation: string, request?: { message?: string }): Promise<EndValue>;
}

/**
 * What `createHost` and `createMemoryHost` return, and what the CLI and the MCP server drive:
 * every operation of a host, none of them optional.
 */
export interface Host {
  readonly gate: ToolGateApi;
  /**
   * Prepares (or reuses) a conversation's workspace, giving a new one its visit of its role in
   * `options.run` (default `default`). Throws `WorkspaceError` `VISITS_EXHAUSTED`, `RUN_ENDED`,
   * `PREPARATION_FAILED` (data.reason `BAD_RUN_NAME`, `RUN_MISMATCH`, …) and what `prepareWorkspace` throws.
   */
  prepare(options: PrepareOptions): Promise<WorkspaceStatus>;
  status(): WorkspaceStatus[];
  /**
   * The newest occupancy records of the agent model (bindings of workspaces by conversations:
   * holder, workspace, mode, acquired and released times, why it ended), ended ones included,
   * newest first; `last` of them (default 100).
   */
  bindingHistory(options?: { last?: number }): BindingRecord[];
  /** The run log, oldest first; `filter` narrows it (a conversation, events after a seq, the last N). */
  events(filter?: EventFilter): RunEvent[];
  /**
   * Releases a workspace (keeping a `released` tombstone). Throws `WorkspaceError`
   * `DIRTY_WORKTREE` (data.files: changed, untracked and ignored files) unless `discard`,
   * `OCCUPIED` (data.holder) while another live session holds it unless `force`, `BUSY`,
   * `UNKNOWN_CONVERSATION`; a refused or failed release leaves the workspace serving.
   */
  release(conversation: string, options?: ReleaseOptions): Promise<ReleaseResult>;
  /** Waits for running preparations, closes every folder handle and the store. Idempotent. */
  close(): Promise<void>;
  /**
   * Empties `agent`'s home `tmp/` (its contents, never following a link, nothing outside it
   * touched) and appends `home.tmp_cleaned`. Result: how many entries of `tmp/` went (0 for an
   * agent without a home). Throws `WorkspaceError` `PREPARATION_FAILED` (data.reason
   * `BAD_AGENT_NAME`), `STATE_UNTRUSTED` (the home or its `tmp/` is a link).
   */
  cleanHomeTmp(agent: string): Promise<number>;
  /** Every agent home of the state directory (agent and host folder: the operator's view), sorted by agent. */
  homes(): Promise<AgentHome[]>;
  /**
   * Occupies a conversation's workspace for `holder` (default `exclusive-write`: the gate then
   * refuses other holders' writes with `OCCUPIED`), recording this process (pid and start
   * time); a holder whose process is gone is ended first. `client` names whom the holder serves
   * (an MCP client's name; given again for the same holder, it replaces the name). Throws
   * `WorkspaceError` `OCCUPIED` or `UNKNOWN_CONVERSATION`.
   */
  acquire(conversation: string, holder: string, mode?: OccupancyMode, client?: string): OccupancyRecord;
  /** Ends `holder`'s occupancy of a conversation. Result: true when it held one. */
  releaseOccupancy(conversation: string, holder: string): boolean;
  /**
   * Binds `workspace` (another conversation's ready workspace, `canonical`, or the conversation's
   * own; by id or anchor) for `conversation` in `mode` (default `shared-read`), as the operator:
   * either mode, whatever the role's `attach_mode` (src/host/agents/binding-service.ts). Appends
   * `binding.attach` when anything changed. Result: the binding and its anchor. Throws
   * `WorkspaceError` `OCCUPIED` (data.holder), `UNKNOWN_CONVERSATION`, `BUSY` (being prepared),
   * `WORKSPACE_RELEASED`.
   */
  attach(conversation: string, workspace: string, mode?: BindingMode): BindingResult;
  /**
   * Ends `conversation`'s binding of `workspace` (`binding.detach`); its own becomes active again
   * when it was the active one. Result: the ended binding and the active anchor. Throws
   * `NOT_ATTACHED` (also for the own workspace: data.own), `UNKNOWN_CONVERSATION`, `BUSY`,
   * `WORKSPACE_RELEASED`.
   */
  detach(conversation: string, workspace: string): DetachResult;
  /**
   * Makes `workspace` (its own, `home`, or one it attached) `conversation`'s active workspace
   * (`binding.switch`): relative tool paths resolve there from the next call on. Result: the
   * new active workspace and anchor. Throws `NOT_ATTACHED`, `UNKNOWN_CONVERSATION`, `BUSY`, `WORKSPACE_RELEASED`.
   */
  switch(conversation: string, workspace: string): SwitchResult;
  /** The lander: `run({ target? })` lands pending submissions; `status()` lists them, oldest first. */
  readonly lander: HostLander;
  /**
   * Diff, commit and submit for a conversation's workspace as an operator (the CLI's `gatefs
   * diff|commit|submit`), whatever tools the role declares. Throws `WorkspaceError`
   * `UNKNOWN_CONVERSATION` (none, not ready, released) or `BACKEND_UNAVAILABLE` (not a git worktree).
   */
  work(conversation: string): WorkRequests;
  /**
   * Writes a `copy` workspace's changes (files added, changed, deleted; modes; folders) back to
   * the folder it was copied from, each only if the source still holds what the copy started
   * from, all or nothing (src/host/apply/apply-copy.ts); `dryRun` writes nothing. Answers the
   * report (conflicts are in it, not thrown). Throws `WorkspaceError` `UNKNOWN_CONVERSATION`,
   * `BACKEND_UNAVAILABLE` (not a copy), `BUSY`.
   */
  apply(conversation: string, options?: ApplyOptions): Promise<ApplyReport>;
  /** What the lander delivered to `conversation` (every message when omitted), oldest first. */
  messages(conversation?: string): MessageRecord[];
  readonly subagents: HostSubagents;
  /**
   * Takes a snapshot of a conversation's whole workspace (tracked, untracked and ignored files,
   * modes, empty folders, links as links; never a mount), numbered per conversation; see
   * src/host/snapshots/. Throws `WorkspaceError` `UNKNOWN_CONVERSATION`, `BUSY`.
   */
  snapshot(conversation: string, options?: SnapshotOptions): Promise<SnapshotInfo>;
  /**
   * Returns a conversation's workspace to exactly a snapshot's files, modes and folders, after
   * taking an automatic snapshot of it as it is (`before`), so no restore loses work. Throws
   * `WorkspaceError` `SNAPSHOT_NOT_FOUND` (data.available), `UNKNOWN_CONVERSATION`, `BUSY`.
   */
  restore(conversation: string, snapshotId: string): Promise<RestoreResult>;
  /** A conversation's snapshots, oldest first (kept ones of a released workspace too). */
  snapshots(conversation: string): SnapshotInfo[];
  /**
   * The seed inventory of a receiver (src/host/artifacts/inventory.ts): the files handed to its
   * role in its run that the host collected (`available`: `storePath` for a `shared` receiver,
   * `workspacePath` for an isolated one) and the declared ones it rejected (`unavailable`, with
   * code and reason). A `shared` receiver reads the same as `/artifacts/inventory.json`. Throws
   * `WorkspaceError` `UNKNOWN_CONVERSATION` for a conversation never prepared in a run.
   */
  inventory(conversation: string): SeedInventory;
  /** Runs, visits, handoffs and ends, and their artifacts. */
  readonly runs: HostRuns;
  /**
   * The tools `conversation` will offer once its workspace is ready, as `gate.tools` lists
   * them, before it is: its recorded role's, else `role`'s, else the manifest's first role's.
   * Throws `ManifestError` `UNKNOWN_ROLE`.
   */
  declaredTools(conversation: string, role?: string): ToolDescriptor[];
  /**
   * The conversation id of a client window in a working folder (`serve --conversation auto`):
   * its own earlier id, else a closed window's, else a new one, recorded at once.
   */
  autoConversation(request: AutoConversationRequest): AutoConversation;
  /**
   * The execution snapshot of `conversation` (tools/execution-snapshot.ts): agent, role, run and
   * visit; the active workspace, `cwd`, its own, what it attached, `/home`; worktree root, branch
   * and base; policy (tools; commands: exec, checks, sandbox, network, timeout). Namespace paths
   * only. Reads the store and the manifest; never spawns: `policy.commands.sandbox` is
   * `unprobed` until the sandbox's probe ran in this process (see `describeProbed`). Throws
   * `WorkspaceError` `UNKNOWN_CONVERSATION`, `WORKSPACE_RELEASED`; `ManifestError` `UNKNOWN_ROLE`.
   */
  describe(conversation: string): ExecutionSnapshot;
  /**
   * `describe`, after probing the agents' sandbox when the snapshot would say `unprobed` (once
   * per process, cached): what the `whereami` tool, the MCP resource `gatefs://whereami` and
   * `gatefs describe` answer. Throws what `describe` throws.
   */
  describeProbed(conversation: string): Promise<ExecutionSnapshot>;
  /**
   * Resolves a file reference — a namespace path (`/worktrees/<id>/…`, `/canonical/…`, `/home/…`
   * with `conversation`), a host path, a `workspace://<id>/<path>?root=<id>` URI, or a relative
   * path against `options.baseFile` (else `conversation`'s active workspace) — to its root,
   * namespace path, host path and URI, `canonical` first and the other roots holding the same
   * host path in `alsoIn` (src/host/agents/resolve-reference.ts). Reads one record; appends
   * nothing. Throws `WorkspaceError` `BAD_REFERENCE` (data.reason `BAD_FORM`, `OUTSIDE_ROOTS`,
   * `PATH_ESCAPE`, `SYMLINK_ESCAPE`, `NO_BASE`, `NO_CONVERSATION`, `UNKNOWN_ROOT`),
   * `REFERENCE_GONE` (a released root), `UNKNOWN_CONVERSATION`, `BUSY`.
   */
  resolveReference(reference: string, options?: ResolveReferenceOptions): Promise<FileReference>;
}
