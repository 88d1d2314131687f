/**
 * Runs one `gatefs` invocation: parses the command line, prints help when asked, runs the
 * command, and turns every failure into one line on stderr and an exit code
 * (0 ok, 1 a tool or domain error, 2 usage). A stack trace appears only with GATEFS_DEBUG=1.
 */
import type { Command } from './command.js';
import { parseCommandLine } from './parse-command-line.js';
import { resolveGlobalFlags } from './global-flags.js';
import { commandHelp, mainHelp } from './help.js';
import { processOutput, type Output } from './output.js';
import { UsageError } from './usage-error.js';
import { ownHint, withRemedy } from './remedy.js';
import { describeFailure } from '../mcp/text/index.js';
import { gatefsVersion } from '../mcp/initialize/index.js';
import { COMMANDS } from './commands.js';
import { codeOf } from '../../vfs/coded-error.js';
import { terminalSafeLine } from '../../tools/text/index.js';
import { environment, workingFolder } from '../ports/process-io.js';

/** Exit codes of the CLI. */
const EXIT = { ok: 0, error: 1, usage: 2 } as const;

/**
 * Runs `argv` (the arguments after `gatefs`) and resolves to the exit code. Never throws.
 * `commands` defaults to every gatefs command.
 */
export async function runCli(argv: string[], commands: readonly Command[] = COMMANDS, out: Output = processOutput()): Promise<number> {
  try {
    const line = parseCommandLine(argv, commands);
    if (line.version && !line.command) {
      out.print(gatefsVersion());
      return EXIT.ok;
    }
    if (!line.command) {
      out.print(mainHelp(commands));
      return line.help ? EXIT.ok : EXIT.usage;
    }
    if (line.help) {
      out.print((await line.command.help?.(line.args)) ?? commandHelp(line.command));
      return EXIT.ok;
    }
    const globals = resolveGlobalFlags(line.flags, workingFolder());
    return await line.command.run({ globals, flags: line.flags, args: line.args, rest: line.rest, out, env: environment() });
  } catch (e) {
    return reportFailure(e, out, environment());
  }
}

/**
 * Prints one line for `e` on stderr and returns its exit code. The line is terminal-safe as one
 * line: a message quoting a file name or branch cannot start a line of its own.
 */
function reportFailure(e: unknown, out: Output, env: NodeJS.ProcessEnv): number {
  const debug = env.GATEFS_DEBUG === '1';
  if (e instanceof UsageError) {
    out.progress(terminalSafeLine(e.message));
    out.problem(`Run "gatefs ${e.command ? `${e.command} ` : ''}--help" for usage.`);
    return EXIT.usage;
  }
  const code = codeOf(e);
  const known = e instanceof Error && code !== undefined;
  out.progress(`error: ${terminalSafeLine(withRemedy(describeFailure(e), code, ownHint(e)))}`);
  if (debug && e instanceof Error) out.problem(String(e.stack));
  else if (!known) out.progress('(set GATEFS_DEBUG=1 to see the stack trace)');
  return EXIT.error;
}
