/**
 * `ScriptedSandbox`: the sandbox port of the memory host and of tests. No process runs: each
 * command's result comes from a queue scripted per command text (a shell line, or an argv joined
 * by spaces), and every start is recorded. Results report `durationMs` 0, so a run log built from
 * them is byte-identical between runs.
 */
import type { RunningCommand, Sandbox, SandboxRequest, SandboxRun, SandboxSupport, ScanEntry } from './sandbox.js';
import { SandboxUnavailableError } from './sandbox.js';

/** One scripted result. `changed`: sandbox paths the command "wrote" (reported as added files). */
export interface ScriptedCommandResult {
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
  timedOut?: boolean;
  limit?: 'memory' | 'processes' | 'output';
  changed?: readonly string[];
  /** True: the command runs until it is killed (a background run to read and end). */
  untilKilled?: boolean;
}

/** A sandbox answering from a script (see the file comment). */
export class ScriptedSandbox implements Sandbox {
  private readonly queues = new Map<string, ScriptedCommandResult[]>();
  /** Every request started, in order. */
  readonly started: SandboxRequest[] = [];

  /** `unavailable`: the probe's answer when no sandbox should exist (a test of `BACKEND_UNAVAILABLE`). */
  constructor(private readonly unavailable?: { cause: string; fix: string }) {}

  /** Queues `results` for `command`, after any already queued. A command with none left exits 0 with no output. */
  script(command: string, ...results: ScriptedCommandResult[]): this {
    const queue = this.queues.get(command) ?? [];
    queue.push(...results);
    this.queues.set(command, queue);
    return this;
  }

  async probe(): Promise<SandboxSupport> {
    return this.known();
  }

  /** What `probe` answers: known from the start (nothing is probed). */
  known(): SandboxSupport {
    if (this.unavailable) return { available: false, ...this.unavailable, details: [] };
    return { available: true, kind: 'scripted', version: 'scripted', details: ['no process runs: results come from a script'] };
  }

  async start(request: SandboxRequest): Promise<RunningCommand> {
    if (this.unavailable) throw new SandboxUnavailableError(this.unavailable.cause, this.unavailable.fix);
    this.started.push(request);
    const text = 'shell' in request.command ? request.command.shell : request.command.argv.join(' ');
    const next = this.queues.get(text)?.shift() ?? {};
    const after = new Map<string, ScanEntry>();
    for (const path of next.changed ?? []) after.set(path, { type: 'f', size: 0, mtime: '0', inode: 0 });
    const stopped = next.timedOut === true || next.limit !== undefined;
    const run: SandboxRun = {
      exitCode: stopped ? null : (next.exitCode ?? 0),
      ...(stopped ? { signal: 'SIGKILL' } : {}),
      timedOut: next.timedOut === true,
      ...(next.limit ? { limit: next.limit } : {}),
      durationMs: 0,
      stdout: next.stdout ?? '',
      stderr: next.stderr ?? '',
      stdoutTruncated: false,
      stderrTruncated: false,
      ...(request.plan.scan ? { scan: { before: new Map(), after } } : {}),
    };
    let taken = false;
    let end: (killed: boolean) => void = () => {};
    const done = next.untilKilled
      ? new Promise<SandboxRun>((resolve) => {
          end = () => resolve({ ...run, exitCode: null, signal: 'SIGKILL' });
        })
      : Promise.resolve(run);
    return {
      takeOutput: () => {
        if (taken) return { stdout: '', stderr: '', truncated: false };
        taken = true;
        return { stdout: run.stdout, stderr: run.stderr, truncated: false };
      },
      done,
      kill: () => end(true),
    };
  }
}
