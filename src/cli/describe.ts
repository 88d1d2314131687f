/**
 * `gatefs describe <conversation>`: the conversation's execution snapshot (`Host.describeProbed`,
 * what the agent's `whereami` tool answers): agent, role, run and visit; the active workspace and
 * `cwd`; its own workspace, what it attached, `/home`; worktree root, branch and base; its policy.
 * Readable lines, or with `--json` the snapshot itself. Namespace paths only. A read-only look: it
 * opens the host quietly (nothing is appended to the run log); for a role that runs commands it
 * probes the sandbox once, as `gatefs doctor` does, so the snapshot names it.
 */
import type { ExecutionSnapshot, WorkspaceFacts } from '../host/composition/index.js';
import { terminalSafeLine } from '../../tools/text/index.js';
import type { Command } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withReadingHost } from './open-host.js';
import { formatTable } from './table.js';

/** The `describe` command. */
export const describeCommand: Command = {
  name: 'describe',
  summary: 'say where a conversation works: active workspace, cwd, attachments, home, branch, base, policy',
  usage: 'gatefs describe <conversation> [--json]',
  positionals: ['conversation'],
  options: {},
  optionHelp: [],
  details: [
    "The execution snapshot the agent's whereami tool answers: each workspace with its anchor (where the",
    'agent sees it), projection kind and access mode (shared-read: read-only to it; exclusive-write: writable),',
    "exec's default working folder (cwd), the branch and base commit, the tools, and whether commands run",
    '(sandbox, network, timeout). Read-only: appends nothing to the run log.',
    'Examples:',
    '  gatefs describe fix-login',
    '  gatefs describe fix-login --json',
  ].join('\n'),
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'describe');
    const snapshot = await withReadingHost(globals, (host) => host.describeProbed(conversation));
    if (globals.json) out.json(snapshot);
    else out.print(formatSnapshot(snapshot));
    return 0;
  },
};

/** The readable form of a snapshot: a few labelled lines, then its workspaces as a table. */
export function formatSnapshot(s: ExecutionSnapshot): string {
  const safe = (text: string | null) => (text === null ? '-' : terminalSafeLine(text));
  const commands = s.policy.commands;
  const lines = [
    `conversation: ${s.conversation} (agent ${s.agent}, role ${s.role}${s.run === null ? '' : `, run ${s.run} visit ${s.visit}`})`,
    `active: ${s.active.id} at ${s.active.anchor} (${s.active.accessMode})`,
    `cwd: ${s.cwd}`,
    `worktree root: ${s.worktreeRoot ?? '-'}`,
    `branch: ${safe(s.branch)}`,
    `base: ${safe(s.base.ref)} ${s.base.sha ?? '-'}`,
    `tools: ${s.policy.tools.join(', ') || '-'}`,
    commands === null
      ? 'commands: none (the role declares no command tool)'
      : `commands: exec ${commands.exec ? 'yes' : 'no'}; checks ${commands.check.join(', ') || '-'}; sandbox ${commands.sandbox}; ` +
        `network ${commands.network ? 'on' : 'off'}; timeout ${commands.timeoutSeconds} s`,
    '',
  ];
  const home: WorkspaceFacts = {
    id: 'home',
    anchor: s.home.anchor,
    executionRoot: s.home.anchor,
    projectionKind: 'agent-home',
    accessMode: 'exclusive-write',
    acquiredAt: null,
  };
  const rows = [['own', s.own] as const, ...s.attached.map((f) => ['attached', f] as const), ['home', home] as const];
  const table = formatTable(
    ['', 'WORKSPACE', 'ANCHOR', 'PROJECTION', 'ACCESS', 'SINCE'],
    rows.map(([what, f]) => [
      `${what}${f.id === s.active.id ? ' (active)' : ''}`,
      f.id,
      f.anchor,
      f.projectionKind,
      f.accessMode,
      f.acquiredAt === null ? '-' : new Date(f.acquiredAt).toISOString().replace('T', ' ').slice(0, 19),
    ]),
  );
  return [...lines, table].join('\n');
}
