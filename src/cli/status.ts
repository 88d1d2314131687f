/**
 * `gatefs status`: one row per workspace (conversation, role, backend, guarantee, state,
 * branch, pinned sha, holder), as a table or, with `--json`, the `WorkspaceStatus` array.
 * A read-only look: where no state directory exists yet it says there are no workspaces and
 * creates nothing (the manifest is still checked).
 */
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from './command.js';
import type { GlobalFlags } from './global-flags.js';
import { withHost } from './open-host.js';
import { checkRepoFolder } from './repo-folder-check.js';
import { formatStatusTable } from './status-table.js';

/** The `status` command. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'show every workspace: conversation, role, backend, guarantee, state, branch, pinned sha, holder',
  usage: 'gatefs status [--json]',
  positionals: [],
  options: {},
  optionHelp: [],
  async run({ globals, out }) {
    const rows = (await isUntouched(globals)) ? [] : await withHost(globals, async (host) => host.status());
    if (globals.json) out.json(rows);
    else out.print(formatStatusTable(rows));
    return 0;
  },
};

/**
 * True when the repository folder exists and nothing is at its state directory's path (not even
 * a link): there are no workspaces, and opening the host would only create the state directory.
 * Throws what `checkRepoFolder` and the manifest loader throw, as opening the host would.
 */
async function isUntouched(globals: GlobalFlags): Promise<boolean> {
  checkRepoFolder({ repo: globals.repo, given: globals.repoGiven });
  if (!statSync(globals.repo, { throwIfNoEntry: false })?.isDirectory()) return false;
  if (lstatSync(globals.stateDir ?? join(globals.repo, '.gatefs'), { throwIfNoEntry: false })) return false;
  const { loadManifest } = await import('../manifest/index.js');
  loadManifest(globals.manifest);
  return true;
}
