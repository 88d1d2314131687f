/**
 * `SandboxCheckRunner`: the lander's checks (docs/ARCHITECTURE.md § Lander) run in the same kernel
 * sandbox as agents' commands, over the lander's candidate checkout — agent-written code never
 * runs unconfined, at landing either.
 *
 * The candidate checkout is shown at the submitter's namespace path (`/worktrees/<id>`), so a
 * failing check's output names the paths the agent knows; its `.git` file is covered by an empty
 * one, every role's `share:` folders of the source checkout appear read-only at their places (a
 * check needs the same dependencies an agent's command does), the state directory is hidden, and
 * the network is cut. The limits are the `exec:` defaults with the check's own timeout. Where no
 * sandbox can run, the check does not run: it fails with the cause and the fix as its output.
 */
import type { CheckRun, CheckRunner, CheckSpec, Sandbox } from '../../ports/index.js';
import { checkOutput, CHECK_OUTPUT_BYTES, SandboxUnavailableError } from '../../ports/index.js';
import { DEFAULT_EXEC } from '../../manifest/index.js';
import { sandboxPlan, type PlanFacts } from './sandbox-plan.js';
import type { RunEventData } from '../../state/index.js';

/** Where a check runs when its submission has no conversation chain. */
const LANDING_AT = 'landing';

/** The facts of the host a check's sandbox is planned from (`PlanFacts` without the workspace). */
export type CheckPlanFacts = Omit<PlanFacts, 'conversation' | 'backend' | 'checkoutPath' | 'mounts' | 'network'>;

/** The run-log `exec` data of one check (the catalogue's, src/state/run-log-events.ts). */
type CheckRecord = RunEventData['exec'];

/** Runs the lander's checks in the sandbox (see the file comment). */
export class SandboxCheckRunner implements CheckRunner {
  /** `record`: called once per check that ran, with its run-log `exec` data (never its output). */
  constructor(
    private readonly sandbox: Sandbox,
    private readonly facts: CheckPlanFacts,
    private readonly record?: (data: CheckRecord) => void,
  ) {}

  async run(check: CheckSpec, cwd: string, chain: readonly string[]): Promise<CheckRun> {
    const submitter = chain[chain.length - 1] ?? LANDING_AT;
    const plan = sandboxPlan(
      { ...this.facts, conversation: submitter, backend: 'worktree', checkoutPath: cwd, mounts: [], network: false },
      `/worktrees/${submitter}`,
    );
    let started;
    try {
      started = await this.sandbox.start({
        command: { argv: check.argv },
        plan: { ...plan, scan: undefined },
        limits: {
          timeoutMs: check.timeoutMs,
          memoryBytes: DEFAULT_EXEC.memoryBytes,
          processes: DEFAULT_EXEC.processes,
          outputBytes: 64 * 1024 ** 2,
          keepBytes: CHECK_OUTPUT_BYTES,
        },
        tag: 'lander.check',
        chain,
      });
    } catch (e) {
      if (!(e instanceof SandboxUnavailableError)) throw e;
      return {
        exitCode: null,
        timedOut: false,
        durationMs: 0,
        output: `gatefs: the check '${check.name}' did not run: ${e.message}. Checks never run unconfined; gatefs doctor says what works here`,
        truncated: false,
      };
    }
    const run = await started.done;
    this.record?.({
      tag: 'lander.check',
      chain: [...chain],
      argv: [...check.argv],
      cwd: `/worktrees/${submitter}`,
      exitCode: run.exitCode,
      signal: run.signal ?? null,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      sandboxed: true,
      ...(run.limit ? { limit: run.limit } : {}),
    });
    const { output, truncated } = checkOutput(run.stdout, run.stderr, run.stdoutTruncated || run.stderrTruncated);
    const limit = run.limit ? `\ngatefs: the check was ended at its ${run.limit} limit` : '';
    return {
      exitCode: run.timedOut || run.limit ? null : run.exitCode,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      output: `${output}${limit}`,
      truncated,
    };
  }
}
