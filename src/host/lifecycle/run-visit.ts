/**
 * A preparation's run and visit (docs/ARCHITECTURE.md § Runs, handoffs and artifacts): the n-th
 * conversation of a role in a run is its visit n, given by `store.runs.startVisit`.
 *
 * - `refuseVisit` runs before anything is made: a conversation that has its visit keeps it (asked
 *   into another run: `PREPARATION_FAILED` reason `RUN_MISMATCH`); a new one is refused when the
 *   run was ended (`RUN_ENDED`) or its role already had `max_visits` conversations there
 *   (`VISITS_EXHAUSTED`). So a refusal makes nothing and records no visit.
 * - `startRunVisit` gives the visit once the workspace is made, checking the same rules again
 *   inside the store's immediate transaction: two preparers (two processes) racing for the last
 *   visit get one visit and one refusal, and the loser's workspace is rolled back by its caller.
 *
 * A conversation prepared before runs existed has no visit until it is prepared again.
 */
import type { Role } from '../../manifest/index.js';
import type { StateStore, VisitRow } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/** The run of a preparation that names none. */
export const DEFAULT_RUN = 'default';

/**
 * Throws when `conversation` may not be prepared as `role` into `run` (undefined: its own run if it
 * has a visit, else `DEFAULT_RUN`); see the file comment. Reads only.
 */
export function refuseVisit(store: Pick<StateStore, 'runs'>, conversation: string, role: Role, run: string | undefined): void {
  const existing = store.runs.visitOf(conversation);
  if (existing) {
    if (run !== undefined && existing.run !== run) throw runMismatch(existing, run);
    return;
  }
  const target = run ?? DEFAULT_RUN;
  const refusal = refusalOf(store, conversation, role, target, nextVisit(store, target, role.name));
  if (refusal) throw refusal;
}

/**
 * The visit of `conversation` (its own when it has one; else the next of `role` in `run`, made
 * now, with a `run.visit` run-log event). Throws `RUN_ENDED` or `VISITS_EXHAUSTED` when the
 * store refuses it (a concurrent preparer took the last visit or ended the run), recording nothing.
 */
export function startRunVisit(
  store: Pick<StateStore, 'runs' | 'runLog'>,
  conversation: string,
  role: Role,
  run: string | undefined,
): VisitRow {
  const existing = store.runs.visitOf(conversation);
  if (existing) return existing;
  const target = run ?? DEFAULT_RUN;
  const refused: { error: WorkspaceError | null } = { error: null };
  const row = store.runs.startVisit(conversation, target, role.name, (next) => {
    refused.error = refusalOf(store, conversation, role, target, next);
    return refused.error === null;
  });
  if (!row)
    throw refused.error ?? new WorkspaceError('PREPARATION_FAILED', `no visit could be recorded for '${conversation}'`, { conversation });
  store.runLog.append({ type: 'run.visit', conversation, data: { run: row.run, role: row.role, visit: row.visit } });
  return row;
}

/** The number the next conversation of `role` in `run` would get. */
function nextVisit(store: Pick<StateStore, 'runs'>, run: string, role: string): number {
  return store.runs.visits(run).reduce((n, v) => (v.role === role ? Math.max(n, v.visit) : n), 0) + 1;
}

/** Why visit `next` of `role` in `run` may not start, or null. */
function refusalOf(store: Pick<StateStore, 'runs'>, conversation: string, role: Role, run: string, next: number): WorkspaceError | null {
  const ended = store.runs.run(run);
  if (ended && ended.endedAt !== null) {
    return new WorkspaceError(
      'RUN_ENDED',
      `run '${run}' was ended${ended.endedBy ? ` by '${ended.endedBy}'` : ''}: '${conversation}' cannot join it (prepare it into another run with --run)`,
      { conversation, run, endedBy: ended.endedBy },
    );
  }
  if (role.maxVisits !== null && next > role.maxVisits) {
    return new WorkspaceError(
      'VISITS_EXHAUSTED',
      `role '${role.name}' had its ${role.maxVisits} visit${role.maxVisits === 1 ? '' : 's'} (max_visits) in run '${run}': '${conversation}' was not prepared`,
      { conversation, run, role: role.name, maxVisits: role.maxVisits, visits: next - 1 },
    );
  }
  return null;
}

function runMismatch(existing: VisitRow, run: string): WorkspaceError {
  return new WorkspaceError(
    'PREPARATION_FAILED',
    `conversation '${existing.conversation}' is visit ${existing.visit} of '${existing.role}' in run '${existing.run}', not in run '${run}'`,
    {
      conversation: existing.conversation,
      reason: 'RUN_MISMATCH',
      run: existing.run,
      visit: existing.visit,
      hint: 'a conversation stays in the run it was first prepared into: prepare it without --run, or prepare another conversation into that run',
    },
  );
}
