/**
 * Answers for the OAuth discovery and registration requests an MCP client sends after a 401
 * (`/.well-known/oauth-protected-resource…`, `/.well-known/oauth-authorization-server…`,
 * `/.well-known/openid-configuration…`, then `/register`, `/authorize`, `/token`): gatefs has no
 * OAuth, and says so at once, without a token, with the instruction a person needs.
 *
 * The MCP SDK client treats a 404 on the metadata URLs as "no OAuth metadata" and goes on to
 * dynamic registration at `/register`; that answer is an OAuth error object whose
 * `error_description` the client shows as the failure, so a client that tried OAuth ends with
 * "use a bearer token" instead of opening a browser.
 */

/** A fixed answer: HTTP status and JSON body. */
interface ProbeAnswer {
  status: number;
  body: Record<string, unknown>;
}

const OAUTH_PATHS = new Set(['/register', '/authorize', '/token', '/revoke']);

/**
 * The answer for `path` when it is an OAuth probe, else `null`. `how` says how to authenticate
 * instead (the header and where the token is); it must not name host paths.
 */
export function answerAuthProbe(path: string, how: string): ProbeAnswer | null {
  const message = `gatefs does not use OAuth: ${how}`;
  if (path.startsWith('/.well-known/')) {
    return { status: 404, body: { error: 'not_found', error_description: message } };
  }
  if (OAUTH_PATHS.has(path)) {
    // `invalid_request`: an OAuth error the SDK reports with this description and never retries.
    return { status: 404, body: { error: 'invalid_request', error_description: message } };
  }
  return null;
}
