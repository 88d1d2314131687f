/**
 * `gatefs diff <conversation> [--path P] [--base pinned|head]`: what a conversation changed in
 * its workspace, the same answer the agent's `diff` tool gives (git run host-side with
 * everything the repository could make it execute switched off). Prints the changed files and
 * the unified patch; `--json` prints the tool's value.
 */
import { DIFF_MAX_PATCH_BYTES } from '../../tools/diff.js';
import { safeToolText } from './safe-tool-text.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withReadingHost } from './open-host.js';
import { UsageError } from './usage-error.js';
import { workspacePaths } from './workspace-path-flag.js';

/** The `diff` command. */
export const diffCommand: Command = {
  name: 'diff',
  summary: "show a conversation's changes against the commit it started from (or its last commit)",
  usage: 'gatefs diff <conversation> [--path P]... [--base pinned|head]',
  positionals: ['conversation'],
  options: { path: { type: 'string', multiple: true }, base: { type: 'string' } },
  optionHelp: [
    ['--path P', 'limit the diff to a file or folder of the workspace (repeatable; workspace-relative)'],
    ['--base B', 'pinned (default): against the commit the workspace was prepared from; head: only what is not committed yet'],
  ],
  details: ['Examples:', '  gatefs diff fix-login', '  gatefs diff fix-login --base head --path src/login.ts'].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'diff');
    const base = flags.base ?? 'pinned';
    if (base !== 'pinned' && base !== 'head') throw new UsageError(`--base must be pinned or head, got "${String(base)}"`, 'diff');
    const paths = workspacePaths(flags.path, 'diff');
    const value = await withReadingHost(globals, async (host) =>
      host.work(conversation).diff({ base, maxPatchBytes: DIFF_MAX_PATCH_BYTES, ...(paths.length > 0 ? { paths } : {}) }),
    );
    if (globals.json) out.json(value);
    else out.print(safeToolText('diff', { ok: true, value }));
    return 0;
  },
};
