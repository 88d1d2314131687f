/**
 * `CommandRequests`: the port `exec`, `exec_output`, `exec_kill` and `check` call to run
 * commands in the conversation's kernel sandbox (docs/ARCHITECTURE.md § Commands). Declared here,
 * by the tools that need it, so tools/ depends on nothing outside vfs/; the host implements it
 * (src/host/commands/command-service.ts) over the sandbox port — the tools and the gate never
 * spawn. A registration whose role declares a command tool has one (`Registration.commands`).
 *
 * Paths are namespace paths, already resolved and confined by the tool. Refusals are thrown as
 * `ToolFailure` with the public codes (`BACKEND_UNAVAILABLE` where no sandbox can run,
 * `NOT_FOUND` for an unknown run or check, `BUSY` past the background runs allowed).
 */

/** How one path changed during a command. */
export interface ChangedPath {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

/** The value of a command that ended (`exec`, `check`, and `exec_output` once a run is over). */
export interface ExecValue {
  /** The exit code; null when a signal, the timeout or a limit ended it. */
  exitCode: number | null;
  signal?: string;
  timedOut: boolean;
  /** The limit that ended it, when one did. */
  limit?: 'memory' | 'processes' | 'output';
  durationMs: number;
  /** The tail of stdout (and of stderr), within the tool's cap. */
  stdout: string;
  stderr: string;
  /** True when the front of stdout or stderr was cut. */
  truncated: boolean;
  /** Files the command added, modified or deleted in writable places (workspace-relative inside the workspace), capped. */
  changed: ChangedPath[];
  /** How many paths changed in all (more than `changed.length` when capped). */
  changedCount: number;
  /**
   * Changes a command made that were not kept, each with the code a file tool would have
   * answered (a `copy` workspace's command writing `.git` or `gatefs.yaml`: `PROTECTED_PATH`);
   * absent when every change was kept.
   */
  notKept?: { path: string; code: string; message: string }[];
  /** `exec` with the role's `exec: { checkpoint: true }`: the snapshot taken before the command (`rollback` to it undoes the command). */
  checkpoint?: string;
}

/** A started background run. */
export interface BackgroundValue {
  runId: string;
  /** The snapshot taken before the command, as for `ExecValue.checkpoint`. */
  checkpoint?: string;
}

/** What `exec_output` and `exec_kill` answer: the output since the last call, and the end once there is one. */
export interface RunOutputValue {
  runId: string;
  state: 'running' | 'ended';
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The run's result once `state` is `ended` (its `stdout`/`stderr` are this call's). */
  result?: ExecValue;
}

/** One diagnostic a check's output named. */
export interface CheckDiagnostic {
  path: string;
  line: number;
  column?: number;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

/** The value of `check`: the command's result and the diagnostics parsed from its output. */
export interface CheckValue extends ExecValue {
  name: string;
  diagnostics: CheckDiagnostic[];
}

/** One conversation's commands, as the tools see them. */
export interface CommandRequests {
  /**
   * Runs `command` (a shell line) with `cwd` (a namespace folder; absent: the active workspace's
   * anchor, read when the command starts); `background`: answers a run id at once.
   */
  exec(request: { command: string; cwd?: string; timeoutMs?: number; background: boolean }): Promise<ExecValue | BackgroundValue>;
  /** The output of a background run since the last call, waiting up to `waitMs` for it to end. */
  output(runId: string, waitMs: number): Promise<RunOutputValue>;
  /** Ends a background run (its whole process tree) and answers its end. */
  kill(runId: string): Promise<RunOutputValue>;
  /** Runs the operator-declared check `name` on `paths` (namespace paths). */
  check(name: string, paths: readonly string[]): Promise<CheckValue>;
}
