/**
 * `WorkspaceError`: the one error type for workspace-level conditions (preparation, release,
 * backends, occupancy, the state of a conversation's registration). Callers branch on `code`;
 * `data` carries the structured facts (conversation, holder, dirty files, …) so a CLI or an MCP
 * server can render them without parsing the message. Mirrors isomorphic-git's errors: a stable
 * `code` plus structured `data`; unlike it, the conditions share one class.
 *
 * Messages are written for the operator running gatefs. They may name host paths (a checkout, a
 * state directory): the tool gate never forwards a `WorkspaceError` message to an agent as is.
 *
 * `StateError` (src/state/state-error.ts) has the same shape for the state database: both are
 * `CodedError`s (vfs/coded-error.ts) and differ only in their codes.
 */
import { CodedError, type ErrorData } from '../vfs/coded-error.js';

/** The conditions a `WorkspaceError` names. */
export type WorkspaceErrorCode =
  /** The manifest asks for a backend this gatefs cannot provide (`container`); never a fallback. */
  | 'BACKEND_UNAVAILABLE'
  /** Materializing a workspace failed; `data.reason` says why, nothing half-made is left. */
  | 'PREPARATION_FAILED'
  /** Release refused: the worktree has uncommitted changes; `data.files` lists them. */
  | 'DIRTY_WORKTREE'
  /** A `worktree` backend (or a base ref) was asked for a folder that is not a git repository. */
  | 'NOT_A_GIT_REPOSITORY'
  /** No workspace is recorded for `data.conversation`. */
  | 'UNKNOWN_CONVERSATION'
  /** The base ref does not resolve to a commit; `data.ref` names it. */
  | 'BAD_REF'
  /** Another process or task is preparing the same conversation right now. */
  | 'BUSY'
  /** Occupancy refused: `data.holder` holds the conversation in `data.mode`. */
  | 'OCCUPIED'
  /** The state directory or database was not created by gatefs on this machine (it came with the repository); `data.hint` says what to do. */
  | 'STATE_UNTRUSTED'
  /** A subagent's branch holds commits its parent lacks (release refused: land or discard it), or cannot be fast-forwarded onto the parent (`data.reason` `PARENT_MOVED`). */
  | 'NOT_CLEAN';

/** An error about a workspace, with a stable `code` and structured `data` (see `CodedError`). */
export class WorkspaceError extends CodedError<WorkspaceErrorCode> {
  override readonly name = 'WorkspaceError';

  constructor(code: WorkspaceErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(code, message, data, options);
  }
}

/** True when `e` is a WorkspaceError, optionally with the given code. */
export function isWorkspaceError(e: unknown, code?: WorkspaceErrorCode): e is WorkspaceError {
  return e instanceof WorkspaceError && (code === undefined || e.code === code);
}
