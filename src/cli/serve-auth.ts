/**
 * Which bearer token `gatefs serve --http` requires, from its flags and environment:
 * `--token-file F` (first line of F, a file of mode 600 that is yours), else `GATEFS_TOKEN`, else a
 * token generated at start, printed once on stderr and saved to `<stateDir>/serve-token`.
 * `--no-token` requires none and is accepted on a loopback address only. A token value on the
 * command line is refused: every local user can read it there.
 */
import { join } from 'node:path';
import type { FlagValues } from './command.js';
import type { GlobalFlags } from './global-flags.js';
import { UsageError } from './usage-error.js';
import {
  type ListenAddress,
  SERVE_TOKEN_FILE,
  TokenError,
  checkToken,
  generateToken,
  readTokenFile,
  writeServeToken,
} from '../mcp/http/index.js';

/** Why `--token T` is refused, and what to use instead. */
export const TOKEN_ON_COMMAND_LINE =
  'every local user can read a command line (ps, /proc/<pid>/cmdline); put the token in a file of mode 600 and pass ' +
  '--token-file FILE, or set GATEFS_TOKEN, or pass neither and gatefs generates one';

/** What `resolveServeAuth` decided. */
interface ServeAuth {
  /** Where clients find the token, for 401 messages (no host path: any local process reads those). */
  readonly hint?: string;
  /** The token to require (`null` with `--no-token`); a generated one is drawn here, not saved yet. */
  settle(): string | null;
  /**
   * Saves a generated token to `<stateDir>/serve-token` and gives `log` the line for the operator
   * (the token, once). Call it only once the server listens: a server that fails to start (its
   * port taken by a running server) must not replace the token file of the one that runs.
   */
  announce(log: (line: string) => void): void;
}

/** Inputs of `resolveServeAuth`. */
interface ServeAuthInput {
  tokenFile: FlagValues[string];
  noToken: boolean;
  env: NodeJS.ProcessEnv;
  address: ListenAddress;
  globals: GlobalFlags;
}

/**
 * Checks the token flags and reads a chosen token. Throws `UsageError` for `--no-token` off
 * loopback, `--no-token` with `--token-file`, or a token file or `GATEFS_TOKEN` that
 * `readTokenFile` / `checkToken` refuse (the message says why and how to fix it).
 */
export function resolveServeAuth({ tokenFile, noToken, env, address, globals }: ServeAuthInput): ServeAuth {
  if (noToken && tokenFile !== undefined) throw new UsageError('--no-token and --token-file contradict each other: pass one', 'serve');
  if (noToken) {
    if (!address.loopback) {
      throw new UsageError(
        `refusing to serve on ${address.host} without a token: --no-token is accepted on a loopback address (127.0.0.1, ::1, localhost) only`,
        'serve',
      );
    }
    return { settle: () => null, announce: () => undefined };
  }
  if (typeof tokenFile === 'string') {
    const token = usage(() => readTokenFile(tokenFile));
    return { hint: 'the --token-file the server was started with', settle: () => token, announce: () => undefined };
  }
  if (env.GATEFS_TOKEN) {
    const token = usage(() => checkToken(env.GATEFS_TOKEN!, 'GATEFS_TOKEN'));
    return { hint: 'the GATEFS_TOKEN environment variable the server was started with', settle: () => token, announce: () => undefined };
  }
  const stateDir = globals.stateDir ?? join(globals.repo, '.gatefs');
  const where = globals.stateDir ? 'the --state-dir folder the server was started with' : 'the .gatefs folder of the repository it serves';
  const token = generateToken();
  return {
    hint: `the file ${SERVE_TOKEN_FILE} in ${where} (a new token at every start; it is also on the server's stderr)`,
    settle: () => token,
    announce(log) {
      const file = writeServeToken(stateDir, token);
      log(`bearer token for this run (also in ${file}, mode 600; a new one at every start, use --token-file for a fixed one): ${token}`);
    },
  };
}

function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof TokenError) throw new UsageError(e.message, 'serve');
    throw e;
  }
}
