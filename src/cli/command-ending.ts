/**
 * How `gatefs exec` and `gatefs check` end: the exit code a shell script can test, the line
 * saying why when the command did not exit by itself, and the files it changed.
 *
 * The exit code is the command's own when it exited; otherwise, as a shell and `timeout(1)`
 * report them: 124 for a timeout, 128 + the signal's number for a signal (137, SIGKILL, for a
 * limit the sandbox ended it at).
 */
import { constants } from 'node:os';
import type { ExecValue } from '../../tools/index.js';
import { terminalSafeLine } from '../../tools/text/index.js';

/** The exit code of `timeout(1)` for a command it ended. */
const TIMED_OUT = 124;

/** What each limit is, in the words of gatefs.yaml. */
const LIMITS: Readonly<Record<string, string>> = {
  memory: "the memory limit (the role's exec.memory)",
  processes: "the processes limit (the role's exec.processes)",
  output: "the output limit (the role's exec.output, per stream)",
};

/** The exit code for `value`, and the line saying how the command ended when it did not exit by itself. */
export function commandEnding(value: ExecValue): { code: number; said?: string } {
  const all = 'the command and every process it started were ended';
  if (value.timedOut) return { code: TIMED_OUT, said: `timed out after ${seconds(value.durationMs)}: ${all}` };
  if (value.limit) return { code: 128 + signalNumber('SIGKILL'), said: `passed ${LIMITS[value.limit] ?? value.limit}: ${all}` };
  if (value.exitCode !== null) {
    return value.signal
      ? { code: value.exitCode, said: `ended by ${value.signal} (exit code ${value.exitCode})` }
      : { code: value.exitCode };
  }
  if (value.signal) return { code: 128 + signalNumber(value.signal), said: `ended by ${value.signal}` };
  return { code: 1, said: 'ended without an exit code' };
}

/** `ms` as a person reads a duration: `42 ms`, `1.4 s`, `12 s`. */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** The lines naming the files the command changed (none when it changed none), each path on its line only. */
export function changedLines(value: ExecValue): string[] {
  if (value.changedCount === 0) return [];
  const letter: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D' };
  const n = value.changedCount;
  const lines = [`${n} file${n === 1 ? '' : 's'} changed:`];
  for (const c of value.changed) lines.push(`  ${letter[c.status] ?? '?'} ${terminalSafeLine(c.path)}`);
  if (n > value.changed.length) lines.push(`  … and ${n - value.changed.length} more`);
  return lines;
}

/** The number of signal `name` (`SIGKILL` → 9), or 0 for a name this platform lacks. */
function signalNumber(name: string): number {
  return (constants.signals as Record<string, number>)[name] ?? 0;
}
