/**
 * Who may see the status page: the same bearer token as the MCP endpoint. A browser cannot send
 * an `Authorization` header when it opens a URL, so the page also accepts a cookie that only
 * the token can make: `POST /login` with the token (the page's form, or the URL the server
 * prints, whose `#token=` fragment never reaches any server log) answers with
 * `gatefs_status_<port>=<HMAC-SHA256 of a fixed label under the token>`, HttpOnly,
 * SameSite=Strict, for this path only. Browsers share cookies between the ports of one host, so
 * the name carries the server's port: two servers on one machine do not sign each other's pages
 * out. The cookie is not the token: it opens the read-only page and nothing else (the MCP
 * endpoint takes the bearer header only), and a new token (a rotation) makes it worthless.
 * Compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { checkAuthorization } from '../guard/index.js';

/** The cookie's name for the server on `port`. */
const statusCookie = (port: string) => `gatefs_status_${port}`;

/** The port a request was sent to, from its Host header (checked against the server's before this runs). */
export function requestPort(headers: IncomingHttpHeaders): string {
  const m = /:(\d{1,5})$/.exec(headers.host ?? '');
  return m ? m[1]! : '80';
}

/** The cookie value the token makes. */
function statusCookieValue(token: string): string {
  return createHmac('sha256', token).update('gatefs status page, read-only').digest('hex');
}

/** The `Set-Cookie` header that signs a browser in with `token` to the server on `port`. */
export function statusCookieHeader(token: string, port: string): string {
  return `${statusCookie(port)}=${statusCookieValue(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

/** True when the request may see the page: no token required, the right bearer header, or the right cookie. */
export function mayViewStatus(headers: IncomingHttpHeaders, token: string | null): boolean {
  if (token === null) return true;
  if (headers.authorization !== undefined && checkAuthorization(headers, { allowedHosts: null, token }) === null) return true;
  const cookie = cookieOf(headers.cookie, statusCookie(requestPort(headers)));
  return cookie !== undefined && sameText(cookie, statusCookieValue(token));
}

/** True when `given` (a login form's token) is the server's token. */
export function isTheToken(given: string, token: string): boolean {
  return sameText(given, token);
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Constant-time equality of two strings of any length (their HMACs under a fixed key are compared). */
function sameText(a: string, b: string): boolean {
  const digest = (s: string) => createHmac('sha256', 'gatefs compare').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}
