/**
 * The check port: runs one lander check (docs/ARCHITECTURE.md § Lander) in a checkout and says
 * how it ended. `ExecCheckRunner` runs it through the host-exec port; `ScriptedCheckRunner`
 * (scripted-check-runner.ts) answers from a script for the memory host and tests.
 */
import { foreignCodeOf } from '../../vfs/index.js';
import { HostExecError, type HostExec } from './host-exec.js';

/** One check as settings describe it (src/manifest/settings.ts builds these). */
export interface CheckSpec {
  /** The name reports use: the settings' `name`, or the command text cut at 60 characters. */
  name: string;
  /** Program and arguments, from the shell-free split of `command` (never run through a shell). */
  argv: string[];
  /** Kill the check (and everything it started) after this many milliseconds. */
  timeoutMs: number;
  /** The command as written in the settings. */
  command: string;
}

/** How a check ended. A failing or timed-out check is a result, never a throw. */
export interface CheckRun {
  /** The exit code; null when the check was killed (timeout, signal) or could not start. */
  exitCode: number | null;
  /** True when the check ran past its timeout and was killed. */
  timedOut: boolean;
  /** Wall time in milliseconds, as the port measured it. */
  durationMs: number;
  /** The end of what the check printed: stdout's tail, then stderr's (see `CHECK_OUTPUT_BYTES`). */
  output: string;
  /** True when the output was cut (each cut stream starts with `…`). */
  truncated: boolean;
}

/** Runs checks. */
export interface CheckRunner {
  /**
   * Runs `check` with `cwd` (an absolute host path: the lander's detached checkout) as its
   * working folder, on behalf of `chain` (the submitter's conversation chain, parents first).
   */
  run(check: CheckSpec, cwd: string, chain: readonly string[]): Promise<CheckRun>;
}

/** Bytes of output a `CheckRun` keeps: 8 KiB, shared by stdout and stderr. */
export const CHECK_OUTPUT_BYTES = 8 * 1024;

/** The host-exec task tag of a check. */
const CHECK_TAG = 'lander.check';

/**
 * The real check port over a `HostExec`: each check runs with tag `lander.check`, the
 * submitter's chain, the check's timeout, as a process group of its own (so a timeout or the
 * check's exit also ends what it started), keeping the tail of each stream. Output: stdout's
 * tail then stderr's, within `CHECK_OUTPUT_BYTES` (see `checkOutput`). A program that cannot be
 * started (`SPAWN_FAILED`) is a failed check: exit code null, the reason as output. Any other
 * `HostExecError` (a refusing or scripted port) is thrown.
 */
export class ExecCheckRunner implements CheckRunner {
  constructor(private readonly exec: HostExec) {}

  async run(check: CheckSpec, cwd: string, chain: readonly string[]): Promise<CheckRun> {
    try {
      const r = await this.exec.run({
        argv: check.argv,
        cwd,
        chain,
        tag: CHECK_TAG,
        timeoutMs: check.timeoutMs,
        keep: 'tail',
        maxOutputBytes: CHECK_OUTPUT_BYTES,
        processGroup: true,
      });
      const { output, truncated } = checkOutput(r.stdout, r.stderr, r.outputTruncated === true);
      return { exitCode: r.timedOut ? null : r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs, output, truncated };
    } catch (e) {
      if (!(e instanceof HostExecError) || e.code !== 'SPAWN_FAILED') throw e;
      const reason = foreignCodeOf(e.cause) ?? 'it cannot be started';
      return {
        exitCode: null,
        timedOut: false,
        durationMs: 0,
        output: `gatefs: the check '${check.name}' could not start ${JSON.stringify(check.argv[0] ?? '')}: ${reason}`,
        truncated: false,
      };
    }
  }
}

/**
 * Joins a check's stdout and stderr into one output of at most `maxBytes` UTF-8 bytes: stdout
 * first, then stderr on a line of its own. When both do not fit, stderr gets up to half (more
 * when stdout needs less) and stdout the rest; each cut stream keeps its end and starts with
 * `…`. `alreadyCut` (the exec port dropped bytes) also marks the result truncated.
 */
export function checkOutput(
  stdout: string,
  stderr: string,
  alreadyCut = false,
  maxBytes = CHECK_OUTPUT_BYTES,
): { output: string; truncated: boolean } {
  const out = Buffer.from(stdout, 'utf8');
  const err = Buffer.from(stderr, 'utf8');
  const gap = out.length > 0 && err.length > 0 && out[out.length - 1] !== 0x0a ? 1 : 0;
  if (out.length + gap + err.length <= maxBytes) {
    return { output: `${stdout}${gap ? '\n' : ''}${stderr}`, truncated: alreadyCut };
  }
  const room = maxBytes - 1; // a newline between the two, always, once cut
  const errRoom = Math.min(err.length, Math.max(Math.floor(room / 2), room - out.length));
  const outText = tailText(out, room - errRoom);
  const errText = tailText(err, errRoom);
  const joined = outText !== '' && errText !== '' && !outText.endsWith('\n') ? `${outText}\n${errText}` : `${outText}${errText}`;
  return { output: joined, truncated: true };
}

/** The last `maxBytes` bytes of `bytes` as text, starting with `…` (counted) when cut. */
function tailText(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  const mark = '…';
  const keep = Math.max(0, maxBytes - Buffer.byteLength(mark));
  let start = bytes.length - keep;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return keep === 0 ? '' : `${mark}${bytes.subarray(start).toString('utf8')}`;
}
