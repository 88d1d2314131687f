/**
 * Parses `gatefs <command> [args] [flags]` with node:util `parseArgs`: the command word, its
 * positionals and flags, and the global flags (accepted before or after the command word).
 */
import { parseArgs } from 'node:util';
import type { Command, FlagValues } from './command.js';
import { GLOBAL_OPTIONS } from './global-flags.js';
import { UsageError } from './usage-error.js';
import { closestName } from '../../tools/index.js';

/** A parsed command line. `command` is undefined for bare `gatefs` / `gatefs --help`. */
interface CommandLine {
  command?: Command;
  flags: FlagValues;
  args: string[];
  /** The words after `--`, for a command with `afterDashes`. */
  rest: string[];
  help: boolean;
  version: boolean;
}

/** Words that read as commands but ask about gatefs itself: `help [CMD]` and `version`. */
const HELP_WORD = 'help';
const VERSION_WORD = 'version';

/**
 * Parses `argv` (without `node` and the script) against `commands`. `gatefs help [CMD [ARGS]]`
 * reads as `gatefs [CMD [ARGS]] --help`; `gatefs version` and `gatefs -v` as `gatefs --version`.
 * Throws `UsageError` for an unknown command (naming the closest one) or flag, a flag missing its
 * value, or the wrong number of positionals.
 */
export function parseCommandLine(argv: string[], commands: readonly Command[]): CommandLine {
  const first = commandWordIndex(argv);
  const word = first >= 0 ? argv[first] : undefined;
  if (word === HELP_WORD) return parseCommandLine([...argv.slice(0, first), ...argv.slice(first + 1), '--help'], commands);
  if (word === VERSION_WORD) return parseCommandLine([...argv.slice(0, first), '--version', ...argv.slice(first + 1)], commands);
  const command = word === undefined ? undefined : commands.find((c) => c.name === word);
  if (word !== undefined && !command) throw unknownCommand(word, commands);
  const rest = first >= 0 ? [...argv.slice(0, first), ...argv.slice(first + 1)] : argv;
  const options = {
    ...GLOBAL_OPTIONS,
    ...(command?.options ?? {}),
    ...(command ? {} : { version: { type: 'boolean' as const, short: 'v' } }),
  };
  let parsed: { values: FlagValues; positionals: string[]; tokens: { kind: string; index: number }[] };
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true, tokens: true }) as typeof parsed;
  } catch (e) {
    throw new UsageError(cleanParseError((e as Error).message), command?.name);
  }
  const help = parsed.values.help === true;
  const { before, after } = command?.afterDashes ? splitAtDashes(parsed) : { before: parsed.positionals, after: [] };
  if (command && !help) checkPositionals(command, before);
  return { command, flags: parsed.values, args: before, rest: after, help, version: parsed.values.version === true };
}

/** The usage error of an unknown command word: the closest command, when one is close, and every command. */
function unknownCommand(word: string, commands: readonly Command[]): UsageError {
  const names = commands.map((c) => c.name);
  const closest = closestName(word, [...names, HELP_WORD, VERSION_WORD]);
  const guess = closest === undefined ? '' : ` (did you mean "${closest}"?)`;
  return new UsageError(`unknown command "${word}"${guess}; the commands are ${names.join(', ')}`);
}

/** The positionals before the first `--` and the words after it. */
function splitAtDashes(parsed: { positionals: string[]; tokens: { kind: string; index: number }[] }): {
  before: string[];
  after: string[];
} {
  const dashes = parsed.tokens.find((t) => t.kind === 'option-terminator');
  if (!dashes) return { before: parsed.positionals, after: [] };
  const count = parsed.tokens.filter((t) => t.kind === 'positional' && t.index < dashes.index).length;
  return { before: parsed.positionals.slice(0, count), after: parsed.positionals.slice(count) };
}

/** The index of the command word: the first argument that is neither a flag nor a global flag's value. */
function commandWordIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (!a.startsWith('-')) return i;
    const name = a.replace(/^--?/, '');
    if (GLOBAL_OPTIONS[name]?.type === 'string') i++;
  }
  return -1;
}

function checkPositionals(command: Command, args: string[]): void {
  const required = command.positionals.filter((p) => !p.endsWith('?') && !p.endsWith('*'));
  if (args.length < required.length) {
    throw new UsageError(
      `${command.name} needs ${required.map((p) => `<${p}>`).join(' ')}; missing <${required[args.length]}>`,
      command.name,
    );
  }
  if (command.positionals.at(-1)?.endsWith('*')) return;
  if (args.length > command.positionals.length && command.afterDashes) {
    throw new UsageError(
      `${command.name} takes the ${command.afterDashes} after "--": unexpected "${args[command.positionals.length]}" before it ` +
        `(gatefs ${command.name} ${command.positionals.map((p) => `<${p}>`).join(' ')} -- ${command.afterDashes})`,
      command.name,
    );
  }
  if (args.length > command.positionals.length) {
    throw new UsageError(
      `${command.name} takes at most ${command.positionals.length} argument(s), got ${args.length}: unexpected "${args[command.positionals.length]}"`,
      command.name,
    );
  }
}

/** node's parseArgs messages are long and mention `--` tricks; keep the first sentence. */
function cleanParseError(message: string): string {
  const first = message
    .split(/\.(?:\s|$)/)[0]!
    .replace(/^Unknown option/, 'unknown flag')
    .replace(/^Option/, 'flag');
  const flag = /^flag '(--[a-z-]+)' argument is ambiguous/.exec(first)?.[1];
  return flag ? `${first}: a value starting with '-' is written ${flag}=VALUE` : first;
}
