/**
 * How a preparation fails: every failure leaves `prepareWorkspace` as a `WorkspaceError`
 * (`PREPARATION_FAILED` with a data.reason, unless it is one already), and its `prepare.failed`
 * run-log event is written once, wherever it was first seen.
 */
import { codeOf } from '../../../vfs/index.js';
import { isGitError } from '../../git/index.js';
import { WorkspaceError, isWorkspaceError, unexpectedReason, type WorkspaceErrorReason } from '../../workspace-error.js';

/** Errors whose `prepare.failed` event is already in the run log. */
const logged = new WeakSet<object>();

/** Marks `error`'s `prepare.failed` event as written. */
export function markLogged(error: object): void {
  logged.add(error);
}

/** True when `error`'s `prepare.failed` event is already in the run log. */
export function isLogged(error: unknown): boolean {
  return typeof error === 'object' && error !== null && logged.has(error);
}

/** `PREPARATION_FAILED` with data.reason `reason` for `conversation`. */
export function failure(conversation: string, reason: WorkspaceErrorReason, message: string): WorkspaceError {
  return new WorkspaceError('PREPARATION_FAILED', message, { conversation, reason });
}

/** `e` as the `WorkspaceError` a preparation throws: itself, or `PREPARATION_FAILED` (data.reason `GIT_<code>`, its code, or `ERROR`) keeping it as cause. */
export function asPreparationError(e: unknown, conversation: string): WorkspaceError {
  if (isWorkspaceError(e)) return e;
  const reason = unexpectedReason(isGitError(e) ? `GIT_${e.code}` : (codeOf(e) ?? 'ERROR'));
  return new WorkspaceError(
    'PREPARATION_FAILED',
    `preparing '${conversation}' failed: ${(e as Error)?.message ?? String(e)}`,
    { conversation, reason },
    { cause: e },
  );
}
