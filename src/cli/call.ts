/**
 * `gatefs call <conversation> <tool> '<json>'`: one gated tool call, exactly as an agent would
 * make it. Prints the readable result (or, with `--json`, the whole `{ ok, value | error }`).
 * Exit 0 when the tool succeeded, 1 with the error code when it refused.
 */
import type { Command } from './command.js';
import { withHost, withReadingHost } from './open-host.js';
import { conversationArg } from './conversation-arg.js';
import { UsageError } from './usage-error.js';
import { safeToolText } from './safe-tool-text.js';
import { toolHint, withRemedy } from './remedy.js';

/** Tools that only read: their `call` opens the host quietly (`withReadingHost`). */
const READING_TOOLS: ReadonlySet<string> = new Set(['read', 'grep', 'list', 'diff', 'messages', 'exec_output']);

/** The `call` command. */
export const callCommand: Command = {
  name: 'call',
  summary: 'make one gated tool call (read, grep, list, edit, write, request_files) and print the result',
  usage: "gatefs call <conversation> <tool> ['<json arguments>']",
  positionals: ['conversation', 'tool', 'json?'],
  options: {},
  optionHelp: [],
  details: [
    'Examples:',
    `  gatefs call fix-login read '{"path":"README.md","limit":20}'`,
    `  gatefs call fix-login list '{"pattern":"**/*.ts"}'`,
    `  gatefs call fix-login write '{"path":"notes.md","content":"hello\\n"}'`,
    'Exit code 1 means the tool refused; the error code is printed (e.g. READ_ONLY, PATH_ESCAPE).',
  ].join('\n'),
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
    if (!result.ok) out.problem(`gatefs: ${withRemedy(safeToolText(tool, result), result.error.code, toolHint(tool, result.error.code))}`);
    return result.ok ? 0 : 1;
  },
};
