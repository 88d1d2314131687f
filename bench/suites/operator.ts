/**
 * The operator's side (issue 13):
 * - `serve` over stdio, time from spawning the process to its `initialize` answer, for a new
 *   conversation on the generated 20,000-file repository, against the time that serve's own
 *   worktree preparation took (`prepare.start` to `prepare.ready` in its run log), and against
 *   `host.prepare` of the same repository in this process: target ≤ 0.05× for both. The first
 *   tool call's answer (host opened, workspace prepared and occupied) is reported beside it.
 * - The status page's first paint with 1,000 workspaces in headless Chromium (Debian's
 *   /usr/bin/chromium through playwright-core), against a 1 s budget: `first-contentful-paint`
 *   of a navigation to `/` (the server renders every row), median of several loads. Skipped,
 *   saying so, where Chromium is not installed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHost } from '../../src/host/composition/create-host.js';
import { openStateReader } from '../../src/host/state-trust/state-reader.js';
import { serveHttp, parseListenAddress } from '../../src/mcp/http/index.js';
import { median, type Report } from '../harness.js';
import { generatedRepository } from './workspaces.js';

const SUITE = 'operator';
const BIN = join(import.meta.dirname, '../../src/cli/main.js');
const CHROMIUM = '/usr/bin/chromium';
const ROUNDS = 5;
const WORKSPACES = 1000;
const PAGE_LOADS = 7;

export async function run(report: Report): Promise<void> {
  await initializeVersusPreparation(report);
  await statusPagePaint(report);
}

/** One stdio start: ms to the initialize answer and to the first tool call's answer. */
function serveOnce(repo: string, stateDir: string, conversation: string): Promise<{ initMs: number; readyMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo, '--state-dir', stateDir, '--conversation', conversation], {
      stdio: 'pipe',
    });
    let out = '';
    let err = '';
    let initMs = 0;
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (initMs && code === 0 ? undefined : reject(new Error(`serve exited with ${code}:\n${err}`))));
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        const m = JSON.parse(line) as { id?: number };
        if (m.id === 1) {
          initMs = performance.now() - t0;
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list', arguments: { path: 'd0' } } })}\n`,
          );
        } else if (m.id === 2) {
          const readyMs = performance.now() - t0;
          child.once('exit', () => resolve({ initMs, readyMs }));
          child.stdin.end();
        }
      }
    });
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
  });
}

async function initializeVersusPreparation(report: Report): Promise<void> {
  const repo = generatedRepository();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-ops-'));
  const host = await createHost({ repo, stateDir: join(scratch, 'prep') });
  const prep: number[] = [];
  const init: number[] = [];
  const ready: number[] = [];
  const own: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      execFileSync('sync');
      const t = performance.now();
      await host.prepare({ conversation: `p${i}` });
      prep.push(performance.now() - t);
      await host.release(`p${i}`, { deleteBranch: true, discard: true });
      execFileSync('sync');
      const served = await serveOnce(repo, join(scratch, `serve-${i}`), `s${i}`);
      init.push(served.initMs);
      ready.push(served.readyMs);
      own.push(await ownPreparationMs(repo, join(scratch, `serve-${i}`), `s${i}`));
    }
  } finally {
    await host.close();
    rmSync(scratch, { recursive: true, force: true });
    git('worktree', 'prune');
    for (let i = 0; i < ROUNDS; i++) {
      for (const branch of [`gatefs/s${i}`, `gatefs/p${i}`]) {
        try {
          execFileSync('git', ['branch', '-D', branch], { cwd: repo, stdio: 'ignore' });
        } catch {
          // released with its branch already
        }
      }
    }
  }
  report.compare({
    suite: SUITE,
    name: 'serve stdio: spawn to initialize answer, new conversation',
    subjectUs: median(init) * 1000,
    baselineUs: median(own) * 1000,
    baseline: "that serve's own worktree preparation (run log)",
    target: 0.05,
    note: `20000 files, median of ${ROUNDS}; the answer comes before the host, git or the SDK load`,
  });
  report.compare({
    suite: SUITE,
    name: 'serve stdio: spawn to initialize answer, vs an in-process preparation',
    subjectUs: median(init) * 1000,
    baselineUs: median(prep) * 1000,
    baseline: 'host.prepare of the same repository in this process',
    target: 0.05,
    note: 'the same initialize times against the other way to time a preparation',
  });
  report.note(
    SUITE,
    `serve stdio rounds (ms): initialize ${init.map(Math.round).join(', ')}; its preparation (prepare.start to prepare.ready) ${own
      .map(Math.round)
      .join(
        ', ',
      )}; its first tool answer (host opened, prepared, occupied) ${ready.map(Math.round).join(', ')}; host.prepare in this process ${prep
      .map(Math.round)
      .join(', ')}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

/** The preparation a serve ran, from its run log: `prepare.start` to `prepare.ready` of `conversation`, in ms. */
async function ownPreparationMs(repo: string, stateDir: string, conversation: string): Promise<number> {
  const reader = await openStateReader({ repo, stateDir });
  if (!reader) throw new Error('the serve left no run log');
  try {
    const events = reader.events({ conversation });
    const start = events.find((e) => e.type === 'prepare.start');
    const ready = events.find((e) => e.type === 'prepare.ready');
    if (!start || !ready) throw new Error(`no preparation in the run log of ${conversation}`);
    return ready.at - start.at;
  } finally {
    reader.close();
  }
}

async function statusPagePaint(report: Report): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    report.skip({ suite: SUITE, name: 'status page first paint', reason: `${CHROMIUM} is not installed (apt-get install chromium)` });
    return;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-page-'));
  const repo = join(scratch, 'repo');
  execFileSync('mkdir', ['-p', join(repo, 'src')]);
  writeFileSync(join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '--quiet', '--initial-branch=main');
  git('-c', 'user.name=b', '-c', 'user.email=b@gatefs.invalid', 'commit', '--quiet', '--allow-empty', '-m', 'empty');
  git('add', '-A');
  git('-c', 'user.name=b', '-c', 'user.email=b@gatefs.invalid', 'commit', '--quiet', '-m', 'one file');
  const sha = git('rev-parse', 'HEAD');
  const manifest = { roles: [{ name: 'copier', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend: 'copy' } }] };
  const host = await createHost({ repo, manifest });
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'gatefs-bench-chromium-'));
  let server: Awaited<ReturnType<typeof serveHttp>> | undefined;
  let browser: Awaited<ReturnType<typeof chromium.launchPersistentContext>> | undefined;
  try {
    for (let i = 0; i < WORKSPACES; i++) await host.prepare({ conversation: `w${String(i).padStart(4, '0')}`, baseRef: sha });
    const token = 'bench-token-0123456789abcdef';
    server = await serveHttp(host, { address: parseListenAddress('127.0.0.1:0'), token });
    browser = await chromium.launchPersistentContext(profile, {
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
      extraHTTPHeaders: { Authorization: `Bearer ${token}` },
    });
    const paints: number[] = [];
    const ready: number[] = [];
    const firstBytes: number[] = [];
    let bytes = 0;
    for (let i = 0; i < PAGE_LOADS; i++) {
      const page = await browser.newPage();
      const response = await page.goto(`${server.url}/`, { waitUntil: 'load' });
      bytes = Number(response?.headers()['content-length'] ?? (await response?.body())?.length ?? 0);
      const rows = await page.locator('#ws tr').count();
      if (rows !== WORKSPACES) throw new Error(`the page shows ${rows} rows, not ${WORKSPACES}`);
      // Runs in the page: its `performance` is the browser's (typed loosely here, no DOM types in this project).
      const timing = await page.evaluate(() => {
        const p = performance as any;
        const fcp: number = p.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN;
        const nav = p.getEntriesByType('navigation')[0];
        return {
          fcp,
          domContentLoaded: (nav?.domContentLoadedEventEnd ?? Number.NaN) as number,
          firstByte: (nav?.responseStart ?? Number.NaN) as number,
        };
      });
      if (i > 0) {
        // the first load warms the browser's own start-up
        paints.push(timing.fcp);
        ready.push(timing.domContentLoaded);
        firstBytes.push(timing.firstByte);
      }
      await page.close();
    }
    report.compare({
      suite: SUITE,
      name: `status page first paint, ${WORKSPACES} workspaces (headless Chromium)`,
      subjectUs: median(paints) * 1000,
      baselineUs: 1_000_000,
      baseline: '1 s budget',
      target: 1,
      note: `first-contentful-paint from navigation start, median of ${paints.length} loads; every row rendered by the server`,
    });
    report.note(
      SUITE,
      `status page: first byte (ms) ${firstBytes.map(Math.round).join(', ')}; first paint (ms) ${paints.map(Math.round).join(', ')}; DOMContentLoaded (ms) ${ready.map(Math.round).join(', ')}; page ${Math.round(bytes / 1024)} KiB`,
    );
  } finally {
    await browser?.close();
    await server?.close();
    await host.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}
