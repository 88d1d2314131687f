/**
 * `gatefs prepare <conversation> [--role R] [--run RUN] [--base REF] [--branch NAME]`: runs the preparation task (a
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
  usage: 'gatefs prepare <conversation> [--role R] [--run RUN] [--base REF] [--branch NAME] [--agent NAME]',
  positionals: ['conversation'],
  options: {
    role: { type: 'string' },
    run: { type: 'string' },
    base: { type: 'string' },
    branch: { type: 'string' },
    agent: { type: 'string' },
  },
  optionHelp: [
    ['--role R', 'the manifest role (default: the first role)'],
    [
      '--agent NAME',
      "the agent identity, whose home the conversation sees at /home (default: the role's name); a prepared conversation keeps its own",
    ],
    [
      '--run RUN',
      "the run the conversation takes its turn in (default: default); it is the role's visit n there, at most max_visits; a prepared conversation stays in its run",
    ],
    ['--base REF', 'the commit, branch or tag to pin (default: HEAD of the repository); a prepared workspace keeps its own'],
    [
      '--branch NAME',
      'worktree only: the branch to work on (default gatefs/<conversation>); made at the base when missing, an existing one taken when the base is in its history',
    ],
  ],
  details: 'Example: gatefs prepare fix-login --role implementer --run login-fix',
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'prepare');
    const role = typeof flags.role === 'string' ? flags.role : undefined;
    const baseRef = typeof flags.base === 'string' ? flags.base : undefined;
    const branch = typeof flags.branch === 'string' ? flags.branch : undefined;
    const run = typeof flags.run === 'string' ? flags.run : undefined;
    const agent = typeof flags.agent === 'string' ? flags.agent : undefined;
    const status = await withHost(globals, async (host) => {
      const started = systemClock.now();
      const existing = host.status().find((w) => w.conversation === conversation && w.state === 'ready');
      if (!existing)
        out.progress(
          `preparing "${conversation}"${role ? ` as ${role}` : ''}${run ? ` in run ${run}` : ''}${baseRef ? ` from ${baseRef}` : ''}${branch !== undefined ? ` on ${JSON.stringify(branch)}` : ''}…`,
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
          ...(agent !== undefined ? { agent } : {}),
          ...(baseRef ? { baseRef } : {}),
          ...(branch !== undefined ? { branch } : {}),
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
