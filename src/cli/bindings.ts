/**
 * `gatefs attach ID WORKSPACE [--mode shared-read|exclusive-write]`, `gatefs detach ID WORKSPACE`,
 * `gatefs switch ID WORKSPACE`: a conversation's bindings, as the operator (docs/ARCHITECTURE.md
 * § Agent model; src/host/agents/binding-service.ts). WORKSPACE is another conversation's id, its
 * anchor `/worktrees/<id>`, `canonical` or `/canonical` (the source checkout), and for switch also
 * the conversation's own id or `home`. The operator may take either mode, whatever the role's
 * `attach_mode`. A serving process sees the change on the conversation's next tool call.
 */
import type { Command } from './command.js';
import { withHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { UsageError } from './usage-error.js';

const MODES = ['shared-read', 'exclusive-write'] as const;

function workspaceArg(value: string | undefined, command: string): string {
  if (!value) throw new UsageError(`${command} needs a WORKSPACE: a conversation id, /worktrees/<id>, canonical or /canonical`, command);
  return value;
}

/** The `attach` command. */
export const attachCommand: Command = {
  name: 'attach',
  summary: "show another workspace (or the source checkout) in a conversation's namespace",
  usage: 'gatefs attach <conversation> <workspace> [--mode shared-read|exclusive-write]',
  positionals: ['conversation', 'workspace'],
  options: { mode: { type: 'string' } },
  optionHelp: [['--mode MODE', 'shared-read (default: read-only, beside a writer) or exclusive-write (writable, one holder at a time)']],
  details: [
    "The workspace shows at /worktrees/<id> (the source checkout at /canonical) in the conversation's",
    'namespace. exclusive-write is refused (OCCUPIED) while another conversation holds it, its own',
    "included. The conversation's own workspace in shared-read gives its write up; exclusive-write takes it back.",
    'Examples:',
    '  gatefs attach reviewer fix-login',
    '  gatefs attach fixer /canonical --mode exclusive-write',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = conversationArg(args[0], 'attach');
    const workspace = workspaceArg(args[1], 'attach');
    const mode = flags.mode === undefined ? 'shared-read' : String(flags.mode);
    if (!(MODES as readonly string[]).includes(mode))
      throw new UsageError(`--mode is shared-read or exclusive-write, not '${mode}'`, 'attach');
    const result = await withHost(globals, async (host) => host.attach(conversation, workspace, mode as (typeof MODES)[number]));
    if (globals.json) out.json(result);
    else out.print(`${conversation}: ${result.anchor} attached ${result.mode}`);
    return 0;
  },
};

/** The `detach` command. */
export const detachCommand: Command = {
  name: 'detach',
  summary: "end a conversation's binding of a workspace it attached",
  usage: 'gatefs detach <conversation> <workspace>',
  positionals: ['conversation', 'workspace'],
  options: {},
  optionHelp: [],
  details: [
    'The workspace no longer shows in the conversation. When it was the active workspace, the',
    "conversation's own becomes active again. The own workspace cannot be detached (NOT_ATTACHED).",
    'Example:',
    '  gatefs detach reviewer fix-login',
  ].join('\n'),
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'detach');
    const workspace = workspaceArg(args[1], 'detach');
    const result = await withHost(globals, async (host) => host.detach(conversation, workspace));
    if (globals.json) out.json(result);
    else out.print(`${conversation}: ${result.anchor} detached (was ${result.mode}); active ${result.active}`);
    return 0;
  },
};

/** The `switch` command. */
export const switchCommand: Command = {
  name: 'switch',
  summary: "change a conversation's active workspace (where relative paths resolve and commands start)",
  usage: 'gatefs switch <conversation> <workspace>',
  positionals: ['conversation', 'workspace'],
  options: {},
  optionHelp: [],
  details: [
    "WORKSPACE is the conversation's own id, home, or a workspace it attached (NOT_ATTACHED otherwise).",
    'Examples:',
    '  gatefs switch reviewer fix-login',
    '  gatefs switch reviewer reviewer',
  ].join('\n'),
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'switch');
    const workspace = workspaceArg(args[1], 'switch');
    const result = await withHost(globals, async (host) => host.switch(conversation, workspace));
    if (globals.json) out.json(result);
    else out.print(`${conversation}: active ${result.anchor}`);
    return 0;
  },
};
