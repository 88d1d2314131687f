/**
 * `isFailureEvent`: which run-log records say something failed (`gatefs log --failed`, the status
 * page's marks). The rule, per record:
 *
 * - `tool_call`: the outcome is not `ok` (the gate refused or the tool failed: any error code);
 * - `exec` of an agent's or the lander's sandboxed command (`sandboxed: true`): an exit code other
 *   than 0, a signal, the timeout, a limit hit, or an error that kept it from running;
 * - `exec` of gatefs's own git commands: a signal, the timeout or an error that kept it from
 *   running. Not a non-zero exit: for these, that is the answer the task asked for (`rev-parse
 *   --verify` of a branch not made yet exits 1); when it fails the task, the task's own failure
 *   record follows (`prepare.failed`, `work.failed`, `lander.failed`, …);
 * - every record of a type in `FAILURE_EVENT_TYPES`: a failed or rolled-back preparation, a
 *   refused, aborted or undone release, a recovery that failed, a workspace that could not be
 *   registered, a lower folder that failed, `work.failed`, a blocked, failed or unpushed landing.
 *
 * Records of other types (and of types a newer gatefs added) are not failures.
 */
import type { RunEventType } from './run-log-events.js';

/** Event types whose every record reports a failure (see the file comment). */
export const FAILURE_EVENT_TYPES: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'registry.unavailable',
  'prepare.failed',
  'prepare.rolled_back',
  'lower.unavailable',
  'lower.failed',
  'lower.unusable',
  'release.refused',
  'release.aborted',
  'release.restore_failed',
  'release.undone',
  'recover.failed',
  'recover.unavailable',
  'work.failed',
  'lander.blocked',
  'lander.remote_unreachable',
  'lander.push_failed',
  'lander.failed',
]);

/** True when the record `event` reports a failure (see the file comment). */
export function isFailureEvent(event: { type: string; data: Record<string, unknown> }): boolean {
  const { type, data } = event;
  if (type === 'tool_call') return data.outcome !== 'ok';
  if (type === 'exec') {
    const ended = (data.signal ?? null) !== null || data.timedOut === true || data.error !== undefined || data.limit !== undefined;
    if (ended) return true;
    return data.sandboxed === true && data.exitCode !== 0;
  }
  return FAILURE_EVENT_TYPES.has(type as RunEventType);
}
