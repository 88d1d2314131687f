/**
 * `gatefs commit <conversation> -m MSG [--path P]...`: commits a conversation's changes on its
 * branch, as the agent's `commit` tool does (hooks, filters, fsmonitor, signing and the user's
 * global config neutralised; the author is the conversation). Prints the commit and its files.
 */
import { COMMIT_MAX_MESSAGE } from '../../tools/commit.js';
import { safeToolText } from './safe-tool-text.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import { UsageError } from './usage-error.js';
import { workspacePaths } from './workspace-path-flag.js';

/** The `commit` command. */
export const commitCommand: Command = {
  name: 'commit',
  summary: "commit a conversation's changes on its branch (nothing the repository configures runs)",
  usage: 'gatefs commit <conversation> -m MSG [--path P]...',
  positionals: ['conversation'],
  options: { message: { type: 'string', short: 'm' }, path: { type: 'string', multiple: true } },
  optionHelp: [
    ['-m, --message MSG', 'the commit message (required)'],
    ['--path P', 'commit only this file or folder of the workspace (repeatable; default: every change)'],
  ],
  details: ['Example:', '  gatefs commit fix-login -m "Retry login three times"'].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'commit');
    const message = flags.message;
    if (typeof message !== 'string' || message.trim() === '') throw new UsageError('commit needs a message: -m "…"', 'commit');
    if (message.length > COMMIT_MAX_MESSAGE) {
      throw new UsageError(`the commit message is ${message.length} characters; at most ${COMMIT_MAX_MESSAGE}`, 'commit');
    }
    const paths = workspacePaths(flags.path, 'commit');
    const value = await withHost(globals, async (host) =>
      host.work(conversation).commit({ message, ...(paths.length > 0 ? { paths } : {}) }),
    );
    if (globals.json) out.json(value);
    else out.print(safeToolText('commit', { ok: true, value }));
    return 0;
  },
};
