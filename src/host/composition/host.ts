/**
 * The public host interface (DESIGN.md "Host, ports and state"): what `createHost` and
 * `createMemoryHost` return, and what the CLI and the MCP server drive.
 */
import type { ToolDescriptor } from '../../../tools/result.js';
import type { WorkRequests } from '../../../tools/work-requests.js';
import type { ToolGateApi } from '../../gate/tool-gate-api.js';
import type { DrainReport } from '../../lander/lander.js';
import type { Backend, Guarantee } from '../../manifest/types.js';
import type { EventFilter, RunEvent } from '../../state/event-log.js';
import type { MessageRecord } from '../../state/message-table.js';
import type { OccupancyMode, OccupancyRecord } from '../../state/occupancy-table.js';
import type { AutoConversation, AutoConversationRequest } from '../occupancy/auto-conversation.js';
import type { LandSubagentResult, StartSubagentOptions } from '../subagents/subagents.js';
import type { SubmissionStatus } from '../work/host-lander.js';

export type WorkspaceState = 'preparing' | 'ready' | 'released';

export interface PrepareOptions {
  conversation: string;
  /** Role name from the manifest (default: the first role). */
  role?: string;
  /** Base ref to pin (default: the integration checkout's HEAD). */
  baseRef?: string;
  /** The caller's conversation chain (parent conversations first), for the run log. */
  chain?: readonly string[];
}

/** One row of `gatefs status` / `host.status()`. Never contains host paths. */
export interface WorkspaceStatus {
  conversation: string;
  role: string;
  backend: Backend;
  guarantee: Guarantee;
  state: WorkspaceState;
  branch: string | null;
  pinnedSha: string | null;
  /** Holder of the current occupancy, if any. */
  holder: string | null;
  /**
   * How folder access is confined on this host: `procfs` (handle walk through /proc/self/fd),
   * `lstat-fallback` (the weaker per-component check, SECURITY.md §3) or `memory`.
   */
  confinement?: string;
  /** The conversation that started this one (a subagent), or null for a root conversation. */
  parent?: string | null;
  /** For a root conversation: how many submissions of its lineage (itself and its subagents) have landed. */
  landed?: number;
}

export interface ReleaseOptions {
  /** Also delete the branch, only when git proves it is merged into the base. */
  deleteBranch?: boolean;
  /**
   * Remove the workspace even though it holds work (changed, untracked or ignored files): they
   * are deleted. The branch and its commits are kept (only `deleteBranch` may delete a merged branch).
   */
  discard?: boolean;
  /** Release even while another live session occupies the workspace (its occupancy is ended). */
  force?: boolean;
  /** The caller's conversation chain (parent conversations first), for the run log. */
  chain?: readonly string[];
}

export interface ReleaseResult {
  conversation: string;
  removed: boolean;
  branchDeleted: boolean;
  /** Why the branch was kept, when it was. */
  branchKeptReason?: string;
  /** With `discard`: true when files that were work were deleted. */
  discarded?: boolean;
  /** With `force`: the live holders whose occupancy was ended. */
  forcedHolders?: string[];
}

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
 * What `createHost` and `createMemoryHost` return, and what the CLI and the MCP server drive:
 * every operation of a host, none of them optional.
 */
export interface Host {
  readonly gate: ToolGateApi;
  prepare(options: PrepareOptions): Promise<WorkspaceStatus>;
  status(): WorkspaceStatus[];
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
   * Occupies a conversation's workspace for `holder` (default `exclusive-write`: the gate then
   * refuses other holders' writes with `OCCUPIED`), recording this process (pid and start
   * time); a holder whose process is gone is ended first. Throws `WorkspaceError` `OCCUPIED`
   * or `UNKNOWN_CONVERSATION`.
   */
  acquire(conversation: string, holder: string, mode?: OccupancyMode): OccupancyRecord;
  /** Ends `holder`'s occupancy of a conversation. Result: true when it held one. */
  releaseOccupancy(conversation: string, holder: string): boolean;
  /** The lander: `run({ target? })` lands pending submissions; `status()` lists them, oldest first. */
  readonly lander: HostLander;
  /**
   * Diff, commit and submit for a conversation's workspace as an operator (the CLI's `gatefs
   * diff|commit|submit`), whatever tools the role declares. Throws `WorkspaceError`
   * `UNKNOWN_CONVERSATION` (none, not ready, released) or `BACKEND_UNAVAILABLE` (not a git worktree).
   */
  work(conversation: string): WorkRequests;
  /** What the lander delivered to `conversation` (every message when omitted), oldest first. */
  messages(conversation?: string): MessageRecord[];
  readonly subagents: HostSubagents;
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
}
