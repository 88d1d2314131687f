/**
 * `gatefs subagent start <parent> <child> [--role R] [--from head|working]`, `gatefs subagent land
 * <child>` and `gatefs subagent discard <child>`: a child conversation in its own worktree made
 * from its parent's branch head or, with `--from working`, from its parent's working state
 * (uncommitted and untracked files included) (src/host/subagents/). `land` fast-forwards the
 * parent's branch to the child's work and releases the child; `discard` removes a clean child
 * checkout and keeps its branch.
 */
import type { Command, CommandContext } from './command.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import { formatStatusTable } from './status-table.js';
import { UsageError } from './usage-error.js';

/** The `subagent` command. */
export const subagentCommand: Command = {
  name: 'subagent',
  summary: "start a child conversation from a parent's branch, land its work onto the parent, or discard it",
  usage:
    'gatefs subagent start <parent> <child> [--role R] [--isolate worktree] [--from head|working] | gatefs subagent land <child> | gatefs subagent discard <child>',
  positionals: ['action', 'conversation', 'child?'],
  options: { role: { type: 'string' }, isolate: { type: 'string' }, from: { type: 'string' } },
  optionHelp: [
    ['--role R', "start: the child's role (default: the parent's)"],
    ['--isolate M', "start: how the child is isolated: worktree (the only one; default: the role's subagents.isolate)"],
    [
      '--from F',
      "start: head (default): the head of the parent's branch; working: the parent's files as they are now (uncommitted, untracked and ignored ones too)",
    ],
  ],
  details: [
    "start makes the child's worktree from the head of the parent's branch (gatefs/<parent>), or with",
    "--from working from the parent's working state (a snapshot of it, taken first); the child's",
    'commands carry the chain parent → child in the run log. Landing a child always goes through',
    "commits: land needs a clean child checkout and a parent branch the child's work can fast-forward;",
    "the parent's worktree files follow (its own uncommitted changes are kept, or the landing is",
    'refused when they would be overwritten). A child whose branch holds commits its parent lacks',
    'cannot be released: land it or discard it.',
    'Examples:',
    '  gatefs subagent start fix-login fix-login-tests',
    '  gatefs subagent start fix-login fix-login-try --from working',
    '  gatefs subagent land fix-login-tests',
    '  gatefs subagent discard fix-login-tests',
  ].join('\n'),
  async run(ctx) {
    const [action] = ctx.args;
    if (action === 'start') return start(ctx);
    if (action === 'land' || action === 'discard') return finish(ctx, action);
    throw new UsageError(`subagent needs an action: start, land or discard (got "${String(action).slice(0, 40)}")`, 'subagent');
  },
};

async function start({ globals, flags, args, out }: CommandContext): Promise<number> {
  if (args.length !== 3) throw new UsageError('subagent start needs <parent> <child>', 'subagent');
  const parent = conversationArg(args[1]!, 'subagent');
  const child = conversationArg(args[2]!, 'subagent');
  const role = typeof flags.role === 'string' ? flags.role : undefined;
  if (flags.isolate !== undefined && flags.isolate !== 'worktree') {
    throw new UsageError(
      `--isolate: subagents are isolated in a worktree; "${String(flags.isolate).slice(0, 40)}" is not available`,
      'subagent',
    );
  }
  if (flags.from !== undefined && flags.from !== 'head' && flags.from !== 'working') {
    throw new UsageError(`--from must be head or working, got "${String(flags.from).slice(0, 40)}"`, 'subagent');
  }
  const from = flags.from === 'working' ? ('working' as const) : undefined;
  const status = await withHost(globals, async (host) =>
    host.subagents.start({ parent, child, isolate: 'worktree', ...(role ? { role } : {}), ...(from ? { from } : {}) }),
  );
  if (globals.json) out.json(status);
  else out.print(formatStatusTable([status]));
  return 0;
}

async function finish({ globals, args, out }: CommandContext, action: 'land' | 'discard'): Promise<number> {
  if (args.length !== 2) throw new UsageError(`subagent ${action} needs <child> only`, 'subagent');
  const child = conversationArg(args[1]!, 'subagent');
  if (action === 'discard') {
    const result = await withHost(globals, async (host) => host.subagents.discard(child));
    if (globals.json) out.json(result);
    else out.print(`discarded "${child}": ${result.removed ? 'checkout removed' : 'checkout was already gone'}; its branch is kept`);
    return 0;
  }
  const result = await withHost(globals, async (host) => host.subagents.land(child));
  if (globals.json) out.json(result);
  else
    out.print(
      result.commits > 0
        ? `landed "${child}" on "${result.parent}": ${result.commits} commit(s), the parent's branch is at ${result.parentHead.slice(0, 12)}; "${child}" released`
        : `"${child}" had nothing its parent "${result.parent}" lacks; "${child}" released`,
    );
  return 0;
}
