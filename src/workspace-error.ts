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
import { CodedError, type ErrorData } from '../vfs/index.js';

/** The conditions a `WorkspaceError` names. */
export type WorkspaceErrorCode =
  /** The manifest asks for a backend this gatefs cannot provide (`container`); never a fallback. */
  | 'BACKEND_UNAVAILABLE'
  /** Materializing a workspace failed; `data.reason` says why (`WORKSPACE_ERROR_REASON_DOCS`), nothing half-made is left. */
  | 'PREPARATION_FAILED'
  /** Release refused: the worktree has uncommitted changes; `data.files` lists them. */
  | 'DIRTY_WORKTREE'
  /** A `worktree` backend (or a base ref) was asked for a folder that is not a git repository. */
  | 'NOT_A_GIT_REPOSITORY'
  /** No workspace is recorded for `data.conversation`. */
  | 'UNKNOWN_CONVERSATION'
  /** The workspace of `data.conversation` was released (`host.describe`); prepare it again to serve it. */
  | 'WORKSPACE_RELEASED'
  /** The base ref does not resolve to a commit; `data.ref` names it. */
  | 'BAD_REF'
  /** Another process or task is preparing the same conversation right now. */
  | 'BUSY'
  /** Occupancy refused: `data.holder` holds the conversation in `data.mode`. */
  | 'OCCUPIED'
  /** The state directory or database was not created by gatefs on this machine (it came with the repository); `data.hint` says what to do. */
  | 'STATE_UNTRUSTED'
  /** A subagent's branch holds commits its parent lacks (release refused: land or discard it), or cannot be fast-forwarded onto the parent (`data.reason` `PARENT_MOVED`). */
  | 'NOT_CLEAN'
  /** No snapshot of the conversation has that id; `data.available` lists the ones it has. */
  | 'SNAPSHOT_NOT_FOUND'
  /** Preparing refused: the role already had `max_visits` conversations in the run (`data.run`, `role`, `maxVisits`, `visits`); nothing was made. */
  | 'VISITS_EXHAUSTED'
  /** Preparing refused: the run was ended by an `end` (`data.run`, `endedBy`); nothing was made. */
  | 'RUN_ENDED'
  /** No run of that name is recorded (`data.run`). */
  | 'UNKNOWN_RUN'
  /** A handoff or end refused: the visit already ended (a handoff or end was recorded), or its run was ended (`data.run`, `visit`, `handoff`); nothing was collected. */
  | 'VISIT_ENDED'
  /** A switch or detach named a workspace the conversation has not attached (`data.workspace`, `data.attached` lists what it has). */
  | 'NOT_ATTACHED'
  /** A file reference names a root (a conversation's workspace) that was released (`data.workspace`); never answered from another root. */
  | 'REFERENCE_GONE'
  /** A file reference is none of the accepted forms, lies in no root, or leaves its root (`data.reason`: `BAD_FORM`, `OUTSIDE_ROOTS`, `PATH_ESCAPE`, `SYMLINK_ESCAPE`, `NO_BASE`, …). */
  | 'BAD_REFERENCE';

/**
 * The finer conditions a `WorkspaceError` names in `data.reason`, under its code. Stable like the
 * codes: `prepare.failed` and `registry.unavailable` records carry them, and callers branch on them
 * (a `MISSING_FOLDER` registration is an unknown conversation, any other reason an error).
 */
export const WORKSPACE_ERROR_REASON_DOCS = {
  // PREPARATION_FAILED
  BAD_CONVERSATION_ID: 'PREPARATION_FAILED: the conversation id is outside ^[a-z0-9][a-z0-9_-]{0,62}$, so it names no folder.',
  BAD_RUN_NAME:
    "PREPARATION_FAILED: a run name is outside ^[a-z0-9][a-z0-9_-]{0,62}$ (or is 'objects', the artifact store's own folder), so it names no artifact folder.",
  BAD_ARTIFACT_FOLDER: "PREPARATION_FAILED: a handoff's artifact folder name is not <role>-v<visit>, so it names no folder.",
  BAD_AGENT_NAME: 'PREPARATION_FAILED: the agent name is outside ^[a-z0-9][a-z0-9_-]{0,62}$, so it names no home folder.',
  AGENT_MISMATCH: 'PREPARATION_FAILED: the conversation is already prepared for another agent identity (data.agent).',
  RESERVED_ID:
    "PREPARATION_FAILED: the conversation id is reserved for a workspace gatefs names itself ('canonical': the source checkout; 'home': the agent's home).",
  BAD_BRANCH_NAME: 'PREPARATION_FAILED: the branch asked for is not a name git accepts (data.branch, data.problem).',
  BRANCH_IN_USE:
    'PREPARATION_FAILED: the branch asked for is checked out elsewhere (the source checkout, or another conversation: data.holder).',
  ROLE_MISMATCH: 'PREPARATION_FAILED: the conversation is already prepared with another role (data.role).',
  RUN_MISMATCH: 'PREPARATION_FAILED: the conversation already has its visit in another run (data.run) than the one asked for.',
  BASE_MISMATCH:
    'PREPARATION_FAILED: the conversation is already prepared from another commit than the base asked for (data.pinnedSha, data.baseSha).',
  BRANCH_EXISTS: "PREPARATION_FAILED: the conversation's branch from an earlier preparation points elsewhere than the base asked for.",
  PATH_EXISTS:
    "PREPARATION_FAILED: the workspace folder's place holds something gatefs did not make (a link, a file, a folder that is no worktree).",
  WORKTREE_CONFLICT: "PREPARATION_FAILED: the workspace folder's place is a worktree of another branch.",
  CHILD_EXISTS: 'PREPARATION_FAILED: a subagent was started under a conversation id that already has a workspace.',
  MISSING_FOLDER:
    'PREPARATION_FAILED: a mount or workspace folder does not exist (a registration without its folder is an unknown conversation); NOT_A_GIT_REPOSITORY: the repository folder does not exist.',
  MOUNT_IN_STATE_DIR: 'PREPARATION_FAILED: a mount lies inside the gatefs state directory, which no workspace may show.',
  FOLDER_THROUGH_LINK:
    'PREPARATION_FAILED: a mount or workspace folder can be reached only through a symbolic link, which gatefs never follows to one.',
  FOLDER_UNREADABLE: 'PREPARATION_FAILED: a mount or workspace folder exists but cannot be opened (data.path; the code in the message).',
  // BAD_REFERENCE (file references: src/host/agents/resolve-reference.ts)
  BAD_FORM:
    'BAD_REFERENCE: the reference is none of the accepted forms (namespace path, host path, workspace:// URI, relative path), or breaks their grammar (NUL, backslash, an encoded separator, a host path with ..).',
  OUTSIDE_ROOTS: 'BAD_REFERENCE: the path lies in no root (the source checkout, a workspace folder, an agent home).',
  PATH_ESCAPE: "BAD_REFERENCE: a '..' of the reference climbs out of its root.",
  SYMLINK_ESCAPE: 'BAD_REFERENCE: a symbolic link on the way leads out of the root (absolute, climbing above it, or more than 40 links).',
  NO_BASE: 'BAD_REFERENCE: a relative path came without a base file and without a conversation whose active workspace it could resolve in.',
  NO_CONVERSATION: "BAD_REFERENCE: a /home path or workspace://home names a conversation's agent home, and no conversation was given.",
  UNKNOWN_ROOT: "BAD_REFERENCE: a workspace:// URI's root= names no execution root of its workspace (data.roots lists the ones it has).",
  // NOT_A_GIT_REPOSITORY
  UNREADABLE_FOLDER: 'NOT_A_GIT_REPOSITORY: the repository folder cannot be read.',
  // STATE_UNTRUSTED
  LINK_IN_STATE_DIR:
    'STATE_UNTRUSTED: a folder or file of the state directory is a link or not what gatefs made; nothing is done through it.',
  BAD_NAME: 'STATE_UNTRUSTED: a workspace folder name that gatefs never makes (not a conversation id) was asked to be removed.',
  FORGED_BRANCH:
    "STATE_UNTRUSTED: a workspace record names a branch prepare never takes (not a name git accepts, a full ref, or another conversation's gatefs/<id>); nothing is done with it.",
  GIT_EXCLUDE_LINK: "STATE_UNTRUSTED: git's info/exclude file is a link or not a regular file; gatefs never writes through it.",
  OWNER: 'STATE_UNTRUSTED: the state directory or database belongs to another user.',
  PERMISSIONS: 'STATE_UNTRUSTED: the state directory can be written by other users.',
  LINK: 'STATE_UNTRUSTED: the state directory, its database, a journal or the origin file is a symbolic link.',
  STRAY_JOURNAL: 'STATE_UNTRUSTED: a database journal (-wal, -shm) lies in the state directory without its database.',
  FOREIGN_CONTENT: 'STATE_UNTRUSTED: the state directory holds files gatefs did not write and no database.',
  TRACKED: 'STATE_UNTRUSTED: git tracks files of the state directory: it came with the repository.',
  NO_ORIGIN: 'STATE_UNTRUSTED: the database has no proof of origin (the origin file or its record is missing).',
  COPIED: 'STATE_UNTRUSTED: the proof of origin names other files: the state directory was copied, cloned or extracted.',
  // BUSY
  CLOSED: 'BUSY: the host is closed; it serves nothing more.',
  // NOT_CLEAN
  PARENT_MOVED: "NOT_CLEAN: the parent's branch moved since the subagent started, so the child cannot be fast-forwarded onto it.",
  PROTECTED_PATH: "NOT_CLEAN: the subagent's branch holds the state directory's name (data.paths).",
  UNLANDED_COMMITS: "NOT_CLEAN: the subagent's branch holds commits its parent lacks (data.commits): land or discard it first.",
  // DIRTY_WORKTREE
  UNCOMMITTED_CHANGES: "DIRTY_WORKTREE: landing a subagent would overwrite the parent checkout's uncommitted changes (data.files).",
  UNTRACKED_FILES:
    "DIRTY_WORKTREE: landing a subagent would overwrite, delete or write into the parent checkout's untracked or ignored files (data.files).",
} as const satisfies Readonly<Record<string, string>>;

/** One declared reason (see `WORKSPACE_ERROR_REASON_DOCS`). */
export type WorkspaceErrorReason = keyof typeof WORKSPACE_ERROR_REASON_DOCS;

/**
 * The reason of a `PREPARATION_FAILED` that wraps an unexpected error: `GIT_<code>` for a git
 * port error, the error's own code (a system error's `ENOSPC`, …), else `ERROR`. Not a declared
 * reason and nothing to branch on; made only by `unexpectedReason`.
 */
type UnexpectedReason = string & { readonly unexpectedReason: true };

/** The `UnexpectedReason` of `code` (the caller derives it from the error it wraps). */
export function unexpectedReason(code: string): UnexpectedReason {
  return code as UnexpectedReason;
}

/** The facts of a `WorkspaceError`: any plain values, and a declared `reason` when it has one. */
type WorkspaceErrorData = ErrorData & { readonly reason?: WorkspaceErrorReason | UnexpectedReason };

/** An error about a workspace, with a stable `code` and structured `data` (see `CodedError`). */
export class WorkspaceError extends CodedError<WorkspaceErrorCode, WorkspaceErrorData> {
  override readonly name = 'WorkspaceError';

  constructor(code: WorkspaceErrorCode, message: string, data: WorkspaceErrorData = {}, options?: { cause?: unknown }) {
    super(code, message, data, options);
  }
}

/** True when `e` is a WorkspaceError, optionally with the given code. */
export function isWorkspaceError(e: unknown, code?: WorkspaceErrorCode): e is WorkspaceError {
  return e instanceof WorkspaceError && (code === undefined || e.code === code);
}
