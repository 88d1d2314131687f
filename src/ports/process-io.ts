/**
 * The process's own inputs and outputs: its standard streams, the arguments it was started with,
 * its environment and working folder, and how it ends. The CLI's entry files read them here and
 * hand them on as values (a command's `CommandContext`, a transport's streams), so the global
 * `process` is named in src/ports only (STYLE.md 4; test/architecture.test.ts `GLOBALS_ONLY_IN`).
 *
 * Every function reads the process when called, never when this file loads: Node creates
 * `process.stdin` on first access, and the working folder may be gone by then. Nothing here
 * guards what is read: the environment and the arguments are whatever started the process.
 */

/** This process's stdin (`process.stdin`): created by Node on the first call. */
export function standardInput(): NodeJS.ReadStream {
  return process.stdin;
}

/** This process's stdout (`process.stdout`). */
export function standardOutput(): NodeJS.WriteStream {
  return process.stdout;
}

/** This process's stderr (`process.stderr`). */
export function standardError(): NodeJS.WriteStream {
  return process.stderr;
}

/** The arguments after the program and script (`process.argv.slice(2)`), a new array each call. */
export function commandLineArguments(): string[] {
  return process.argv.slice(2);
}

/** This process's environment, the live object (`process.env`): later changes show through it. */
export function environment(): NodeJS.ProcessEnv {
  return process.env;
}

/** The working folder (`process.cwd()`). Throws (`ENOENT`) when that folder was removed. */
export function workingFolder(): string {
  return process.cwd();
}

/** The code the process exits with when it ends by itself (`process.exitCode`). */
export function setExitCode(code: number): void {
  process.exitCode = code;
}

/** Ends the process at once with `code` (`process.exit`): pending writes to a pipe may be lost. */
export function exitNow(code: number): never {
  process.exit(code);
}
