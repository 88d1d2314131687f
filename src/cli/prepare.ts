/**
 * `gatefs prepare <conversation> [--role R] [--run RUN] [--base REF]`: runs the preparation task (a
 * git worktree or copy pinned at a commit), gives the conversation its visit of the role in the run,
 * and prints the ready workspace. Progress goes to stderr.
 */
import type { Command } from './command.js';
import { withHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { formatStatusTable } from './status-table.js';
import type { WorkspaceStatus } from '../host/composition/index.js';
import { systemClock } from '../ports/clock.js';

/** The `prepare` command. */
export const prepareCommand: Command = {
  name: 'prepare',
  summary: "prepare a conversation's workspace (idempotent: an existing one is reused)",
  usage: 'gatefs prepare <conversation> [--role R] [--run RUN] [--base REF]',
  positionals: ['conversation'],
  options: { role: { type: 'string' }, run: { type: 'string' }, base: { type: 'string' } },
  optionHelp: [
    ['--role R', 'the manifest role (default: the first role)'],
    [
      '--run RUN',
      "the run the conversation takes its turn in (default: default); it is the role's visit n there, at most max_visits; a prepared conversation stays in its run",
    ],
    ['--base REF', 'the commit, branch or tag to pin (default: HEAD of the repository); a prepared workspace keeps its own'],
  ],
  details: 'Example: gatefs prepare fix-login --role implementer --run login-fix',
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'prepare');
    const role = typeof flags.role === 'string' ? flags.role : undefined;
    const baseRef = typeof flags.base === 'string' ? flags.base : undefined;
    const run = typeof flags.run === 'string' ? flags.run : undefined;
    const status = await withHost(globals, async (host) => {
      const started = systemClock.now();
      const existing = host.status().find((w) => w.conversation === conversation && w.state === 'ready');
      if (!existing)
        out.progress(
          `preparing "${conversation}"${role ? ` as ${role}` : ''}${run ? ` in run ${run}` : ''}${baseRef ? ` from ${baseRef}` : ''}…`,
        );
      const ticker = setInterval(
        () => out.progress(`still preparing "${conversation}" (${Math.round((systemClock.now() - started) / 1000)} s)`),
        3000,
      );
      ticker.unref();
      try {
        const ready = await host.prepare({
          conversation,
          ...(role ? { role } : {}),
          ...(run !== undefined ? { run } : {}),
          ...(baseRef ? { baseRef } : {}),
        });
        if (existing)
          out.progress(
            `"${conversation}" was already prepared (role ${ready.role}${visitText(ready)}, pinned ${ready.pinnedSha?.slice(0, 12) ?? 'no commit'}): reused as it is`,
          );
        else
          out.progress(`"${conversation}" is ${ready.state}${visitText(ready)} (${((systemClock.now() - started) / 1000).toFixed(1)} s)`);
        return ready;
      } finally {
        clearInterval(ticker);
      }
    });
    if (globals.json) out.json(status);
    else out.print(formatStatusTable([status]));
    return 0;
  },
};

/** `, visit 2 of run r1` for a workspace with a visit, else nothing. */
function visitText(status: WorkspaceStatus): string {
  return status.run === null ? '' : `, visit ${status.visit} of run ${status.run}`;
}
