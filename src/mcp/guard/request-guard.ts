/**
 * The checks every HTTP request to `gatefs serve --http` passes before the MCP transport sees
 * it: the Host header (DNS rebinding), the Origin header (a browser page on another site), and
 * the bearer token. Pure: takes headers, returns a verdict.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What `checkRequest` enforces. */
export interface GuardPolicy {
  /** Accepted Host header values (`host:port`, lower case); `null` accepts any. */
  allowedHosts: Set<string> | null;
  /** The bearer token clients must present; `null` when the server runs with `--no-token`. */
  token: string | null;
  /**
   * Where a client's operator finds the token, for the 401 message (e.g. "the file serve-token
   * in the server's state dir"). Never a host path: any local process can read a 401.
   */
  tokenHint?: string;
}

/** A refusal: the HTTP status, a reason safe to show the client, and (401) the challenge header. */
interface GuardRefusal {
  status: 401 | 403;
  reason: string;
  /** The `WWW-Authenticate` value of a 401. */
  challenge?: string;
}

/**
 * Checks one request. Returns `null` when it may proceed, or the refusal:
 * 403 for a Host header not in the allow list or an Origin whose host is not in it (a missing
 * Origin is fine: non-browser clients send none); 401 when a token is required and the
 * Authorization header is missing, is not `Bearer`, or carries another token (compared in
 * constant time). Each 401 reason says which of these it was and how to fix it.
 */
export function checkRequest(headers: IncomingHttpHeaders, policy: GuardPolicy): GuardRefusal | null {
  return checkOrigin(headers, policy.allowedHosts) ?? checkAuthorization(headers, policy);
}

/** The Host and Origin part of `checkRequest`: `null`, or a 403 refusal. */
export function checkOrigin(headers: IncomingHttpHeaders, allowedHosts: Set<string> | null): GuardRefusal | null {
  const host = (headers.host ?? '').toLowerCase();
  if (allowedHosts && !allowedHosts.has(host)) {
    return { status: 403, reason: `Host header "${host.slice(0, 100)}" is not allowed (DNS rebinding protection)` };
  }
  const origin = headers.origin;
  if (origin !== undefined && allowedHosts) {
    let originHost = '';
    try {
      const url = new URL(origin);
      const port = url.port || (url.protocol === 'https:' ? '443' : '80');
      originHost = url.protocol === 'http:' || url.protocol === 'https:' ? `${url.hostname}:${port}`.toLowerCase() : '';
    } catch {
      originHost = '';
    }
    if (!allowedHosts.has(originHost)) {
      return { status: 403, reason: `Origin "${String(origin).slice(0, 100)}" is not allowed` };
    }
  }
  return null;
}

/** The bearer part of `checkRequest`: `null` (no token required, or the right one), or a 401 refusal. */
export function checkAuthorization(headers: IncomingHttpHeaders, policy: GuardPolicy): GuardRefusal | null {
  if (policy.token === null) return null;
  return checkBearer(headers.authorization, policy.token, tokenHowTo(policy.tokenHint));
}

/** How to authenticate, in one sentence (for 401 bodies and the OAuth probe answers). */
export function tokenHowTo(hint = "the server's stderr (gatefs serve prints it at start)"): string {
  // No double quotes: the SDK client shows the raw JSON body, where they would read \"escaped\".
  return `send the header 'Authorization: Bearer <token>' (in an MCP client config: under headers); the token is in ${hint}`;
}

/**
 * The token check. The `WWW-Authenticate` challenge names the Bearer scheme (RFC 6750; a 401
 * must carry one, RFC 9110) with a realm and, for a wrong token, `error="invalid_token"`, and
 * deliberately no `resource_metadata`: that parameter is what sends MCP clients into OAuth
 * discovery. The SDK's client starts OAuth on any 401 when it was given an auth provider, header
 * or not; for those clients the discovery URLs answer at once that gatefs has no OAuth
 * (`http/auth-probe.ts`), so the flow ends with this same instruction instead of a browser prompt.
 */
function checkBearer(authorization: string | undefined, token: string, how: string): GuardRefusal | null {
  if (authorization === undefined || authorization.trim() === '') {
    return {
      status: 401,
      reason: `unauthorized: this gatefs server requires a bearer token and the request has no Authorization header; ${how}`,
      challenge: 'Bearer realm="gatefs"',
    };
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) {
    const scheme = authorization.trim().split(/\s+/)[0].slice(0, 20);
    return {
      status: 401,
      reason: `unauthorized: the Authorization header uses ${scheme}, not a bearer token; ${how}`,
      challenge: 'Bearer realm="gatefs"',
    };
  }
  if (!sameSecret(m[1], token)) {
    return {
      status: 401,
      reason: `unauthorized: the bearer token is not this server's (it may have been rotated with gatefs token rotate, or be another server's); ${how}`,
      challenge: 'Bearer realm="gatefs", error="invalid_token"',
    };
  }
  return null;
}

/** Constant-time comparison of two secrets of any length (their sha256 digests are compared). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
