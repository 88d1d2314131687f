/**
 * The host-exec port: the one way gatefs runs a program on the host (git, mostly).
 *
 * A command is an argv array, never a shell string. Every command carries a task tag (which
 * task ran it: `prepare`, `release`, …) and the caller's conversation chain, so the host can
 * record it in the run log. Implementations: `NodeHostExec` (real processes) and
 * `ScriptedHostExec` (a fake that fails on any command it was not told to expect).
 */
import { CodedError } from '../../vfs/index.js';

/** One command to run. */
export interface ExecRequest {
  /** Program and arguments; `argv[0]` is looked up on PATH. Never passed to a shell. */
  argv: readonly string[];
  /** Working folder (an absolute host path). */
  cwd: string;
  /** Extra environment variables, merged over the host's environment. */
  env?: Readonly<Record<string, string>>;
  /** Kill the process (SIGKILL) after this many milliseconds; `timedOut` is then true. */
  timeoutMs?: number;
  /** The task that runs the command, for the run log (e.g. `prepare`, `release`). */
  tag: string;
  /** The caller's conversation chain, parent conversations first (may be empty). */
  chain: readonly string[];
  /**
   * Bytes written to the process's standard input, which is then closed. Chunks of an async
   * iterable are written one at a time, each after the pipe took the one before (backpressure),
   * so a large input never sits in memory at once; when the iterable throws, the program is ended
   * with SIGKILL (the result reports it; the error is the caller's to keep).
   */
  input?: string | Uint8Array | AsyncIterable<Uint8Array>;
  /**
   * Receives standard output as it arrives, as bytes, instead of the result's `stdout` (then '')
   * and its cap: for binary output and output of any length.
   */
  onStdout?: (chunk: Uint8Array) => void;
  /**
   * Which part of a stream longer than the cap is kept: `head` (the default) keeps the first
   * bytes, `tail` the last (what a failing check printed at the end). A tail cut at a byte that
   * is not the start of a UTF-8 character drops that character's remaining bytes.
   */
  keep?: 'head' | 'tail';
  /** Bytes kept of each of stdout and stderr for this command: at most the port's own cap. */
  maxOutputBytes?: number;
  /**
   * Run the program as the leader of a process group of its own and SIGKILL the whole group
   * on timeout and when the leader exits (so `sh -c 'sleep 100'` ends at its timeout and a
   * check leaves no background process behind). Off by default: a group of its own also means
   * the terminal's Ctrl-C no longer reaches the program.
   */
  processGroup?: boolean;
  /**
   * Ends the program with SIGKILL (its process group with `processGroup`) when the signal aborts,
   * also when it already has: for background work a host stops when it closes. The result then
   * reports `signal: 'SIGKILL'`; an abort is not a throw.
   */
  signal?: AbortSignal;
}

/** What a finished command did. A non-zero exit is a result, not a throw. */
export interface ExecResult {
  /** Exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the process, or null. */
  signal: string | null;
  /** Standard output as UTF-8 text, cut at the implementation's cap. */
  stdout: string;
  /** Standard error as UTF-8 text, cut at the implementation's cap. */
  stderr: string;
  /** True when the process was killed because `timeoutMs` passed. */
  timedOut: boolean;
  /** Wall time in milliseconds, as the implementation's clock measured it. */
  durationMs: number;
  /** True when stdout or stderr was longer than the cap and was cut. */
  outputTruncated?: boolean;
}

/** Runs host commands. Throws `HostExecError` only when the program cannot be started at all. */
export interface HostExec {
  run(request: ExecRequest): Promise<ExecResult>;
}

/** The conditions a `HostExecError` names (see the class). */
type HostExecErrorCode = 'SPAWN_FAILED' | 'UNEXPECTED_COMMAND' | 'EXPECTED_COMMAND_NOT_RUN' | 'EXEC_FORBIDDEN';

/**
 * A command that could not run: `SPAWN_FAILED` (the program is missing or not executable),
 * `UNEXPECTED_COMMAND` (a scripted fake was not told to expect it), `EXPECTED_COMMAND_NOT_RUN`
 * (a scripted fake's expectation was never met), `EXEC_FORBIDDEN` (a port
 * that refuses every command, used to prove a component never spawns).
 */
export class HostExecError extends CodedError<HostExecErrorCode, { readonly argv: readonly string[] }> {
  override readonly name = 'HostExecError';

  constructor(code: HostExecErrorCode, argv: readonly string[], detail: string, options?: { cause?: unknown }) {
    super(code, `${code}: ${argv.join(' ')}: ${detail}`, { argv }, options);
  }

  /** The command that could not run. */
  get argv(): readonly string[] {
    return this.data.argv;
  }
}

/** A host-exec port that refuses every command with `EXEC_FORBIDDEN`. */
export const forbiddenHostExec: HostExec = {
  async run(request) {
    throw new HostExecError('EXEC_FORBIDDEN', request.argv, 'this port runs no commands');
  },
};
