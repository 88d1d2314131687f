/**
 * `StateError`: a problem with the state database itself (as opposed to the workspaces it
 * records, which raise `WorkspaceError`). Callers branch on `code`; `data.file` names the
 * database when it is a file.
 */
export type StateErrorCode =
  /** The database could not be opened or prepared (missing folder, not a database, …). */
  | 'OPEN_FAILED'
  /** The database was written by a newer gatefs (its schema version is higher than ours). */
  | 'SCHEMA_TOO_NEW'
  /** A caller passed a value the store cannot record (e.g. a pid that is not a positive integer). */
  | 'INVALID_ARGUMENT';

/** An error about the state store, with a stable `code` and structured `data`. */
export class StateError extends Error {
  override readonly name = 'StateError';

  constructor(
    readonly code: StateErrorCode,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
