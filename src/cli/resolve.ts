/**
 * `gatefs resolve REF [--base FILE] [--conversation ID] [--json]`: a file reference resolved
 * (`Host.resolveReference`): its root, namespace path, host path, `workspace://` URI, what is
 * there, and the other roots holding the same file. Readable lines, or with `--json` the answer
 * itself. The operator's command: it shows host paths. A read-only look: it opens the host
 * quietly (nothing is appended to the run log). Exit 1 with the error's line for a reference
 * that does not resolve (`BAD_REFERENCE` and its reason, `REFERENCE_GONE`, `UNKNOWN_CONVERSATION`).
 */
import type { FileReference } from '../host/composition/index.js';
import { terminalSafeLine } from '../../tools/text/index.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withReadingHost } from './open-host.js';

/** The `resolve` command. */
export const resolveCommand: Command = {
  name: 'resolve',
  summary: 'resolve a file reference (namespace path, host path, workspace:// URI, relative path) to its roots',
  usage: 'gatefs resolve <reference> [--base FILE] [--conversation ID] [--json]',
  positionals: ['reference'],
  options: { base: { type: 'string' }, conversation: { type: 'string' } },
  optionHelp: [
    ['--base FILE', 'resolve a relative reference against the folder of FILE (any form)'],
    ['--conversation ID', 'whose /home a home reference means; a relative one without --base resolves in its active workspace'],
  ],
  details: [
    'References: /worktrees/<id>/…, /canonical/…, /home/… (with --conversation), a host path inside the',
    'checkout or a workspace or home folder, workspace://<id>/<path>?root=<id>, or a relative path.',
    'The answer names the root first (canonical first when a host path lies in the checkout and in a',
    'workspace folder inside its state directory), then every other root holding the same file. A',
    'released workspace answers REFERENCE_GONE; a link or a .. leading out of the root is refused.',
    'Read-only: appends nothing to the run log.',
    'Examples:',
    '  gatefs resolve /worktrees/fix-login/src/app.ts',
    '  gatefs resolve ../README.md --base /worktrees/fix-login/src/app.ts',
    '  gatefs resolve "workspace://fix-login/src/app.ts?root=fix-login" --json',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const reference = args[0]!;
    const base = typeof flags.base === 'string' ? flags.base : undefined;
    const conversation = typeof flags.conversation === 'string' ? conversationArg(flags.conversation, 'resolve') : undefined;
    const options = { ...(base === undefined ? {} : { baseFile: base }), ...(conversation === undefined ? {} : { conversation }) };
    const resolved = await withReadingHost(globals, (host) => host.resolveReference(reference, options));
    if (globals.json) out.json(resolved);
    else out.print(formatReference(resolved));
    return 0;
  },
};

/** The readable form of a resolved reference: labelled lines, one per root it is in. */
export function formatReference(r: FileReference): string {
  const safe = terminalSafeLine;
  const what = r.exists ? `${r.type}${r.protected ? ' (protected: tools change nothing there)' : ''}` : 'nothing there yet';
  const lines = [
    `${safe(r.reference)} (${r.form}) → ${r.root}${r.workspace === r.root ? '' : ` (workspace ${r.workspace})`}${r.agent ? `, agent ${r.agent}` : ''}`,
    `  namespace: ${safe(r.namespacePath)}`,
    `  host:      ${safe(r.hostPath)}`,
    `  uri:       ${safe(r.uri)}`,
    `  exists:    ${what}`,
    ...r.alsoIn.map((o) => `  also in:   ${o.root} at ${safe(o.namespacePath)}${o.protected ? ' (protected)' : ''}  ${safe(o.uri)}`),
  ];
  return lines.join('\n');
}
