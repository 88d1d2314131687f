/**
 * `gatefs init`: writes a starter `gatefs.yaml` (kept when one exists) and creates the state
 * directory by opening the host once. Idempotent: running it twice changes nothing.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from './command.js';
import { withHost } from './open-host.js';
import { checkRepoFolder, isInGitWorkTree } from './repo-folder-check.js';
import { workingFolder } from '../ports/process-io.js';

/** The `init` command. */
export const initCommand: Command = {
  name: 'init',
  summary: 'write a starter gatefs.yaml and create the state directory (safe to run again)',
  usage: 'gatefs init [--repo DIR] [--manifest FILE]',
  positionals: [],
  options: {},
  optionHelp: [],
  details: 'Edit gatefs.yaml afterwards to add roles, mounts and disclosure policies.',
  async run({ globals, out }) {
    checkRepoFolder({ repo: globals.repo, given: globals.repoGiven });
    const manifestPath = globals.manifest ?? join(globals.repo, 'gatefs.yaml');
    const existed = existsSync(manifestPath);
    const { starterManifestText } = await import('../manifest/index.js');
    // Outside any git repository a worktree cannot be made: the starter's role is a copy there.
    const backend = isInGitWorkTree(globals.repo) ? 'worktree' : 'copy';
    if (!existed) writeFileSync(manifestPath, starterManifestText({ backend }), { flag: 'wx' });
    const stateDir = globals.stateDir ?? join(globals.repo, '.gatefs');
    const stateExisted = existsSync(stateDir);
    await withHost({ ...globals, manifest: manifestPath }, async () => undefined);
    const shown = (p: string) => relative(workingFolder(), p) || '.';
    const result = { manifest: manifestPath, manifestCreated: !existed, stateDir, stateDirCreated: !stateExisted };
    if (globals.json) out.json(result);
    else {
      out.print(
        [
          `${existed ? 'kept existing' : 'wrote'} ${shown(manifestPath)}`,
          `${stateExisted ? 'state directory already at' : 'created state directory'} ${shown(stateDir)}`,
          'Next: gatefs prepare <conversation>, then gatefs serve --conversation <conversation>',
        ].join('\n'),
      );
    }
    return 0;
  },
};
