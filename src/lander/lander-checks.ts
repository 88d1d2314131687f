/**
 * The lander's checks over one candidate: run one after another in the lander's checkout (each
 * with its timeout and the submitter's conversation chain), stopping at the first failure, whose
 * report names every check that ran with its exit code and duration, and the failing one's output
 * tail. Used
 * for a submission's candidate and again for its re-merge onto a remote that moved.
 */
import type { CheckRun, CheckRunner, CheckSpec } from '../ports/index.js';
import type { CheckSummary, LanderFailure } from '../state/index.js';

/** The checks passed (`results`: one summary per check, in order) or one failed (`failure`: what the submitter is told). */
type ChecksOutcome = { ok: true; results: CheckSummary[] } | { ok: false; failure: Extract<LanderFailure, { check: string }> };

/**
 * Runs `checks` in `dir` for `chain`, calling `ran` after each one (a save point). A failing or
 * timed-out check ends the run with its failure (name, exit code, output tail). Throws what the
 * runner throws (a runner that cannot run at all).
 */
export async function runChecks(
  runner: CheckRunner,
  checks: readonly CheckSpec[],
  dir: string,
  chain: readonly string[],
  ran: () => void,
): Promise<ChecksOutcome> {
  const results: CheckSummary[] = [];
  for (const check of checks) {
    const run = await runner.run(check, dir, chain);
    ran();
    if (run.exitCode !== 0 || run.timedOut) return { ok: false, failure: checkFailure(check, run, results) };
    results.push({ name: check.name, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs });
  }
  return { ok: true, results };
}

/**
 * The failure of `check`: its name, exit code, duration and output tail (the runner keeps at
 * most `CHECK_OUTPUT_BYTES` of it), and every check that ran before it (`passed`) with the failing
 * one last, so the submitter sees what ran, how it ended and how long each took.
 */
function checkFailure(check: CheckSpec, run: CheckRun, passed: readonly CheckSummary[]): Extract<LanderFailure, { check: string }> {
  const failed = { name: check.name, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs };
  return {
    reason: run.timedOut ? 'CHECK_TIMED_OUT' : 'CHECK_FAILED',
    message: run.timedOut
      ? `check '${check.name}' timed out after ${Math.round(check.timeoutMs / 1000)} s`
      : `check '${check.name}' failed with exit code ${run.exitCode}`,
    check: check.name,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    output: run.output,
    outputTruncated: run.truncated,
    durationMs: run.durationMs,
    checks: [...passed, { ...failed, output: run.output, outputTruncated: run.truncated }],
  };
}
