/**
 * `gatefs release <conversation> [--delete-branch]`: removes a clean workspace (a dirty one is
 * refused with DIRTY_WORKTREE) and deletes its branch only when git proves it merged.
 */
import type { Command } from './command.js';
import { withHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';

/** The `release` command. */
export const releaseCommand: Command = {
  name: 'release',
  summary: "release a conversation's workspace (refuses one with uncommitted changes)",
  usage: 'gatefs release <conversation> [--delete-branch]',
  positionals: ['conversation'],
  options: { 'delete-branch': { type: 'boolean' } },
  optionHelp: [['--delete-branch', 'also delete the branch, only when it is merged into its base']],
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'release');
    const result = await withHost(globals, (host) => host.release(conversation, { deleteBranch: flags['delete-branch'] === true }));
    if (globals.json) {
      out.json(result);
      return 0;
    }
    const lines = [`released "${result.conversation}": workspace ${result.removed ? 'removed' : 'was already gone'}`];
    if (flags['delete-branch']) {
      lines.push(result.branchDeleted ? 'branch deleted' : `branch kept${result.branchKeptReason ? `: ${result.branchKeptReason}` : ''}`);
    }
    out.print(lines.join('\n'));
    return 0;
  },
};
