/**
 * `gatefs restore <conversation> <snapshot>`: returns a conversation's workspace to exactly a
 * snapshot's files, modes and folders. It first takes a snapshot of the workspace as it is, and
 * prints its id: restoring that one undoes the restore. Files only: the branch, its commits and
 * the index stay as they are. An unknown id is `SNAPSHOT_NOT_FOUND` naming the ids there are.
 */
import type { RestoreResult } from '../host/composition/index.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import { withAvailableIds } from './snapshot-text.js';
import { UsageError } from './usage-error.js';

/** The `restore` command. */
export const restoreCommand: Command = {
  name: 'restore',
  summary: "return a conversation's workspace to a snapshot (the state before is kept as a new snapshot)",
  usage: 'gatefs restore <conversation> <snapshot>',
  positionals: ['conversation', 'snapshot'],
  options: {},
  optionHelp: [],
  details: [
    'Every file of the workspace becomes what the snapshot holds: changed files are put back, files',
    'added since are removed, removed ones come back (untracked and ignored ones too). Mounts outside',
    'the workspace are never touched. Nothing is lost: the state before is saved first as a new',
    'snapshot, and restoring it undoes the restore. The branch and its commits are not moved.',
    'Examples:',
    '  gatefs restore fix-login 1',
    '  gatefs snapshots fix-login     (the ids)',
  ].join('\n'),
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'restore');
    const snapshotId = args[1]!;
    if (!/^[1-9][0-9]{0,15}$/.test(snapshotId)) {
      throw new UsageError(
        `"${snapshotId.slice(0, 40)}" is not a snapshot id: ids are numbers (1, 2, …); gatefs snapshots ${conversation} lists them`,
        'restore',
      );
    }
    let result: RestoreResult;
    try {
      result = await withHost(globals, (host) => host.restore(conversation, snapshotId));
    } catch (e) {
      throw withAvailableIds(e, conversation);
    }
    if (globals.json) {
      out.json(result);
      return 0;
    }
    out.print(
      [
        `restored "${conversation}" to snapshot ${result.snapshotId}: ${result.written} entries written, ${result.removed} removed`,
        `the state before is snapshot ${result.before.snapshotId}: gatefs restore ${conversation} ${result.before.snapshotId} undoes this`,
      ].join('\n'),
    );
    return 0;
  },
};
