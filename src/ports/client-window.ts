/**
 * `clientWindow`: the process that stands for the MCP client window which started this
 * `gatefs serve` (Claude Code, a Cursor window's extension host, a Codex session), named by pid
 * and start time (`processStart`). It is this process's parent, skipping the launchers a client
 * may start the server through and that live only as long as this server does: `npx`/`npm exec`
 * (a node running npm's CLI) and a shell (`sh -c`) or `env` running the command. A client that restarts
 * its server (reconnect) is the same process again; a new window is another.
 *
 * `GATEFS_WINDOW_PID` names the window process instead (a harness that starts servers through a
 * launcher of its own, or a test).
 *
 * Linux reads `/proc/<pid>/stat` and `/proc/<pid>/cmdline`; elsewhere the parent pid alone is the
 * window (start time unknown). One of the few files allowed to use `process` (docs/ARCHITECTURE.md
 * § Ports and determinism).
 */
import { readFileSync } from 'node:fs';
import type { ProcessIdentity } from './process-liveness.js';
import { processStart } from './node-process-liveness.js';

/** How many launchers may stand between the window and this server, at most. */
const MAX_LAUNCHERS = 4;

/** The client window's process (see the file comment). */
export function clientWindow(env: NodeJS.ProcessEnv = process.env): ProcessIdentity {
  const given = Number(env.GATEFS_WINDOW_PID);
  if (Number.isSafeInteger(given) && given > 0) return { pid: given, start: processStart(given) };
  let pid = process.ppid;
  for (let hops = 0; hops < MAX_LAUNCHERS && isLauncher(pid); hops++) {
    const parent = parentOf(pid);
    if (parent === null || parent <= 1) break;
    pid = parent;
  }
  return { pid, start: processStart(pid) };
}

/** The parent pid of `pid` (field 4 of `/proc/<pid>/stat`), or null when unknown. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isSafeInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/** True when `pid` runs npm's CLI (npx, npm exec), a shell given `-c`, or `env`: a launcher, not a window. */
function isLauncher(pid: number): boolean {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return false;
  }
  return isLauncherCommand(argv);
}

/** The rule of `isLauncher` on a command line (exported for its test). */
export function isLauncherCommand(argv: readonly string[]): boolean {
  const name = (argv[0] ?? '').split('/').pop() ?? '';
  if (['npx', 'npm', 'env'].includes(name)) return true;
  // `sh -c 'gatefs serve'` is a launcher; an interactive shell (a terminal tab) is a window.
  if (['sh', 'bash', 'dash', 'zsh'].includes(name)) return argv.includes('-c');
  if (/^node(\d+)?$/.test(name)) return /(^|\/)(npx-cli|npm-cli)\.js$/.test(argv[1] ?? '') || /(^|\/)(npx|npm)$/.test(argv[1] ?? '');
  return false;
}
