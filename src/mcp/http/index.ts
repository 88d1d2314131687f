/**
 * The HTTP room of src/mcp: the door of `gatefs serve --http`. `serveHttp` serves MCP over
 * Streamable HTTP, many conversations at once, each request through the guard chain (Host and
 * Origin, the OAuth probes, the bearer token, the route, the body limits) and each new session
 * through the session caps and the creation budget, with the status page beside it. Also what
 * the CLI needs before it serves: the listen address, the serve token and its file, and the
 * default limits its help shows.
 *
 * Loading this door loads none of the MCP SDK: `serveHttp` loads `http-server.ts` (and with it
 * the SDK's HTTP transport) on its first call, so a `gatefs` command that does not serve never
 * pays for it.
 */
import type { Host } from '../../host/composition/index.js';
import type { HttpServeOptions, RunningHttpServer } from './http-server.js';

export { DEFAULT_CREATION_LIMITS } from './creation-budget.js';
export { ListenAddressError, parseListenAddress, type ListenAddress } from './listen-address.js';
export {
  addressText,
  checkToken,
  generateToken,
  listSavedTokens,
  readSavedToken,
  readTokenFile,
  SavedTokenWatch,
  savedTokenName,
  TokenError,
  writeServeToken,
  type SavedTokenFile,
  type TokenAddress,
} from './serve-token.js';
export { DEFAULT_SESSION_LIMITS } from './session-table.js';

/**
 * Starts the HTTP server: `serveHttp` of `http-server.ts`, loaded on the first call (see the
 * file comment). Resolves once listening; rejects as that function does (`InsecureBindError`
 * for a non-loopback address without a token, the listen error such as `EADDRINUSE`).
 */
export async function serveHttp(host: Host, options: HttpServeOptions): Promise<RunningHttpServer> {
  const { serveHttp: serve } = await import('./http-server.js');
  return serve(host, options);
}
