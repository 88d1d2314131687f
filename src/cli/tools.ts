/**
 * `gatefs tools [<conversation>] [--role R] [--all] [--profile P] [--json]`: the tools an agent
 * is offered and each one's arguments (name, type, required or optional, description), read from
 * the tools' input schemas (`tool-arguments.ts`).
 *
 * Which tools: with a conversation, its workspace's role (one that has none yet: the role it
 * would be prepared with, `--role` or the manifest's first); without one, the role a new
 * conversation gets (`--role`, else the manifest's first role: without a `gatefs.yaml`, the
 * default role); `--all`, every tool the gate runs. `--profile claude-code` shows them as that
 * profile offers them (Claude Code's names and arguments), as `gatefs serve --profile` does.
 *
 * Read-only: it prepares nothing and writes nothing. Only a conversation whose role must be read
 * from the state directory opens the host, as `gatefs status` does.
 */
import type { Command } from './command.js';
import type { GlobalFlags } from './global-flags.js';
import type { ToolDescriptor } from '../../tools/index.js';
import { conversationArg } from './conversation-arg.js';
import { withReadingHost } from './open-host.js';
import { hasNoState } from './state-presence.js';
import { UsageError } from './usage-error.js';
import { toolSheets, toolsText, type OfferedTool } from './tool-arguments.js';
import { PROFILE_NAMES, isProfileName, type ProfileName } from '../mcp/initialize/index.js';

/** The `tools` command. */
export const toolsCommand: Command = {
  name: 'tools',
  summary: "list the tools an agent is offered and each one's arguments (from the schemas)",
  usage: 'gatefs tools [<conversation>] [--role R] [--all] [--profile gatefs|claude-code] [--json]',
  positionals: ['conversation?'],
  options: { role: { type: 'string' }, all: { type: 'boolean' }, profile: { type: 'string' } },
  optionHelp: [
    ['--role R', "the role whose tools to list (default: the conversation's role, else the manifest's first role)"],
    ['--all', 'every tool gatefs has, whatever the role declares'],
    ['--profile P', "the tools as serve --profile P offers them (claude-code: Claude Code's names and arguments)"],
  ],
  details: [
    "Without a conversation: the tools of the role a new conversation gets (the manifest's first role;",
    'without a gatefs.yaml, the default role "agent"). With one: the tools of its workspace\'s role.',
    'Each argument reads: name, type, required or optional, what it does (defaults are in the description).',
    'Examples:',
    '  gatefs tools',
    '  gatefs tools fix-login --profile claude-code',
    '  gatefs call fix-login grep --help     (one tool)',
  ].join('\n'),
  async run({ globals, flags, args, out }) {
    const conversation = args[0] === undefined ? undefined : conversationArg(args[0], 'tools');
    const profile = flags.profile ?? 'gatefs';
    if (!isProfileName(profile)) throw new UsageError(`--profile must be one of ${PROFILE_NAMES.join(', ')}`, 'tools');
    if (flags.all === true && flags.role !== undefined) throw new UsageError('--all lists every tool: leave out --role', 'tools');
    const role = typeof flags.role === 'string' ? flags.role : undefined;
    const chosen = await chooseTools(globals, { conversation, role, all: flags.all === true });
    const offered = await asOffered(chosen.tools, profile, conversation);
    if (globals.json) {
      out.json({ ...(conversation ? { conversation } : {}), role: chosen.role, profile, tools: toolSheets(offered) });
      return 0;
    }
    out.print(`${chosen.heading}, ${offered.length} tool(s)${profile === 'gatefs' ? '' : ` as the ${profile} profile offers them`}:\n`);
    out.print(toolsText(offered));
    return 0;
  },
};

/** The gate tools to list, the role they come from (null for `--all`) and the line introducing them. */
async function chooseTools(
  globals: GlobalFlags,
  options: { conversation?: string; role?: string; all: boolean },
): Promise<{ tools: ToolDescriptor[]; role: string | null; heading: string }> {
  const { GATE_TOOLS } = await import('../host/composition/index.js');
  if (options.all) return { tools: GATE_TOOLS.map((t) => t.descriptor), role: null, heading: 'every tool gatefs has' };
  const recorded = options.conversation === undefined ? undefined : await recordedRole(globals, options.conversation);
  const { findRole, loadManifest } = await import('../manifest/index.js');
  const manifest = loadManifest(globals.manifest);
  const role = findRole(manifest, recorded ?? options.role);
  const declared: ReadonlySet<string> = new Set(role.tools);
  const source = globals.manifest ? 'the manifest' : 'the default manifest (no gatefs.yaml)';
  let heading = `role "${role.name}" of ${source}`;
  if (options.conversation !== undefined) {
    heading = recorded
      ? `"${options.conversation}" (its workspace's ${heading})`
      : `"${options.conversation}" (no workspace yet: the ${heading}, which prepare would give it)`;
  }
  return { tools: GATE_TOOLS.filter((t) => declared.has(t.name)).map((t) => t.descriptor), role: role.name, heading };
}

/** The role recorded for `conversation`'s workspace, if `gatefs status` lists one. */
async function recordedRole(globals: GlobalFlags, conversation: string): Promise<string | undefined> {
  if (await hasNoState(globals)) return undefined;
  const rows = await withReadingHost(globals, async (host) => host.status());
  const row = rows.find((r) => r.conversation === conversation);
  return row?.role;
}

/** The tools as `profile` offers them (the gate's own descriptors for `gatefs`). */
async function asOffered(tools: ToolDescriptor[], profile: ProfileName, conversation: string | undefined): Promise<OfferedTool[]> {
  if (profile === 'gatefs') return tools;
  const { profileNamed } = await import('../mcp/profiles/index.js');
  return profileNamed(profile)
    .tools(tools, conversation)
    .map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as OfferedTool['inputSchema'] }));
}
