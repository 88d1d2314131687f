/**
 * `gatefs status`: one row per workspace (conversation, role, backend, guarantee, state,
 * branch, pinned sha, holder), as a table or, with `--json`, the `WorkspaceStatus` array.
 * A read-only look: where no state directory exists yet it says there are no workspaces and
 * creates nothing (the manifest is still checked).
 */
import type { Command } from './command.js';
import { withReadingHost } from './open-host.js';
import { hasNoState } from './state-presence.js';
import { formatStatusTable } from './status-table.js';

/** The `status` command. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'show every workspace: conversation, role, backend, guarantee, state, branch, pinned sha, holder, snapshots',
  usage: 'gatefs status [--json]',
  positionals: [],
  options: {},
  optionHelp: [],
  async run({ globals, out }) {
    const rows = (await hasNoState(globals)) ? [] : await withReadingHost(globals, async (host) => host.status());
    if (globals.json) out.json(rows);
    else out.print(formatStatusTable(rows));
    return 0;
  },
};
