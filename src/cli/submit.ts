/**
 * `gatefs submit <conversation> --divergence TEXT [--summary S]`: queues a conversation's
 * committed work for the lander, as the agent's `submit` tool does. The checkout must be clean
 * (`DIRTY_WORKTREE` names what is not committed) and hold commits the target lacks
 * (`QUEUE_REJECTED`). Prints the submission id, its place in the queue and the request id its
 * report will carry.
 */
import { submitTool } from '../../tools/submit.js';
import { safeToolText } from './safe-tool-text.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import { UsageError } from './usage-error.js';

/** The `submit` command. */
export const submitCommand: Command = {
  name: 'submit',
  summary: "queue a conversation's committed work for the lander",
  usage: 'gatefs submit <conversation> --divergence TEXT [--summary TEXT]',
  positionals: ['conversation'],
  options: { divergence: { type: 'string' }, summary: { type: 'string' } },
  optionHelp: [
    ['--divergence TEXT', 'how the work differs from what was asked: "None" when it matches (required)'],
    ['--summary TEXT', 'what the work does, for the landing report and the note to whoever started the branch'],
  ],
  details: [
    'Then run the lander: gatefs lander run (or keep one running with --watch).',
    'Example:',
    '  gatefs submit fix-login --divergence None --summary "Retry login three times"',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'submit');
    const input = {
      divergence: flags.divergence,
      ...(flags.summary !== undefined ? { summary: flags.summary } : {}),
    };
    if (input.divergence === undefined)
      throw new UsageError('submit needs --divergence ("None" when the work matches the request)', 'submit');
    const checked = submitTool.validate(input);
    if (!checked.ok) throw new UsageError(`--${checked.message}`, 'submit');
    const value = await withHost(globals, async (host) => host.work(conversation).submit(checked.value));
    if (globals.json) out.json(value);
    else out.print(safeToolText('submit', { ok: true, value }));
    return 0;
  },
};
