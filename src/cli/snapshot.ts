/**
 * `gatefs snapshot <conversation> [--label TEXT]`: takes a snapshot of a conversation's whole
 * workspace — tracked, untracked and ignored files, modes, empty folders, links as links; never
 * a mount — and prints its id, its files and bytes, and what it added to the store. The branch,
 * its commits and the index are never touched. `--json` prints the `SnapshotInfo`.
 */
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import { formatBytes, labelArg } from './snapshot-text.js';

/** The `snapshot` command. */
export const snapshotCommand: Command = {
  name: 'snapshot',
  summary: "save a conversation's whole workspace (untracked and ignored files too) as a snapshot to restore later",
  usage: 'gatefs snapshot <conversation> [--label TEXT]',
  positionals: ['conversation'],
  options: { label: { type: 'string' } },
  optionHelp: [['--label TEXT', 'a few words saying what state this is (one line, at most 200 characters)']],
  details: [
    'A snapshot holds every file of the workspace: tracked, untracked and ignored, with their modes,',
    'empty folders and symlinks (as links). Mounts outside the workspace are never in it. Unchanged',
    'files cost nothing. Snapshots are numbered per conversation (1, 2, …); gatefs snapshots lists them,',
    'gatefs restore returns the workspace to one. They go when the workspace is released, unless',
    'gatefs release --keep-snapshots.',
    'Examples:',
    '  gatefs snapshot fix-login --label "before the refactor"',
    '  gatefs restore fix-login 1',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'snapshot');
    const label = labelArg(flags.label, 'snapshot');
    const info = await withHost(globals, (host) =>
      host.snapshot(conversation, { ...(label === undefined ? {} : { label }), reason: 'manual' }),
    );
    if (globals.json) {
      out.json(info);
      return 0;
    }
    const named = info.label === null ? '' : ` (${JSON.stringify(info.label)})`;
    out.print(
      [
        // A copy's snapshot holds what it changed over its pinned files (which never change): say so.
        `snapshot ${info.snapshotId} of "${conversation}"${named}: ${info.files} file(s)${info.backend === 'copy' ? ' changed over its pinned files' : ''}, ${formatBytes(info.bytes)}; ${formatBytes(info.storedBytes)} new in the store`,
        `return to it with: gatefs restore ${conversation} ${info.snapshotId}`,
        ...(info.skipped > 0
          ? [
              `left out: ${info.skipped} entr${info.skipped === 1 ? 'y' : 'ies'} it cannot hold (FIFOs, sockets, devices, names that are not UTF-8; gatefs log --conversation ${conversation} names them)`,
            ]
          : []),
      ].join('\n'),
    );
    return 0;
  },
};
