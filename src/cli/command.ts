/**
 * The shape of one `gatefs` subcommand: its words, its flags (node:util `parseArgs` config),
 * its help text, and what it runs. Each command lives in its own file and exports one of these.
 */
import type { ParseArgsConfig } from 'node:util';
import type { Output } from './output.js';
import type { GlobalFlags } from './global-flags.js';

/** Flag values as `parseArgs` returns them. */
export type FlagValues = Record<string, string | boolean | undefined>;

/** What a command's `run` receives. */
export interface CommandContext {
  globals: GlobalFlags;
  /** The command's own flags. */
  flags: FlagValues;
  /** Positional arguments after the command word (before `--` for a command with `afterDashes`). */
  args: string[];
  /** The words after `--`, as they are, for a command with `afterDashes` (empty otherwise). */
  rest?: string[];
  out: Output;
  env: NodeJS.ProcessEnv;
}

/** One subcommand: its words, flags, help and what it runs. */
export interface Command {
  name: string;
  /** One line for `gatefs --help`. */
  summary: string;
  /** The synopsis, e.g. `gatefs prepare <conversation> [--role R] [--base REF]`. */
  usage: string;
  /**
   * Names of the positional arguments, required ones first; a `?` suffix marks an optional one,
   * a `*` suffix on the last one any number of them (none included).
   */
  positionals: string[];
  /**
   * For a command that runs another (`gatefs exec ID -- npm test`): what the words after `--`
   * are called in messages. They reach `run` as `rest`, flags included, and are never parsed.
   */
  afterDashes?: string;
  /** The command's own flags (global flags are added by the parser). */
  options: NonNullable<ParseArgsConfig['options']>;
  /** `[flag, explanation]` rows for the help text. */
  optionHelp: [string, string][];
  /** Extra help paragraphs (examples, what the output means). */
  details?: string;
  /**
   * The command's own `--help` text for the positionals given with it (`gatefs call ID read
   * --help`: that tool's arguments), when it has one; absent or undefined: the standard help.
   */
  help?(args: string[]): Promise<string | undefined>;
  /** Runs the command; resolves to the exit code (0 ok, 1 tool or domain error). */
  run(ctx: CommandContext): Promise<number>;
}
