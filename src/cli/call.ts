/**
 * `gatefs call <conversation> <tool> '<json>'`: one gated tool call, exactly as an agent would
 * make it. Prints the readable result (or, with `--json`, the whole `{ ok, value | error }`).
 * Exit 0 when the tool succeeded, 1 with the error code when it refused.
 *
 * `gatefs call --help` lists every tool gatefs has; `gatefs call ID TOOL --help` prints that
 * tool's arguments from its schema, as `gatefs tools` does (neither opens the host).
 */
import type { Command } from './command.js';
import { withHost, withReadingHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { UsageError } from './usage-error.js';
import { safeToolText } from './safe-tool-text.js';
import { toolHint, withRemedy } from './remedy.js';
import { commandHelp } from './help.js';
import { toolText } from './tool-arguments.js';
import { closestName } from '../../tools/closest-name.js';

/** Tools that only read: their `call` opens the host quietly (`withReadingHost`). */
const READING_TOOLS: ReadonlySet<string> = new Set(['read', 'grep', 'list', 'diff', 'messages', 'exec_output']);

/** The `call` command. */
export const callCommand: Command = {
  name: 'call',
  summary: "make one gated tool call (any tool of the conversation's role: gatefs tools lists them) and print the result",
  usage: "gatefs call <conversation> <tool> ['<json arguments>']   |   gatefs call <conversation> <tool> --help",
  positionals: ['conversation', 'tool', 'json?'],
  options: {},
  optionHelp: [],
  details: [
    'Examples:',
    `  gatefs call fix-login read '{"path":"README.md","limit":20}'`,
    `  gatefs call fix-login grep '{"pattern":"TODO","output":"content"}'`,
    `  gatefs call fix-login write '{"path":"notes.md","content":"hello\\n"}'`,
    '  gatefs call fix-login grep --help     (the arguments of one tool)',
    'Exit code 1 means the tool refused; the error code is printed (e.g. READ_ONLY, PATH_ESCAPE).',
  ].join('\n'),
  async help(args) {
    const { GATE_TOOLS } = await import('../host/composition/index.js');
    const tool = args[1];
    if (tool === undefined) {
      const width = Math.max(...GATE_TOOLS.map((t) => t.name.length));
      const rows = GATE_TOOLS.map((t) => `  ${t.name.padEnd(width)}  ${t.annotations.title ?? ''}`.trimEnd());
      return [
        commandHelp(callCommand),
        '',
        "Tools (a conversation gets those its role declares: gatefs tools ID; one tool's arguments: gatefs call ID TOOL --help):",
        ...rows,
      ].join('\n');
    }
    const found = GATE_TOOLS.find((t) => t.name === tool);
    if (!found)
      throw unknownTool(
        tool,
        GATE_TOOLS.map((t) => t.name),
      );
    const conversation = args[0] === undefined ? 'ID' : args[0];
    return [
      `Usage: gatefs call ${conversation} ${found.name} '<json arguments>'`,
      '',
      toolText(found.descriptor),
      '',
      `Whether ${conversation === 'ID' ? 'a conversation' : `"${conversation}"`} is offered it depends on its role: gatefs tools ${conversation}.`,
    ].join('\n');
  },
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'call');
    const tool = args[1];
    let toolArgs: unknown = {};
    if (args[2] !== undefined) {
      try {
        toolArgs = JSON.parse(args[2]);
      } catch (e) {
        throw new UsageError(
          `the tool arguments are not valid JSON (${(e as Error).message}); quote them, e.g. '{"path":"README.md"}'`,
          'call',
        );
      }
    }
    // A reading tool's call is opened quietly: its tool_call is the one record it leaves.
    const open = READING_TOOLS.has(tool) ? withReadingHost : withHost;
    const result = await open(globals, (host) => host.gate.call(conversation, tool, toolArgs));
    if (globals.json) out.json(result);
    else if (result.ok) out.print(safeToolText(tool, result));
    if (!result.ok) {
      // A refusal that knows its case (details.hint: the backend, the folder) says it instead of the table.
      const detailed = result.error.details?.hint;
      const own =
        result.error.code === 'INVALID_INPUT'
          ? `its arguments: gatefs call ${conversation} ${tool} --help`
          : (toolHint(tool, result.error.code) ??
            releasedBindingHint(conversation, result.error.code, result.error.path) ??
            (typeof detailed === 'string' ? detailed : undefined));
      out.problem(`gatefs: ${withRemedy(safeToolText(tool, result), result.error.code, own)}`);
    }
    return result.ok ? 0 : 1;
  },
};

/** The usage error for a tool name gatefs does not have, naming the closest one and every tool. */
function unknownTool(tool: string, names: readonly string[]): UsageError {
  const shown = JSON.stringify(tool.slice(0, 64));
  const near = closestName(tool, names);
  const guess = near === undefined ? '' : `; did you mean ${near}?`;
  return new UsageError(`there is no tool named ${shown}${guess}; the tools are ${names.join(', ')}`, 'call');
}

/**
 * The hint for `WORKSPACE_RELEASED` at a path of another workspace (one the conversation had
 * attached): its own conversation was released, which ended the binding; preparing the caller
 * again (the table's hint) would not bring it back.
 */
function releasedBindingHint(conversation: string, code: string, path: string | undefined): string | undefined {
  if (code !== 'WORKSPACE_RELEASED' || path === undefined) return undefined;
  const anchor = /^\/worktrees\/([^/]+)/.exec(path);
  if (!anchor || anchor[1] === conversation) return undefined;
  return `the workspace attached at /worktrees/${anchor[1]} was released by its own conversation, which ended the binding; attach another workspace (gatefs attach ${conversation} W)`;
}
