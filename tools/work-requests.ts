/**
 * `WorkRequests`: the port `diff`, `commit` and `submit` call to bring an agent's work home, and
 * `messages` calls to read what became of it.
 * Declared here, by the tools that need it, so tools/ depends on nothing outside vfs/; the host
 * implements it (src/host/work/work-service.ts) with git run host-side through the host's process port —
 * the tools and the gate never spawn and never touch `.git`. A registration whose workspace can
 * carry work (a `worktree` workspace) has one (`Registration.work`, handed to the tools as
 * `ToolContext.work`).
 *
 * Paths in requests are repository-relative (the tool has resolved and confined the agent's
 * paths first). Refusals are thrown as `ToolFailure` with the public codes.
 */
import { ToolFailure } from './result.js';

/** How one file changed. */
type FileChange = 'added' | 'modified' | 'deleted' | 'typechange';

/** The value of `diff`. */
export interface DiffValue {
  /**
   * What the workspace is compared with: `pinned` (the commit it was prepared from or, once its
   * work landed, the last commit of it the target holds) or `head` (its last commit).
   */
  base: 'pinned' | 'head';
  /** The commit compared with. */
  baseSha: string;
  /** Changed files, workspace-relative, sorted. */
  files: { path: string; status: FileChange }[];
  /** Unified diff, cut at the tool's cap. */
  patch: string;
  truncated: boolean;
  /** Set when the pinned base moved because work landed: the branch it landed on (`baseSha` is where that work ends). */
  landedOn?: string;
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

/** One check as a landing's outcome names it: how it ended and how long it ran; the one that failed has its output tail. */
export interface CheckOutcome {
  name: string;
  /** Null when it was killed (a timeout, a signal) or could not start. */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The end of what it printed (at most 8 KiB), on the check that failed only. */
  output?: string;
  outputTruncated?: boolean;
}

/**
 * One message delivered to the caller's conversation: a landing `report` (its work landed), an
 * `input` (its submission was refused: a failed check, a merge conflict), or a `note` (work of a
 * branch it started landed). Fields that do not apply to a kind are absent.
 */
export interface MessageView {
  /** The submission's request id (`submit` answered it); a note's is `<requestId>/note`. */
  requestId: string;
  kind: 'report' | 'note' | 'input';
  submissionId: string | null;
  /** `landed` (report, note) or `failed` (input). */
  outcome: 'landed' | 'failed';
  /** What happened, in one line. */
  message: string;
  /** When it was delivered (milliseconds since the epoch, the host's clock). */
  at: number;
  /** The branch it landed on, or was to land on. */
  target?: string;
  /** The commit submitted. */
  commit?: string;
  /** The commit on the target that holds the work (a report, a note). */
  landedSha?: string;
  /** True when the landing was pushed to the remote. */
  pushed?: boolean;
  /** The checks that ran, in order (an input: the failing one last, with its output tail). */
  checks: CheckOutcome[];
  /** Why it was refused (an input): `CHECK_FAILED`, `CHECK_TIMED_OUT`, `MERGE_CONFLICT`, `PROTECTED_PATH`, `NO_TARGET`. */
  reason?: string;
  /** The files that conflicted (a merge conflict) or were refused (a protected path). */
  paths?: string[];
  /** Who submitted the work (a note). */
  from?: string;
  /** The submitter's summary and divergence (a note). */
  summary?: string;
  divergence?: string;
}

/** One of the caller's submissions still in the lander's queue. */
export interface PendingSubmission {
  requestId: string;
  submissionId: string;
  target: string;
  /** `queued`, `merging`, `checking`, `checked`, `landed` (on the target, push pending), `pushed`. */
  state: string;
  /** 1 when it is next in line. */
  queuePosition: number;
  /** Set while its move onto the target is blocked: why, and what unblocks it (an operator's act). */
  blocked?: { reason: string; files: string[]; why: string; unblock: string };
}

/** The value of `messages`. */
export interface MessagesValue {
  /** The messages asked for, oldest first (at most `MESSAGES_MAX`). */
  messages: MessageView[];
  /** The caller's submissions (under `requestId` when given) not yet landed or refused: their state, and why one is blocked. */
  pending: PendingSubmission[];
  /** Messages that matched but were left out past the cap (ask again: with `unread` the next ones come). */
  more: number;
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
  /**
   * The conversation's own messages (never another's): those under `requestId` (the id and its
   * `/note`) when given, only those not returned before when `unread`, at most `max`. Every
   * message returned is marked read (kept in the state store). With the conversation's pending
   * submissions (under `requestId` when given).
   */
  messages(request: { requestId?: string; unread: boolean; max: number }): Promise<MessagesValue>;
}

/**
 * The way home of the calling workspace (`ToolContext.work`), or the tool's `NOT_A_WORKTREE`
 * failure: `why` ends the message ("…is not a git worktree, so it has no diff").
 */
export function workOf(ctx: { readonly work?: WorkRequests; readonly conversation: string }, why: string): WorkRequests {
  if (ctx.work) return ctx.work;
  throw new ToolFailure('NOT_A_WORKTREE', `the workspace of '${ctx.conversation}' is not a git worktree${why}`);
}
