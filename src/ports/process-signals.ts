/**
 * Signals: listening for the ones sent to this process, and sending signal 0 (a probe) or
 * SIGKILL. Only this file and the other host ports name the global `process` (STYLE.md 4).
 *
 * Limits: a probe answers for a pid, not for a process: a pid the kernel handed to a new process
 * answers like the old one (`node-process-liveness.ts` adds the start time for that). A pid in
 * another pid namespace (another container) is not found.
 */
import { foreignCodeOf } from '../../vfs/index.js';

/**
 * Calls `listener` with the signal's name each time one of `signals` arrives (`process.on`,
 * one handler per signal; while any is installed, Node's default action for that signal is
 * off). Returns the function that removes them again.
 */
export function onSignals<S extends NodeJS.Signals>(signals: readonly S[], listener: (signal: S) => void): () => void {
  const handlers = signals.map((signal) => [signal, () => listener(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

/** Sends SIGKILL to this process (`process.kill(process.pid, 'SIGKILL')`): it ends without running anything more. */
export function killThisProcess(): void {
  process.kill(process.pid, 'SIGKILL');
}

/**
 * True when a process with `pid` exists: signal 0 reached it, or was refused because it belongs
 * to another user (EPERM). False for no such process and for a pid Node refuses.
 */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return foreignCodeOf(e) === 'EPERM';
  }
}

/**
 * True only when signal 0 to `pid` failed with ESRCH (no such process). Any other failure (EPERM,
 * a pid Node refuses) answers false: the safe side for taking over what that pid holds.
 */
export function isPidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return foreignCodeOf(e) === 'ESRCH';
  }
}
