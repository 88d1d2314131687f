/**
 * `ScriptedCheckRunner`: the check port of the memory host and of tests. No process runs:
 * each check's results come from a queue scripted per check name, and every call is recorded.
 */
import type { CheckRun, CheckRunner, CheckSpec } from './check-runner.js';

/** One scripted result: an exit code, the output tail, and whether it timed out (default false). */
export interface ScriptedCheckResult {
  exitCode: number | null;
  output: string;
  timedOut?: boolean;
}

/** One recorded call of `ScriptedCheckRunner.run`. */
export interface CheckCall {
  /** The check's name. */
  name: string;
  /** The working folder it was asked to run in. */
  cwd: string;
  /** The conversation chain it ran for. */
  chain: readonly string[];
}

/**
 * A check port answering from a script (see the file comment). `script(name, …results)`
 * appends to that name's queue; each run takes the next result. A check with no result left
 * (or never scripted) passes: exit 0, output ''. Results report `durationMs` 0 and are never
 * truncated, so a run log built from them is byte-identical between runs.
 */
export class ScriptedCheckRunner implements CheckRunner {
  private readonly queues = new Map<string, ScriptedCheckResult[]>();
  /** Every call, in order. */
  readonly calls: CheckCall[] = [];

  /** Queues `results` for the check called `name`, after any already queued. Returns this runner. */
  script(name: string, ...results: ScriptedCheckResult[]): this {
    const queue = this.queues.get(name) ?? [];
    queue.push(...results);
    this.queues.set(name, queue);
    return this;
  }

  async run(check: CheckSpec, cwd: string, chain: readonly string[]): Promise<CheckRun> {
    this.calls.push({ name: check.name, cwd, chain: [...chain] });
    const next = this.queues.get(check.name)?.shift() ?? { exitCode: 0, output: '' };
    const timedOut = next.timedOut === true;
    return { exitCode: timedOut ? null : next.exitCode, timedOut, durationMs: 0, output: next.output, truncated: false };
  }
}
