/**
 * `StateError`: a problem with the state database itself (as opposed to the workspaces it
 * records, which raise `WorkspaceError`). Callers branch on `code`; `data.file` names the
 * database when it is a file. A `CodedError` like `WorkspaceError`, kept apart because its codes
 * name conditions of the database, not of a workspace.
 */
import { CodedError, type ErrorData } from '../../vfs/index.js';

/** The conditions a `StateError` names. */
export type StateErrorCode =
  /** The database could not be opened or prepared (missing folder, not a database, …). */
  | 'OPEN_FAILED'
  /** The database was written by a newer gatefs (its schema version is higher than ours). */
  | 'SCHEMA_TOO_NEW'
  /** A caller passed a value the store cannot record (e.g. a pid that is not a positive integer). */
  | 'INVALID_ARGUMENT'
  /** A record the caller named does not exist (a submission id). */
  | 'NOT_FOUND'
  /** A submission's `landed_sha` or `pushed_sha` would change after it was recorded (neither does). */
  | 'LANDED_SHA_FIXED'
  /** A stored record lacks what its state needs, or is not in the state just recorded (written by hand, or by a broken gatefs); `data.id` names it. */
  | 'CORRUPT_RECORD';

/** An error about the state store, with a stable `code` and structured `data` (see `CodedError`). */
export class StateError extends CodedError<StateErrorCode> {
  override readonly name = 'StateError';

  constructor(code: StateErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(code, message, data, options);
  }
}
