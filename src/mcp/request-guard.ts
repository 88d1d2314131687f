/**
 * The checks every HTTP request to `gatefs serve --http` passes before the MCP transport sees
 * it: the Host header (DNS rebinding), the Origin header (a browser page on another site), and
 * the optional bearer token. Pure: takes headers, returns a verdict.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What `checkRequest` enforces. */
export interface GuardPolicy {
  /** Accepted Host header values (`host:port`, lower case); `null` accepts any. */
  allowedHosts: Set<string> | null;
  /** The bearer token clients must present, if any. */
  token?: string;
}

/** A refusal: the HTTP status and a one-line reason safe to show the client. */
export interface GuardRefusal {
  status: 401 | 403;
  reason: string;
}

/**
 * Checks one request. Returns `null` when it may proceed, or the refusal:
 * 403 for a Host header not in the allow list or an Origin whose host is not in it (a missing
 * Origin is fine: non-browser clients send none), 401 for a missing or wrong bearer token.
 */
export function checkRequest(headers: IncomingHttpHeaders, policy: GuardPolicy): GuardRefusal | null {
  const host = (headers.host ?? '').toLowerCase();
  if (policy.allowedHosts && !policy.allowedHosts.has(host)) {
    return { status: 403, reason: `Host header "${host.slice(0, 100)}" is not allowed (DNS rebinding protection)` };
  }
  const origin = headers.origin;
  if (origin !== undefined && policy.allowedHosts) {
    let originHost = '';
    try {
      const url = new URL(origin);
      const port = url.port || (url.protocol === 'https:' ? '443' : '80');
      originHost = url.protocol === 'http:' || url.protocol === 'https:' ? `${url.hostname}:${port}`.toLowerCase() : '';
    } catch {
      originHost = '';
    }
    if (!policy.allowedHosts.has(originHost)) {
      return { status: 403, reason: `Origin "${String(origin).slice(0, 100)}" is not allowed` };
    }
  }
  if (policy.token !== undefined) {
    const m = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
    if (!m || !sameSecret(m[1].trim(), policy.token)) {
      return { status: 401, reason: 'missing or wrong bearer token (send Authorization: Bearer <token>)' };
    }
  }
  return null;
}

/** Constant-time comparison of two secrets of any length. */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
