/**
 * The status page of `gatefs serve --http`, in a real browser: headless Chromium (Debian's
 * package, /usr/bin/chromium) driven by playwright-core. The page opens from the URL the server
 * prints, shows the workspaces with their holder and sessions, shows a workspace prepared by
 * another process after it opened and a tool call's run-log line without a reload (server-sent
 * events), filters its rows, and refuses anyone without the token. Without Chromium the browser
 * tests are skipped with a note saying so; the HTTP checks (the token, the cookie, the alias
 * route `/c/<conversation>/mcp`) run anyway.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { gatefs, sampleRepo } from '../cli/run-gatefs.js';
import { callTool, freePort, httpClient, startHttpServer, type HttpServer } from './mcp-client.js';
import { landerRowsHtml, summaryHtml } from '../../src/mcp/status-page/status-rows.js';

/** Debian's Chromium (GATEFS_CHROMIUM names another binary, or a missing one to see the skip). */
const CHROMIUM = process.env.GATEFS_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
// The browser globals the functions evaluated in the page use (the tests compile without the DOM library).
declare const document: {
  documentElement: { scrollWidth: number };
  body: { scrollWidth: number; classList: { contains(name: string): boolean } };
  querySelectorAll(selector: string): Iterable<{ getBoundingClientRect(): { right: number } }>;
};
declare const window: { innerWidth: number };
declare function getComputedStyle(element: unknown): { backgroundColor: string };
/** Where the screenshots go (1280 and 400 px wide, and a signed-out page), for a person to look at. */
const SCREENSHOTS = process.env.GATEFS_SCREENSHOTS ?? join(tmpdir(), 'gatefs-status-screenshots');
mkdirSync(SCREENSHOTS, { recursive: true });

let repo: ReturnType<typeof sampleRepo>;
let server: HttpServer;
const auth = () => ({ Authorization: `Bearer ${server.token}` });

beforeAll(async () => {
  repo = sampleRepo();
  expect((await gatefs(['prepare', 'alpha'], { cwd: repo.dir })).code).toBe(0);
  server = await startHttpServer([], repo.dir);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  repo?.cleanup();
});

describe('the status page over HTTP', () => {
  it('the server prints the page URL, and the token only once', async () => {
    await expect.poll(() => server.stderr()).toContain(`status page (read-only): ${server.base}/ (sign in with the bearer token)`);
    expect(server.stderr().split(server.token!).length - 1).toBe(1);
  });

  it('refuses every page request without the token: the sign-in page (401) holds no workspace', async () => {
    const page = await fetch(`${server.base}/`);
    expect(page.status).toBe(401);
    const body = await page.text();
    expect(body).toContain('needs the server’s bearer token');
    expect(body).not.toContain('alpha');
    for (const path of ['/status.json', '/events']) {
      const r = await fetch(`${server.base}${path}`);
      expect(r.status, path).toBe(401);
      expect(await r.text()).not.toContain('alpha');
    }
    const wrong = await fetch(`${server.base}/status.json`, { headers: { Authorization: 'Bearer not-the-token' } });
    expect(wrong.status).toBe(401);
  });

  it('the bearer header opens it; the sign-in form trades the token for a cookie that opens the page and not MCP', async () => {
    const json = await fetch(`${server.base}/status.json`, { headers: auth() });
    expect(json.status).toBe(200);
    const data = (await json.json()) as { workspaces: { conversation: string }[] };
    expect(data.workspaces.map((w) => w.conversation)).toContain('alpha');

    const badLogin = await fetch(`${server.base}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'nope' }),
      redirect: 'manual',
    });
    expect(badLogin.status).toBe(401);
    expect(badLogin.headers.get('set-cookie')).toBeNull();

    const login = await fetch(`${server.base}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: server.token! }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^gatefs_status_${server.port}=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=/$`));
    expect(cookie).not.toContain(server.token!);
    const withCookie = await fetch(`${server.base}/`, { headers: { Cookie: cookie.split(';')[0]! } });
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'nonce-/);
    expect(await withCookie.text()).toContain('alpha');
    const mcp = await fetch(`${server.base}/mcp/alpha`, {
      method: 'POST',
      headers: { Cookie: cookie.split(';')[0]!, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });

  it('a page of another site cannot read it (Origin refused with 403)', async () => {
    const r = await fetch(`${server.base}/status.json`, { headers: { ...auth(), Origin: 'http://evil.example' } });
    expect(r.status).toBe(403);
  });

  it('/c/<conversation>/mcp reaches the conversation, for clients that append /mcp (Inspector 0.15)', async () => {
    const client = await httpClient(`${server.base}/c/alpha/mcp`, auth());
    try {
      const r = await callTool(client, 'read', { path: 'README.md' });
      expect(r.isError).toBe(false);
      expect(r.structured.content).toContain('# greeter');
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(!hasChromium)('the status page in headless Chromium', () => {
  const profiles: string[] = [];
  const contexts: BrowserContext[] = [];
  let context: BrowserContext;

  /** A browser with a fresh, empty profile (its own cookies). */
  async function launch(): Promise<BrowserContext> {
    const { chromium } = await import('playwright-core');
    const profile = mkdtempSync(join(tmpdir(), 'gatefs-chromium-'));
    profiles.push(profile);
    const launched = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    contexts.push(launched);
    return launched;
  }

  beforeAll(async () => {
    context = await launch();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    for (const p of profiles) rmSync(p, { recursive: true, force: true });
  });

  it('opens from the printed URL with #token=, goes live, and shows the workspace with its holder and session', async () => {
    const client = await httpClient(`${server.base}/mcp/alpha`, auth());
    try {
      const page = await context.newPage();
      await page.goto(`${server.base}/#token=${server.token}`);
      await page.locator('#live', { hasText: 'live' }).waitFor();
      expect(page.url()).toBe(`${server.base}/`); // the token left the address bar
      const row = page.locator('#ws tr', { hasText: 'alpha' });
      // This client's session, and the alias test's (a client that closes without DELETE keeps its session until idle).
      await expect.poll(() => row.locator('td').nth(8).textContent()).toBe('2');
      // The holder by the client's name from initialize and the conversation; its id in the tooltip.
      expect(await row.locator('td').nth(7).textContent()).toBe('gatefs-test · alpha');
      expect(await row.locator('td').nth(7).getAttribute('title')).toMatch(/^mcp-\d+-[0-9a-f]+$/);
      await page.close();
    } finally {
      await client.close();
    }
  });

  it('shows a workspace prepared by another process after it opened, and new run-log lines, without a reload', async () => {
    const page = await context.newPage();
    await page.goto(`${server.base}/`); // signed in by the cookie of the test before
    await page.locator('#live', { hasText: 'live' }).waitFor();
    expect(await page.locator('#ws tr', { hasText: 'beta' }).count()).toBe(0);
    expect((await gatefs(['prepare', 'beta'], { cwd: repo.dir })).code).toBe(0);
    await page.locator('#ws tr', { hasText: 'beta' }).waitFor({ timeout: 15_000 });
    expect((await gatefs(['call', 'beta', 'read', '{"path":"../escape"}'], { cwd: repo.dir })).code).toBe(1);
    await page.locator('#log tr', { hasText: 'outcome=PATH_ESCAPE' }).first().waitFor({ timeout: 15_000 });
    expect(await page.locator('#summary').textContent()).toMatch(/^2 workspaces \(2 ready\)/);
    await page.close();
  });

  it('filters the rows as one types', async () => {
    const page = await context.newPage();
    await page.goto(`${server.base}/`);
    await page.locator('#q').fill('bet');
    expect(await page.locator('#ws tr:not([hidden])').allTextContents()).toEqual([expect.stringContaining('beta')]);
    expect(await page.locator('#shown').textContent()).toBe('1 shown');
    await page.close();
  });

  it('a browser without the token gets the sign-in page and no data; a wrong token is told so', async () => {
    const fresh = await launch();
    {
      const page = await fresh.newPage();
      const response = await page.goto(`${server.base}/`);
      expect(response?.status()).toBe(401);
      expect(await page.content()).not.toContain('alpha');
      await page.locator('#t').fill('not-the-token');
      await Promise.all([page.waitForNavigation(), page.locator('button').click()]);
      expect(await page.locator('body').textContent()).toContain('That is not this server’s token.');
      expect(await page.content()).not.toContain('alpha');
    }
  });

  it('marks failures as failures: a refused tool call is a ✗ row in red, a call that worked is not', async () => {
    expect((await gatefs(['call', 'alpha', 'read', '{"path":"README.md"}'], { cwd: repo.dir })).code).toBe(0);
    expect((await gatefs(['call', 'alpha', 'read', '{"path":"../escape-again"}'], { cwd: repo.dir })).code).toBe(1);
    const page = await context.newPage();
    await page.goto(`${server.base}/#token=${server.token}`);
    const failed = page.locator('#log tr', { hasText: 'outcome=PATH_ESCAPE' }).first();
    await failed.waitFor();
    expect(await failed.getAttribute('class')).toBe('fail');
    expect(await failed.locator('td').first().textContent()).toMatch(/^✗ \d+$/);
    const worked = page.locator('#log tr', { hasText: 'outcome=ok' }).first();
    await worked.waitFor();
    expect(await worked.getAttribute('class')).toBeNull();
    expect(await worked.locator('td').first().textContent()).toMatch(/^\d+$/);
    const background = (row: typeof worked) =>
      row
        .locator('td')
        .nth(2)
        .evaluate((td) => getComputedStyle(td).backgroundColor);
    expect(await background(failed)).toBe('rgb(255, 235, 233)');
    expect(await background(worked)).not.toBe(await background(failed));
    await page.close();
  });

  it('fits 1280 and 400 px wide: no sideways scrolling of the page, the tables scroll in their boxes (screenshots checked)', async () => {
    const client = await httpClient(`${server.base}/mcp/alpha`, auth());
    const page = await context.newPage();
    try {
      for (const width of [1280, 400]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.base}/#token=${server.token}`);
        await page.locator('#live', { hasText: 'live' }).waitFor();
        const sizes = await page.evaluate(() => ({
          page: document.documentElement.scrollWidth,
          body: document.body.scrollWidth,
          inner: window.innerWidth,
          boxes: [...document.querySelectorAll('.scroll')].map((b) => b.getBoundingClientRect().right),
        }));
        expect(sizes.page, `page width at ${width} px`).toBeLessThanOrEqual(sizes.inner);
        expect(sizes.body, `body width at ${width} px`).toBeLessThanOrEqual(sizes.inner);
        for (const right of sizes.boxes) expect(right).toBeLessThanOrEqual(sizes.inner);
        const file = join(SCREENSHOTS, `status-${width}.png`);
        const png = await page.screenshot({ path: file, fullPage: true });
        // A full-page PNG as wide as the window: nothing sticks out to the side.
        expect(png.readUInt32BE(16), `screenshot width at ${width} px`).toBe(width);
        expect(png.readUInt32BE(20)).toBeGreaterThan(200);
        // The holder is named, and in sight without scrolling, on either width (at 400 px the row reflows).
        const holder = page.locator('#ws tr', { hasText: 'alpha' }).locator('td').nth(7);
        expect(await holder.textContent()).toBe('gatefs-test · alpha');
        const box = (await holder.boundingBox())!;
        expect(box.x + box.width, `holder cell at ${width} px`).toBeLessThanOrEqual(width);
      }
      // At 400 px each workspace cell says which column it is (the header row is hidden).
      expect(await page.locator('#wstable thead').isHidden()).toBe(true);
      expect(await page.locator('#ws td[data-l="Holder"]').first().textContent()).toBe('gatefs-test · alpha');
    } finally {
      await page.close();
      await client.close();
    }
  });
});

describe("failure rows in the page's HTML", () => {
  it('a failed landing is a ✗ row and the summary counts it; a landed one is not marked', () => {
    const base = { conversation: 'c1', target: 'main', commit: 'abc', landed: null, attempts: 1 };
    const html = landerRowsHtml([
      { ...base, id: 'sub-1', state: 'failed', reason: 'CHECK_FAILED', failed: true },
      { ...base, id: 'sub-2', state: 'done', reason: null, failed: false },
    ]);
    expect(html).toMatch(/^<tr class="st-failed fail"><td><span class="mark" title="failed">✗<\/span> sub-1<\/td>/);
    expect(html).toContain('<tr class="st-done"><td>sub-2</td>');
    const summary = summaryHtml({ workspaces: [], lander: [{ ...base, id: 'sub-1', state: 'failed', reason: 'x', failed: true }] });
    expect(summary).toContain('✗</span> 1 failed');
  });
});

describe.skipIf(!hasChromium)('an open page when the server restarts', () => {
  let port: number;
  let restarting: HttpServer | undefined;
  let context: BrowserContext;
  const profile = mkdtempSync(join(tmpdir(), 'gatefs-chromium-'));
  const start = async () => {
    restarting = await startHttpServer(['--http', `127.0.0.1:${port}`], repo.dir);
    return restarting;
  };

  beforeAll(async () => {
    port = await freePort();
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await restarting?.stop();
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('goes live again after a restart with the kept token, and asks to sign in again after one with a rotated token', async () => {
    const first = await start();
    const page = await context.newPage();
    await page.goto(`${first.base}/#token=${first.token}`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    expect(await page.locator('#signin').isHidden()).toBe(true);

    // A plain restart keeps the token: the page reconnects by itself, signed in.
    await first.stop();
    await page.locator('#live', { hasText: 'reconnecting… (numbers as of' }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => document.body.classList.contains('stale'))).toBe(true);
    const second = await start();
    expect(second.token).toBe(first.token);
    expect(second.stderr()).toMatch(/bearer token for 127\.0\.0\.1:\d+ \(kept in /);
    await page.locator('#live', { hasText: /^live$/ }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => document.body.classList.contains('stale'))).toBe(false);

    // Stopped, rotated, started again: the page's sign-in no longer opens it, and it says so.
    await second.stop();
    const rotated = await gatefs(['token', 'rotate', '--address', `127.0.0.1:${port}`], { cwd: repo.dir });
    expect(rotated.code).toBe(0);
    const third = await start();
    expect(third.token).not.toBe(first.token);
    expect(rotated.stdout).toContain(third.token!);
    await page.locator('#signin').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.locator('#live').textContent()).toMatch(/^signed out \(numbers as of \d\d:\d\d:\d\d\)$/);
    expect(await page.locator('#signin').textContent()).toContain('gatefs token rotate');
    await page.screenshot({ path: join(SCREENSHOTS, 'status-signed-out.png') });

    // Signing in with the new token from the banner opens the page again.
    await page.locator('#t').fill(third.token!);
    await Promise.all([page.waitForNavigation(), page.locator('#signin button').click()]);
    await page.locator('#live', { hasText: /^live$/ }).waitFor({ timeout: 30_000 });
    expect(await page.locator('#signin').isHidden()).toBe(true);
    await page.close();
  });
});

describe.runIf(!hasChromium)('the status page in headless Chromium', () => {
  it(`is SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run installs it)`, () => {
    console.warn(`NOTE: the status page's browser tests were skipped: ${CHROMIUM} is not installed`);
  });
});
