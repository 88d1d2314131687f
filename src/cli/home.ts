/**
 * `gatefs home list | gatefs home clean-tmp AGENT`: the agents' homes (`/home` in their
 * conversations' namespaces, `<stateDir>/homes/<agent>` on the host). `list` prints each agent
 * with its host folder (the operator's view: host paths are shown here); `clean-tmp` empties an
 * agent's `tmp/` (its contents, never following a link) and prints how many entries went.
 */
import type { Command, CommandContext } from './command.js';
import { withHost, withReadingHost } from './open-host.js';
import { formatTable } from './table.js';
import { UsageError } from './usage-error.js';

/** The `home` command. */
export const homeCommand: Command = {
  name: 'home',
  summary: "list the agents' homes (/home), or empty an agent's home tmp/",
  usage: 'gatefs home list | gatefs home clean-tmp <agent>',
  positionals: ['action?', 'agent?'],
  options: {},
  optionHelp: [],
  details: [
    'Actions:',
    "  list            each agent with a home, and the home's folder on this machine",
    "  clean-tmp AGENT  empty AGENT's home tmp/ (agents are told it may be emptied at any time); the folder stays",
    "Each conversation sees its agent's home at /home (gatefs prepare ID --agent NAME; default: the role's name).",
    'Its .gatefs/ folder belongs to gatefs: agents read it and cannot change it.',
    'Examples:',
    '  gatefs home list',
    '  gatefs home clean-tmp reviewer',
  ].join('\n'),
  async run(ctx) {
    const action = ctx.args[0];
    if (action === 'list') return list(ctx);
    if (action === 'clean-tmp') return cleanTmp(ctx);
    const got = action === undefined ? '' : ` (got "${action.slice(0, 40)}")`;
    throw new UsageError(`home needs an action${got}: list (every agent's home), or clean-tmp AGENT (empty its tmp/)`, 'home');
  },
};

async function list({ globals, out }: CommandContext): Promise<number> {
  const homes = await withReadingHost(globals, (host) => host.homes());
  if (globals.json) out.json(homes);
  else if (homes.length === 0) out.print('no agent has a home yet: one is made when a conversation of that agent is prepared');
  else
    out.print(
      formatTable(
        ['AGENT', 'FOLDER'],
        homes.map((h) => [h.agent, h.folder]),
      ),
    );
  return 0;
}

async function cleanTmp({ globals, args, out }: CommandContext): Promise<number> {
  const agent = args[1];
  if (agent === undefined) throw new UsageError('home clean-tmp needs the agent whose tmp/ to empty: gatefs home clean-tmp AGENT', 'home');
  const entries = await withHost(globals, (host) => host.cleanHomeTmp(agent));
  if (globals.json) out.json({ agent, entries });
  else out.print(`emptied the tmp/ of agent ${agent}'s home: ${entries} ${entries === 1 ? 'entry' : 'entries'} removed`);
  return 0;
}
