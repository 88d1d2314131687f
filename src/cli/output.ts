/**
 * Where the CLI writes: results to stdout (tables or JSON), progress and errors to stderr.
 * Keeping progress off stdout lets scripts pipe `--json` output and keeps `serve`'s stdout
 * protocol-only.
 */

export interface Output {
  /** One block of result text on stdout. */
  print(text: string): void;
  /** A value as pretty JSON on stdout (for `--json`). */
  json(value: unknown): void;
  /** A progress or log line on stderr, prefixed `gatefs:`. */
  progress(line: string): void;
}

/** The output bound to this process's stdout and stderr. */
export function processOutput(): Output {
  return {
    print: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    json: (value) => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    progress: (line) => void process.stderr.write(`gatefs: ${line}\n`),
  };
}
