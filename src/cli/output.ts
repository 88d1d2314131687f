/**
 * Where the CLI writes: results to stdout (tables or JSON), progress and errors to stderr.
 * Keeping progress off stdout lets scripts pipe `--json` output and keeps `serve`'s stdout
 * protocol-only.
 *
 * Every text passes through here terminal-safe (SECURITY.md class T, tools/terminal-text.ts):
 * a control or invisible character that agent- or repository-written text carries (a file
 * name, a summary, check output) is shown escaped, never acted on by the terminal; JSON keeps
 * the exact strings, with those characters as `\uXXXX` escapes.
 */
import { terminalSafe, terminalSafeJson } from '../../tools/text/index.js';
import { standardError, standardOutput } from '../ports/process-io.js';

export interface Output {
  /** One block of result text on stdout (control characters escaped; line feeds and tabs kept). */
  print(text: string): void;
  /** A value as pretty JSON on stdout (for `--json`): parses back to exactly `value`. */
  json(value: unknown): void;
  /** A value as one line of JSON on stdout (JSON Lines, `gatefs log --json`). */
  jsonLine(value: unknown): void;
  /** A progress or log line on stderr, prefixed `gatefs:`. */
  progress(line: string): void;
  /** A block of text on stderr as it is given (no prefix), control characters escaped. */
  problem(text: string): void;
}

/** `text` ending with one line feed. */
const ended = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** The output bound to this process's stdout and stderr. */
export function processOutput(): Output {
  return {
    print: (text) => void standardOutput().write(ended(terminalSafe(text))),
    json: (value) => void standardOutput().write(`${terminalSafeJson(value, 2)}\n`),
    jsonLine: (value) => void standardOutput().write(`${terminalSafeJson(value)}\n`),
    progress: (line) => void standardError().write(`gatefs: ${terminalSafe(line)}\n`),
    problem: (text) => void standardError().write(ended(terminalSafe(text))),
  };
}
