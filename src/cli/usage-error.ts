/**
 * `UsageError`: the command line itself is wrong (unknown command or flag, a missing or invalid
 * argument). The CLI prints its one line plus a pointer to `--help` and exits with code 2.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  /** `command` is the subcommand whose help the line points to, if known. */
  constructor(message: string, readonly command?: string) {
    super(message);
  }
}
