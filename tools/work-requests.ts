/**
 * `WorkRequests`: the port `diff`, `commit` and `submit` call to bring an agent's work home.
 * Declared here, by the tools that need it, so tools/ depends on nothing outside vfs/; the host
 * implements it (src/host/work/work-service.ts) with git run host-side through the host's process port —
 * the tools and the gate never spawn and never touch `.git`. A registration whose workspace can
 * carry work (a `worktree` workspace) has one (`Registration.work`, handed to the tools as
 * `ToolContext.work`).
 *
 * Paths in requests are repository-relative (the tool has resolved and confined the agent's
 * paths first). Refusals are thrown as `ToolFailure` with the public codes.
 */

/** How one file changed. */
type FileChange = 'added' | 'modified' | 'deleted' | 'typechange';

/** The value of `diff`. */
export interface DiffValue {
  /** What the workspace is compared with: `pinned` (the commit it was prepared from) or `head` (its last commit). */
  base: 'pinned' | 'head';
  /** The commit compared with. */
  baseSha: string;
  /** Changed files, workspace-relative, sorted. */
  files: { path: string; status: FileChange }[];
  /** Unified diff, cut at the tool's cap. */
  patch: string;
  truncated: boolean;
}

/** The value of `commit`. */
export interface CommitValue {
  /** The new commit, or the branch's head when there was nothing to commit (`files` empty). */
  sha: string;
  /** The branch committed on (`gatefs/<id>`). */
  branch: string;
  files: { path: string; status: FileChange }[];
}

/** The value of `submit`. */
export interface SubmitValue {
  submissionId: string;
  /** The request id the landing report and its note are delivered under (exactly once). */
  requestId: string;
  /** 1 when it is next in line. */
  queuePosition: number;
  /** The commit submitted (the branch's head). */
  commit: string;
  /** The branch it will land on (e.g. `main`). */
  target: string;
}

/** One conversation's way home, as the tools see it. */
export interface WorkRequests {
  /** Changes against `base`, limited to `paths` (repository-relative) when given. */
  diff(request: { base: 'pinned' | 'head'; paths?: readonly string[]; maxPatchBytes: number }): Promise<DiffValue>;
  /** Commits every change (or only `paths`) with `message`; the author is the conversation. */
  commit(request: { message: string; paths?: readonly string[] }): Promise<CommitValue>;
  /**
   * Queues the branch's head for the lander. `DIRTY_WORKTREE` while anything is uncommitted,
   * `QUEUE_REJECTED` when there is nothing to land (or no target branch).
   */
  submit(request: { divergence: string; summary?: string }): Promise<SubmitValue>;
}
