/**
 * `UsageError`: the command line itself is wrong (unknown command or flag, a missing or invalid
 * argument). The CLI prints its one line plus a pointer to `--help` and exits with code 2.
 */
import { CodedError } from '../../vfs/coded-error.js';

/** A wrong command line; its one code is `USAGE`, `data.command` the subcommand if known. */
export class UsageError extends CodedError<'USAGE', { readonly command?: string }> {
  override readonly name = 'UsageError';

  /** `command` is the subcommand whose help the line points to, if known. */
  constructor(message: string, command?: string) {
    super('USAGE', message, command === undefined ? {} : { command });
  }

  /** The subcommand whose help the line points to, if known. */
  get command(): string | undefined {
    return this.data.command;
  }
}
