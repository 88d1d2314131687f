/**
 * `gatefs snapshots <conversation>`: a conversation's snapshots, oldest first, as a table (id,
 * when, who took it, label, files, size) or, with `--json`, the `SnapshotInfo` array. A read-only
 * look: it opens the host quietly.
 */
import { WorkspaceError } from '../workspace-error.js';
import type { SnapshotInfo } from '../host/composition/index.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withReadingHost } from './open-host.js';
import { formatBytes } from './snapshot-text.js';
import { formatTable } from './table.js';

/** The `snapshots` command. */
export const snapshotsCommand: Command = {
  name: 'snapshots',
  summary: "list a conversation's snapshots: id, when, why, label, files, size",
  usage: 'gatefs snapshots <conversation> [--json]',
  positionals: ['conversation'],
  options: {},
  optionHelp: [],
  details: [
    "REASON says who took a snapshot: manual (gatefs snapshot), checkpoint (the agent's checkpoint tool),",
    'exec (before a command, with exec: { checkpoint: true }), restore (the state before a restore,',
    'so the restore can be undone), fork (a subagent started --from working). WHEN is UTC.',
    'Examples:',
    '  gatefs snapshots fix-login',
    '  gatefs snapshots fix-login --json',
  ].join('\n'),
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'snapshots');
    const list = await withReadingHost(globals, async (host) => {
      const found = host.snapshots(conversation);
      // Kept snapshots of a released workspace are listed; a conversation gatefs never saw is a mistake worth saying.
      if (found.length === 0 && !host.status().some((s) => s.conversation === conversation)) {
        throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
      }
      return found;
    });
    if (globals.json) out.json(list);
    else out.print(formatSnapshotTable(conversation, list));
    return 0;
  },
};

/** The table of `gatefs snapshots` (a line saying there are none when there are none). */
export function formatSnapshotTable(conversation: string, list: readonly SnapshotInfo[]): string {
  if (list.length === 0) return `"${conversation}" has no snapshots. Take one with: gatefs snapshot ${conversation}`;
  return formatTable(
    ['ID', 'WHEN', 'REASON', 'LABEL', 'FILES', 'SIZE'],
    list.map((s) => [s.snapshotId, whenOf(s.createdAt), s.reason, s.label, s.files, formatBytes(s.bytes)]),
  );
}

/** A clock time as `2026-12-07 11:10:07` (UTC). */
function whenOf(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
