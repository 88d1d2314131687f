/**
 * `CodedError`: the base of every error gatefs raises on purpose. Callers branch on `code` (a
 * stable string each subclass enumerates and documents), read structured facts from `data`
 * (never by parsing the message), and find the error that led to it in `cause`. Mirrors
 * isomorphic-git's errors (a stable `code` plus `data`); unlike it, one class per audience
 * (`VfsError` for the walk and the agent, `WorkspaceError` for the operator, …) rather than one
 * class per condition.
 *
 * It lives in `vfs/`, the innermost folder, so every folder may import it.
 *
 * Two kinds of codes meet a `catch`, and this module keeps them apart:
 * - gatefs codes (`NOT_FOUND`, `OCCUPIED`, `BAD_REF`, …): a `CodedError`'s `code`, read with
 *   `instanceof` the subclass (which types the code) or with `codeOf`;
 * - foreign codes: what Node's system errors (`ENOENT`, `EADDRINUSE`: `ErrnoException.code`),
 *   better-sqlite3 (`SQLITE_BUSY`) and isomorphic-git (`NotFoundError`) put on their errors,
 *   read with `foreignCodeOf` where they are caught, next to the `node:fs` or library call that
 *   threw them. A layer turns them into `VfsError`s (`fromErrno`); they never become gatefs codes
 *   by accident, because `foreignCodeOf` of a `CodedError` is undefined.
 */

/** Structured facts of a coded error: plain values a CLI, a log or a test can read without the message. */
export type ErrorData = Readonly<Record<string, unknown>>;

/**
 * An error with a stable `code`, structured `data` and a kept `cause`.
 *
 * `message` is written for the audience the subclass names (the agent for `VfsError` and
 * `ToolFailure`, which never carry a host path; the operator for the others) and never copies
 * the text of `cause`: a foreign error's message may hold host paths or file contents, so it
 * stays in `cause`, for debugging only.
 */
export class CodedError<C extends string = string, D extends ErrorData = ErrorData> extends Error {
  override readonly name: string = 'CodedError';

  /**
   * `code`: the condition, one of the subclass's codes. `message`: one line for the audience.
   * `data`: the facts (conversation, path, holder, …). `options.cause`: the error that led here.
   */
  constructor(
    readonly code: C,
    message: string,
    readonly data: D,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `e` is any gatefs coded error, optionally with the given code. */
export function isCodedError(e: unknown, code?: string): e is CodedError {
  return e instanceof CodedError && (code === undefined || e.code === code);
}

/**
 * The code to report for `e`: a `CodedError`'s code, else the foreign code it carries (see
 * `foreignCodeOf`), else undefined. For places that only record or show a code (the run log,
 * the CLI's one line, an HTTP refusal); to branch on a gatefs condition, use `instanceof` the
 * subclass, whose `code` is typed.
 */
export function codeOf(e: unknown): string | undefined {
  return e instanceof CodedError ? e.code : foreignCodeOf(e);
}

/**
 * The string `code` of an error gatefs did not make: Node's system errors (`ENOENT`, `EMFILE`,
 * `EADDRINUSE`, …), better-sqlite3's (`SQLITE_BUSY`, `SQLITE_CANTOPEN`), isomorphic-git's
 * (`NotFoundError`). Undefined for a `CodedError` (its code is a gatefs code, not a foreign one)
 * and for anything without a string `code`. The one place that reads `code` off an unknown value.
 */
export function foreignCodeOf(e: unknown): string | undefined {
  if (e instanceof CodedError || typeof e !== 'object' || e === null || !('code' in e)) return undefined;
  return typeof e.code === 'string' ? e.code : undefined;
}

/** The `cause` `e` keeps (an `Error`'s `options.cause`, or a library error's `cause` field), or undefined. */
export function causeOf(e: unknown): unknown {
  return typeof e === 'object' && e !== null && 'cause' in e ? e.cause : undefined;
}
