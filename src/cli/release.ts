/**
 * `gatefs release <conversation> [--delete-branch] [--discard] [--force]`: takes a workspace
 * out of service and removes it. Work — changed, untracked and ignored files — is kept: the
 * release is refused with DIRTY_WORKTREE naming the files unless `--discard`; a live session
 * holding the workspace refuses it with OCCUPIED unless `--force`. A refused or failed release
 * leaves the workspace serving. The branch is deleted only with `--delete-branch` and only
 * when git proves it merged; `--discard` never deletes a branch or its commits. The workspace's
 * snapshots go with it unless `--keep-snapshots`.
 */
import type { Command } from './command.js';
import { withHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';

/** The `release` command. */
export const releaseCommand: Command = {
  name: 'release',
  summary: "release a conversation's workspace (keeps uncommitted work and live sessions unless told otherwise)",
  usage: 'gatefs release <conversation> [--delete-branch] [--discard] [--force] [--keep-snapshots]',
  positionals: ['conversation'],
  options: {
    'delete-branch': { type: 'boolean' },
    discard: { type: 'boolean' },
    force: { type: 'boolean' },
    'keep-snapshots': { type: 'boolean' },
  },
  optionHelp: [
    ['--delete-branch', 'also delete the branch gatefs/<conversation>, only when it is merged into its base'],
    ['--discard', 'delete uncommitted work too (changed, untracked and ignored files); the branch and its commits are kept'],
    ['--force', 'release even while a live session (an MCP server) holds the workspace; its occupancy is ended'],
    ['--keep-snapshots', "keep the conversation's snapshots (gatefs snapshots lists them); without it they go with the workspace"],
  ],
  details: [
    'Without --discard, a workspace holding changed, untracked or ignored files is not released:',
    'the refusal (DIRTY_WORKTREE) names them, and the workspace keeps serving. Commit the work on',
    'its branch, or pass --discard. A refused or failed release changes nothing.',
    'Examples:',
    '  gatefs release fix-login',
    '  gatefs release fix-login --discard --delete-branch',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'release');
    const keepSnapshots = flags['keep-snapshots'] === true;
    const options = {
      deleteBranch: flags['delete-branch'] === true,
      discard: flags.discard === true,
      force: flags.force === true,
      ...(keepSnapshots ? { keepSnapshots } : {}),
    };
    const { result, backend } = await withHost(globals, async (host) => {
      const backend = host.status().find((w) => w.conversation === conversation)?.backend;
      return { result: await host.release(conversation, options), backend };
    });
    if (globals.json) {
      out.json(result);
      return 0;
    }
    const what = result.removed
      ? 'workspace removed'
      : backend === 'shared'
        ? 'the shared checkout is left as it is'
        : 'workspace was already gone';
    const lines = [`released "${result.conversation}": ${what}`];
    if (result.discarded)
      lines.push(
        backend === 'copy'
          ? "the copy's changed and new files were discarded"
          : backend === 'empty'
            ? "the scratch folder's files were discarded"
            : 'uncommitted work was discarded (the branch and its commits are kept)',
      );
    if (keepSnapshots) lines.push(`its snapshots are kept: gatefs snapshots ${result.conversation} lists them`);
    else if (result.snapshotsDropped)
      lines.push(`its ${result.snapshotsDropped} snapshot(s) went with it (--keep-snapshots keeps them next time)`);
    if (result.forcedHolders?.length) lines.push(`ended the occupancy of ${result.forcedHolders.join(', ')}`);
    if (result.bindingsEnded?.length)
      lines.push(
        `ended the binding of this workspace by ${result.bindingsEnded.join(', ')} (they no longer see /worktrees/${conversation})`,
      );
    if (flags['delete-branch']) {
      lines.push(result.branchDeleted ? 'branch deleted' : `branch kept${result.branchKeptReason ? `: ${result.branchKeptReason}` : ''}`);
    }
    out.print(lines.join('\n'));
    return 0;
  },
};
