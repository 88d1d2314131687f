/**
 * `gatefs prepare <conversation> [--role R] [--base REF]`: runs the preparation task (a git
 * worktree or copy pinned at a commit) and prints the ready workspace. Progress goes to stderr.
 */
import type { Command } from './command.js';
import { withHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { formatStatusTable } from './status-table.js';
import { systemClock } from '../ports/clock.js';

/** The `prepare` command. */
export const prepareCommand: Command = {
  name: 'prepare',
  summary: "prepare a conversation's workspace (idempotent: an existing one is reused)",
  usage: 'gatefs prepare <conversation> [--role R] [--base REF]',
  positionals: ['conversation'],
  options: { role: { type: 'string' }, base: { type: 'string' } },
  optionHelp: [
    ['--role R', 'the manifest role (default: the first role)'],
    ['--base REF', 'the commit, branch or tag to pin (default: HEAD of the repository); a prepared workspace keeps its own'],
  ],
  details: 'Example: gatefs prepare fix-login --role implementer',
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'prepare');
    const role = typeof flags.role === 'string' ? flags.role : undefined;
    const baseRef = typeof flags.base === 'string' ? flags.base : undefined;
    const status = await withHost(globals, async (host) => {
      const started = systemClock.now();
      const existing = host.status().find((w) => w.conversation === conversation && w.state === 'ready');
      if (!existing) out.progress(`preparing "${conversation}"${role ? ` as ${role}` : ''}${baseRef ? ` from ${baseRef}` : ''}…`);
      const ticker = setInterval(
        () => out.progress(`still preparing "${conversation}" (${Math.round((systemClock.now() - started) / 1000)} s)`),
        3000,
      );
      ticker.unref();
      try {
        const ready = await host.prepare({ conversation, ...(role ? { role } : {}), ...(baseRef ? { baseRef } : {}) });
        if (existing)
          out.progress(
            `"${conversation}" was already prepared (role ${ready.role}, pinned ${ready.pinnedSha?.slice(0, 12) ?? 'no commit'}): reused as it is`,
          );
        else out.progress(`"${conversation}" is ${ready.state} (${((systemClock.now() - started) / 1000).toFixed(1)} s)`);
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
