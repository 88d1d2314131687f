import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [url, out] = process.argv.slice(2);
const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chr-')), {
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1300, height: 800 },
});
const page = await ctx.newPage();
page.on('console', (m) => console.log('console:', m.text()));
await page.goto(url);
await page.waitForTimeout(2500);
console.log(await page.locator('#live').textContent(), await page.locator('#ws tr').count());
await page.screenshot({ path: out });
await ctx.close();
