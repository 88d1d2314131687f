/**
 * Help texts: `gatefs --help` / `gatefs help` (every command with its summary) and
 * `gatefs <command> --help` / `gatefs help <command>` (synopsis, flags, global flags, details).
 */
import type { Command } from './command.js';
import { GLOBAL_HELP } from './global-flags.js';
import { gatefsVersion } from '../mcp/initialize/index.js';

function rows(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

/** The top-level help listing every command. */
export function mainHelp(commands: readonly Command[]): string {
  return [
    `gatefs ${gatefsVersion()}: isolated, gated workspaces for AI coding agents`,
    '',
    'Usage: gatefs <command> [flags]',
    '',
    'Commands:',
    rows(commands.map((c) => [c.name, c.summary])),
    '',
    'Global flags:',
    rows(GLOBAL_HELP),
    '',
    'Run "gatefs help <command>" (or "gatefs <command> --help") for a command\'s flags; "gatefs version" (or -v) prints the version.',
    'Start with "gatefs demo".',
    'Exit codes: 0 ok, 1 a tool or workspace error (its code is printed), 2 a usage error.',
  ].join('\n');
}

/** The help of one command. */
export function commandHelp(command: Command): string {
  return [
    `Usage: ${command.usage}`,
    '',
    command.summary,
    ...(command.optionHelp.length ? ['', 'Flags:', rows(command.optionHelp)] : []),
    '',
    'Global flags:',
    rows(GLOBAL_HELP),
    ...(command.details ? ['', command.details] : []),
  ].join('\n');
}
