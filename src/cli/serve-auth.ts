/**
 * Which bearer token `gatefs serve --http` requires, from its flags and environment:
 * `--token-file F` (first line of F, a file of mode 600 that is yours), else `GATEFS_TOKEN`, else
 * the token kept for the server's address in the state dir (`<stateDir>/serve-token-<host>-<port>`),
 * generated and saved at the first start on that address, kept across restarts until
 * `gatefs token rotate`, and followed while the server runs (a rotation takes effect at the next
 * request). `--no-token` requires none and is accepted on a loopback address only. A token value
 * on the command line is refused: every local user can read it there.
 */
import { join } from 'node:path';
import type { FlagValues } from './command.js';
import type { GlobalFlags } from './global-flags.js';
import { UsageError } from './usage-error.js';
import {
  type ListenAddress,
  SavedTokenWatch,
  TokenError,
  addressText,
  checkToken,
  generateToken,
  readSavedToken,
  readTokenFile,
  savedTokenName,
  writeServeToken,
} from '../mcp/http/index.js';

/** Why `--token T` is refused, and what to use instead. */
export const TOKEN_ON_COMMAND_LINE =
  'every local user can read a command line (ps, /proc/<pid>/cmdline); put the token in a file of mode 600 and pass ' +
  '--token-file FILE, or set GATEFS_TOKEN, or pass neither and gatefs keeps one per server address in its state dir';

/** What `resolveServeAuth` decided. */
interface ServeAuth {
  /**
   * Where clients find the token, for 401 messages (no host path: any local process reads
   * those); a function of the bound port for a saved token (its file is named by the address).
   */
  readonly hint?: string | ((port: number) => string);
  /**
   * The token to require (`null` with `--no-token`), or for a saved token a function answering
   * the one in force (read once the state dir exists, i.e. after the host opened; generated when
   * none is saved yet, not saved until `announce`).
   */
  settle(): string | null | (() => string);
  /**
   * Saves a newly generated token for the bound `port` and gives `log` the line for the
   * operator (the token and its file). Call it only once the server listens: a server that fails
   * to start (its port taken by a running server) must not replace the token file of the one
   * that runs.
   */
  announce(log: (line: string) => void, port: number): void;
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
  return savedToken(address, globals);
}

/** The token kept for the server's address in the state dir (see the file comment). */
function savedToken(address: ListenAddress, globals: GlobalFlags): ServeAuth {
  const stateDir = globals.stateDir ?? join(globals.repo, '.gatefs');
  const where = globals.stateDir ? 'the --state-dir folder the server was started with' : 'the .gatefs folder of the repository it serves';
  let token = '';
  let fresh = true;
  let refused: string | undefined;
  let watch: SavedTokenWatch | undefined;
  return {
    hint: (port) =>
      `the file ${savedTokenName({ host: address.host, port })} in ${where} (kept across restarts until gatefs token rotate; ` +
      '`gatefs token show` prints it)',
    settle() {
      // Port 0 binds a new port at every start: nothing kept can belong to it.
      if (address.port !== 0) {
        const file = join(stateDir, savedTokenName(address));
        try {
          const kept = readSavedToken(file);
          if (kept !== null) {
            token = kept;
            fresh = false;
            watch = new SavedTokenWatch(file, kept);
          }
        } catch (e) {
          if (!(e instanceof TokenError)) throw e;
          refused = e.message;
        }
      }
      if (fresh) token = generateToken();
      return () => watch?.current() ?? token;
    },
    announce(log, port) {
      const bound = { host: address.host, port };
      if (refused) log(`${refused}: replaced by a new token`);
      let file = watch?.file;
      if (fresh) {
        file = writeServeToken(stateDir, bound, token);
        watch = new SavedTokenWatch(file, token, (reason) => log(reason));
      }
      const kept =
        address.port === 0
          ? '; port 0 gives a new port, and so a new token, at every start'
          : fresh
            ? '; kept across restarts until gatefs token rotate'
            : '; gatefs token rotate makes a new one';
      log(`bearer token for ${addressText(bound)} (${fresh ? 'new, saved' : 'kept'} in ${file}, mode 600${kept}): ${token}`);
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
