/**
 * The status page's routes on `gatefs serve --http`, read-only, behind the same token as MCP:
 *
 * - `GET /`: the page (`status-page.ts`); without the token a sign-in page with a 401.
 * - `POST /login`: the sign-in form (`token=…`): the right token gets the page's cookie
 *   (`status-auth.ts`) and a redirect to `/`; a wrong one the sign-in page again, with a 401.
 * - `GET /events`: the live feed (server-sent events, `StatusFeed`).
 * - `GET /status.json`: the same data as JSON, for scripts (bearer header or cookie).
 *
 * Each request first passes the Host/Origin guard of the MCP endpoint (403: DNS rebinding, a page
 * of another site). Every answer carries a strict Content-Security-Policy (only this response's
 * nonce may run a script or a style), `no-store`, `nosniff`, no referrer to other sites and no framing.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Host } from '../../host/composition/index.js';
import { checkOrigin } from '../guard/index.js';
import { isTheToken, mayViewStatus, requestPort, statusCookieHeader } from './status-auth.js';
import { StatusFeed } from './status-feed.js';
import { signInPageHtml, statusPageHtml } from './status-page.js';
import { statusSnapshot } from './status-snapshot.js';

/** The paths the page owns. */
const PATHS = new Set(['/', '/login', '/events', '/status.json']);
/** The sign-in form's body, at most. */
const LOGIN_BODY_BYTES = 4096;

/** True when `path` is one of the status page's. */
export function isStatusPath(path: string): boolean {
  return PATHS.has(path);
}

/** What the routes need. */
interface StatusRoutesOptions {
  /** The bearer token in force now (null: `--no-token`); asked at every request, so a rotated token takes effect at once. */
  token: () => string | null;
  /** The Host header values the server answers to (filled once it listens). */
  allowedHosts: () => Set<string> | null;
  /** Open MCP sessions per conversation, now. */
  sessions: () => ReadonlyMap<string, number>;
  version: string;
  log: (line: string) => void;
  /** How often the live feed looks at the host (default 1000 ms). */
  feedEveryMs?: number;
}

/** The status page of one HTTP server (see the file comment). */
export class StatusRoutes {
  private readonly feed: StatusFeed;

  constructor(
    private readonly host: Host,
    private readonly options: StatusRoutesOptions,
  ) {
    this.feed = new StatusFeed(host, {
      sessions: options.sessions,
      log: options.log,
      ...(options.feedEveryMs ? { everyMs: options.feedEveryMs } : {}),
    });
  }

  /** Answers a request for one of the page's paths (`isStatusPath`). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const refused = checkOrigin(req.headers, this.options.allowedHosts());
    if (refused) return plain(res, refused.status, refused.reason);
    const nonce = randomBytes(16).toString('base64');
    secure(res, nonce);
    if (url.pathname === '/login') return this.login(req, res, nonce);
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'the status page is read-only: GET it');
    if (!mayViewStatus(req.headers, this.options.token())) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="gatefs"');
      if (url.pathname === '/') return html(res, 401, signInPageHtml({ nonce, wrong: false }));
      return plain(res, 401, 'unauthorized: send the header Authorization: Bearer <token>, or sign in on the page at /');
    }
    switch (url.pathname) {
      case '/':
        return html(res, 200, statusPageHtml(statusSnapshot(this.host, this.options.sessions()), { nonce, version: this.options.version }));
      case '/status.json':
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify(statusSnapshot(this.host, this.options.sessions())));
      default: {
        // A browser reconnecting by itself sends the last event id it saw; a page that reconnects sends `after`.
        const seqs = [url.searchParams.get('after'), req.headers['last-event-id']].map(Number);
        return this.feed.listen(res, Math.max(0, ...seqs.filter((n) => Number.isSafeInteger(n))));
      }
    }
  }

  /** Ends the live streams. */
  close(): void {
    this.feed.close();
  }

  private async login(req: IncomingMessage, res: ServerResponse, nonce: string): Promise<void> {
    if (req.method !== 'POST') return plain(res, 405, 'POST the sign-in form to /login');
    const body = await readSmallBody(req);
    const token = body === null ? null : new URLSearchParams(body).get('token');
    const expected = this.options.token();
    if (expected !== null && (token === null || !isTheToken(token.trim(), expected))) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="gatefs"');
      return html(res, 401, signInPageHtml({ nonce, wrong: true }));
    }
    if (expected !== null) res.setHeader('Set-Cookie', statusCookieHeader(expected, requestPort(req.headers)));
    res.writeHead(303, { Location: '/' });
    res.end();
  }
}

/** The security headers of every status answer. */
function secure(res: ServerResponse, nonce: string): void {
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; ` +
      "frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the sign-in form, which the guard refuses.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(body);
}

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** The request body as text, or null past `LOGIN_BODY_BYTES` (the rest is not read). */
function readSmallBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > LOGIN_BODY_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', () => resolve(null));
  });
}
