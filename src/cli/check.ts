/**
 * `gatefs check <conversation> <name> [PATH…]`: runs a check declared in gatefs.yaml (`checks:`)
 * in the conversation's kernel sandbox through the gate, exactly as the agent's `check` tool does
 * (the role must declare `check`). Prints each diagnostic parsed from its output as
 * `path:line:col: severity: message` (the compilers' format, so editors and terminals link it),
 * then the outcome; a failed check without diagnostics shows the end of its output on stderr.
 * Exits as `gatefs exec` does (`command-ending.ts`): the check's exit code, 124 for a timeout,
 * 128 + n for a signal or a limit, 1 when gatefs refused. `--json` prints the tool's value.
 */
import type { CheckValue } from '../../tools/index.js';
import { terminalSafeLine } from '../../tools/text/index.js';
import type { Command } from './command.js';
import { changedLines, commandEnding, seconds } from './command-ending.js';
import { conversationArg } from './conversation-arg.js';
import { withHost } from './open-host.js';
import { toolHint, withRemedy } from './remedy.js';
import { safeToolText } from './safe-tool-text.js';

/** Lines of a failed check's output shown when no diagnostic was parsed from it. */
const TAIL_LINES = 40;

/** The `check` command. */
export const checkCommand: Command = {
  name: 'check',
  summary: "run a check declared in gatefs.yaml in a conversation's kernel sandbox and print its diagnostics",
  usage: 'gatefs check <conversation> <name> [PATH…]',
  positionals: ['conversation', 'name', 'path*'],
  options: {},
  optionHelp: [],
  details: [
    'The check is one of checks: in gatefs.yaml, run in the same sandbox as exec (the role must declare',
    'check in its tools). PATHs (files or folders of the workspace) are passed after "--" to a check',
    'declared with paths: true. Diagnostics parsed from tsc, ESLint and Biome JSON, vitest and jest JSON',
    'and prettier --check print as path:line:col: severity: message, then one line with the outcome.',
    "Exit code: the check's own; 124 when it timed out; 128 + n when a signal or a limit ended it;",
    '1 when gatefs refused (an unknown check names the declared ones); 2 usage.',
    'Example:',
    '  gatefs check fix-login types src/login.ts',
  ].join('\n'),
  async run({ globals, args, out }) {
    const conversation = conversationArg(args[0], 'check');
    const name = args[1];
    const paths = args.slice(2);
    const result = await withHost(globals, (host) =>
      host.gate.call(conversation, 'check', { name, ...(paths.length > 0 ? { paths } : {}) }),
    );
    if (!result.ok) {
      if (globals.json) out.json({ error: result.error });
      out.problem(`gatefs: ${withRemedy(safeToolText('check', result), result.error.code, toolHint('check', result.error.code))}`);
      return 1;
    }
    const value = result.value as CheckValue;
    const ending = commandEnding(value);
    if (globals.json) {
      out.json(value);
      return ending.code;
    }
    const lines = value.diagnostics.flatMap(diagnosticLines);
    if (ending.code !== 0 && value.diagnostics.length === 0) {
      const tail = outputTail(value);
      if (tail.length > 0) out.problem([`gatefs: the last ${tail.length} lines of its output:`, ...tail].join('\n'));
    }
    for (const line of changedLines(value)) out.progress(line);
    lines.push(outcome(value, ending));
    out.print(lines.join('\n'));
    return ending.code;
  },
};

/** A diagnostic as a compiler prints it; a message of several lines continues indented. */
function diagnosticLines(d: CheckValue['diagnostics'][number]): string[] {
  const [first = '', ...more] = d.message.split('\n');
  const where = `${terminalSafeLine(d.path)}:${d.line}${d.column === undefined ? '' : `:${d.column}`}`;
  return [
    `${where}: ${d.severity}: ${terminalSafeLine(first)}`,
    ...more.filter((l) => l.trim() !== '').map((l) => `  ${terminalSafeLine(l)}`),
  ];
}

/** The last line: the check's name, passed or how it failed, the time, the diagnostics counted by severity. */
function outcome(value: CheckValue, ending: { code: number; said?: string }): string {
  const counts = (['error', 'warning', 'info'] as const)
    .map((severity) => [severity, value.diagnostics.filter((d) => d.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => `${n} ${severity}${n === 1 ? '' : 's'}`);
  const how = ending.code === 0 ? 'passed' : `failed: ${ending.said ?? `exit code ${ending.code}`}`;
  return `check ${terminalSafeLine(value.name)} ${how} in ${seconds(value.durationMs)}${counts.length > 0 ? `; ${counts.join(', ')}` : ''}`;
}

/** The last `TAIL_LINES` lines of the check's output, stdout then stderr. */
function outputTail(value: CheckValue): string[] {
  const text = [value.stdout, value.stderr].filter((s) => s !== '').join('\n');
  return text
    .split('\n')
    .filter((line, i, all) => !(i === all.length - 1 && line === ''))
    .slice(-TAIL_LINES);
}
