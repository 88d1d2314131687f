/**
 * What the host's lifecycle operations take and give (docs/ARCHITECTURE.md § Host and lifecycle):
 * `host.prepare`'s options, `host.release`'s options and result. Public through `Host`.
 */

/** What `host.prepare` takes. */
export interface PrepareOptions {
  conversation: string;
  /** Role name from the manifest (default: the first role). */
  role?: string;
  /** Base ref to pin (default: the integration checkout's HEAD). */
  baseRef?: string;
  /**
   * The run the conversation's visit belongs to (the conversation-id grammar; default `default`,
   * or the run of its visit when it has one). A subagent's is its parent's.
   */
  run?: string;
  /**
   * The agent identity (the conversation grammar; default: the role name; a subagent's: its
   * parent's). Conversations of one agent share its home, `/home`.
   */
  agent?: string;
  /**
   * An explicit branch for a `worktree` workspace (default `gatefs/<id>`), validated as git does;
   * an existing one is reused only when it agrees with the base.
   */
  branch?: string;
  /** The caller's conversation chain (parent conversations first), for the run log. */
  chain?: readonly string[];
}

/** What `host.release` takes. */
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
  /** Keep the conversation's snapshots after the workspace goes (default: they go with it); `host.snapshots` still lists them. */
  keepSnapshots?: boolean;
  /** The caller's conversation chain (parent conversations first), for the run log. */
  chain?: readonly string[];
}

/** What `host.release` did. */
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
  /** The other conversations whose binding of this workspace (`attach`) ended with it. */
  bindingsEnded?: string[];
  /** How many snapshots went with the workspace (released without `keepSnapshots`). */
  snapshotsDropped?: number;
}
