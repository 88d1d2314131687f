/**
 * `gatefs token show|rotate [--address HOST:PORT]`: the bearer tokens `gatefs serve --http` keeps
 * in the state dir, one per server address (`<stateDir>/serve-token-<host>-<port>`).
 *
 * `show` prints each kept token with its address and file (what a client config needs). `rotate`
 * replaces one address's token, or every one, with a new token (written atomically, mode 600): a
 * server running on that address takes the new token at its next request and answers the old one
 * with 401, and later starts keep the new one. Neither opens the host: nothing is appended to the
 * run log and no state is created; a token file that is a link, another user's or open to others
 * is shown as refused and never read.
 */
import { join } from 'node:path';
import type { Command, CommandContext } from './command.js';
import { UsageError } from './usage-error.js';
import {
  type SavedTokenFile,
  type TokenAddress,
  addressText,
  generateToken,
  ListenAddressError,
  listSavedTokens,
  parseListenAddress,
  readSavedToken,
  TokenError,
  writeServeToken,
} from '../mcp/http/index.js';

/** The `token` command. */
export const tokenCommand: Command = {
  name: 'token',
  summary: 'show or rotate the bearer tokens serve --http keeps per server address',
  usage: 'gatefs token show [--address HOST:PORT] | gatefs token rotate [--address HOST:PORT]',
  positionals: ['action?'],
  options: { address: { type: 'string' } },
  optionHelp: [['--address HOST:PORT', 'only the token of this server address (as given to serve --http); default: every one']],
  details: [
    'Actions:',
    '  show    print each kept token with its server address and file',
    '  rotate  replace the token with a new one; a server running on that address takes it at its next request',
    '          and answers the old one with 401; later starts keep the new one',
    'serve --http keeps one token per state dir and address, made at its first start there; --token-file and',
    'GATEFS_TOKEN are not kept and not rotated here.',
    'Examples:',
    '  gatefs token show --address 127.0.0.1:8808',
    '  gatefs token rotate --address 127.0.0.1:8808',
  ].join('\n'),
  async run(ctx) {
    const action = ctx.args[0];
    if (action === 'show') return show(ctx);
    if (action === 'rotate') return rotate(ctx);
    const got = action === undefined ? '' : ` (got "${action.slice(0, 40)}")`;
    throw new UsageError(
      `token needs an action${got}: show (print each kept token with its address and file), or rotate (replace it with a new one)`,
      'token',
    );
  },
};

/** One kept token as `show` reports it. */
interface ShownToken {
  address: string;
  file: string;
  token: string | null;
  /** Why the file was not read (a link, another user's, open to others, no valid token). */
  refused?: string;
}

function show({ globals, flags, out }: CommandContext): number {
  const { stateDir, files } = selected(globals, flags);
  const rows: ShownToken[] = files.map(({ address, file }) => {
    try {
      return { address: addressText(address), file, token: readSavedToken(file) };
    } catch (e) {
      if (!(e instanceof TokenError)) throw e;
      return { address: addressText(address), file, token: null, refused: e.message };
    }
  });
  if (globals.json) out.json(rows);
  else if (rows.length === 0) out.print(noneKept(stateDir, flags));
  else out.print(rows.map((r) => (r.token ? `${r.address}  ${r.token}  (${r.file})` : `${r.address}  refused: ${r.refused}`)).join('\n'));
  return rows.length > 0 && rows.every((r) => r.token !== null) ? 0 : 1;
}

function rotate({ globals, flags, out }: CommandContext): number {
  const { stateDir, files } = selected(globals, flags);
  if (files.length === 0) {
    out.print(noneKept(stateDir, flags));
    return 1;
  }
  const rows = files.map(({ address }) => {
    const token = generateToken();
    const file = writeServeToken(stateDir, address, token);
    return { address: addressText(address), file, token };
  });
  if (globals.json) out.json(rows);
  else {
    out.print(rows.map((r) => `${r.address}  ${r.token}  (new, in ${r.file})`).join('\n'));
    out.print('A server running on a rotated address takes the new token at its next request; the old one now gets 401.');
  }
  return 0;
}

/** The state dir and its kept token files, only `--address`'s when given. */
function selected(globals: CommandContext['globals'], flags: CommandContext['flags']): { stateDir: string; files: SavedTokenFile[] } {
  const stateDir = globals.stateDir ?? join(globals.repo, '.gatefs');
  const files = listSavedTokens(stateDir);
  if (typeof flags.address !== 'string') return { stateDir, files };
  const wanted = addressOf(flags.address);
  return { stateDir, files: files.filter((f) => f.address.host === wanted.host && f.address.port === wanted.port) };
}

function addressOf(text: string): TokenAddress {
  try {
    const { host, port } = parseListenAddress(text);
    if (port === 0) throw new UsageError('--address needs the port the server listens on: port 0 keeps no token', 'token');
    return { host, port };
  } catch (e) {
    if (e instanceof ListenAddressError) throw new UsageError(e.message.replace('--http', '--address'), 'token');
    throw e;
  }
}

function noneKept(stateDir: string, flags: CommandContext['flags']): string {
  const which = typeof flags.address === 'string' ? ` for ${addressText(addressOf(flags.address))}` : '';
  return `No token is kept${which} in ${stateDir}: gatefs serve --http keeps one per address from its first start there.`;
}
