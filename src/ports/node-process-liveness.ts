/**
 * `nodeProcessLiveness`: the real process-liveness port.
 *
 * - Linux: a process's start time is field 22 of `/proc/<pid>/stat` (clock ticks after boot),
 *   prefixed with this boot's id (`/proc/sys/kernel/random/boot_id`), so neither a reused pid
 *   nor a reboot makes a dead process look alive. The stat line is parsed after the last `)`,
 *   since the command name in field 2 may itself hold spaces and parentheses.
 * - Elsewhere (no `/proc`): the start is unknown (null) and liveness is `kill(pid, 0)` alone;
 *   a reused pid then keeps a dead holder's claim until that new process ends — the safe side,
 *   documented in the README.
 *
 * Every process sharing a state directory must run on this machine in one pid namespace: a
 * holder in another container's pid namespace is not found here and counts as gone.
 *
 * One of the few files allowed to use `process` (STYLE.md 4).
 */
import { readFileSync } from 'node:fs';
import type { ProcessIdentity, ProcessLiveness } from './process-liveness.js';
import { foreignCodeOf } from '../../vfs/index.js';

let bootId: string | null | undefined;

function currentBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * The start token of `pid` (`<boot id>:<start ticks>`), or null when `/proc/<pid>/stat` cannot
 * be read (no such process, or no procfs).
 */
export function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const ticks = startTicksOf(stat);
  return ticks === null ? null : `${currentBootId() ?? 'boot'}:${ticks}`;
}

/**
 * Field 22 (starttime) of a `/proc/<pid>/stat` line, or null when the line is not one. Fields
 * are counted after the last `)`: the command name (field 2, in parentheses) may hold spaces
 * and parentheses of its own.
 */
export function startTicksOf(stat: string): string | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const fields = stat.slice(close + 2).split(' ');
  const ticks = fields[22 - 3];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : null;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return foreignCodeOf(e) === 'EPERM';
  }
}

/** The liveness port of this machine (see the file comment). */
export const nodeProcessLiveness: ProcessLiveness = {
  self: { pid: process.pid, start: processStart(process.pid) },
  isAlive(id: ProcessIdentity): boolean {
    if (!Number.isSafeInteger(id.pid) || id.pid <= 0) return false;
    if (!pidExists(id.pid)) return false;
    if (id.start === null) return true;
    const now = processStart(id.pid);
    // No procfs here (or the process ended between the two checks): trust the pid answer.
    return now === null ? pidExists(id.pid) : now === id.start;
  },
};
