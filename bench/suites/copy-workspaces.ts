/**
 * `copy` workspaces against `worktree` workspaces of the same commit, through the gate, on a
 * repository of 20,000+ files no one here wrote: three copies of the project's `node_modules`
 * (files up to 256 KiB, links kept), committed once and cached under the OS temp folder.
 *
 * A copy is served at once from git objects; on its first read the host checks the commit out
 * into the copy's lower folder in the background (src/host/lower/lower-folders.ts) and switches to
 * it. Rows, each copy (lower folder ready) vs worktree, target ≤ 1.5×:
 * - grep for a literal found in one file (`output: files`);
 * - `list **\/*.js` (every match);
 * - read of a 4 KiB file three folders deep.
 * Notes: the time from the first read to the lower folder being served, and the same grep and
 * list once on git objects (before the folder is ready), for scale.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'copy-workspaces';
const COPIES = 3;
const MAX_FILE = 256 * 1024;
const RARE = 'gatefs-rare-literal-4be1c9';
const READ_PATH = 'copy2/bench/deep/read-4k.txt';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const manifest = {
  roles: [
    { name: 'worker', tools: ['read', 'grep', 'list'], workspace: { backend: 'worktree' } },
    { name: 'copier', tools: ['read', 'grep', 'list'], workspace: { backend: 'copy' } },
  ],
};

export async function run(report: Report): Promise<void> {
  const modules = join(root, 'node_modules');
  if (!existsSync(modules)) {
    report.skip({ suite: SUITE, name: '(all)', reason: 'node_modules is absent' });
    return;
  }
  const repo = nodeModulesRepository(modules);
  const files = Number(execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').length - 1);
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-copies-'));
  let host: Host | undefined;
  try {
    host = await createHost({ repo, stateDir: join(scratch, 'state'), manifest });
    const h = host;
    await h.prepare({ conversation: 'wt', role: 'worker' });
    const t0 = performance.now();
    await h.prepare({ conversation: 'cp', role: 'copier' });
    const prepareMs = performance.now() - t0;

    const call = async (id: string, tool: string, args: Record<string, unknown>) => {
      const r = await h.gate.call(id, tool, args);
      if (!r.ok) throw new Error(`${tool} failed: ${r.error.code} ${r.error.message}`);
      return r.value as Record<string, unknown>;
    };
    const grep = (id: string) => () => call(id, 'grep', { pattern: RARE, literal: true });
    const list = (id: string) => () => call(id, 'list', { pattern: '**/*.js', maxResults: 100_000 });
    const read = (id: string) => () => call(id, 'read', { path: READ_PATH });

    // The first read starts the lower folder; git objects serve meanwhile.
    const first = performance.now();
    await read('cp')();
    const onObjects = { grep: await timeOnce(grep('cp')), list: await timeOnce(list('cp')) };
    const readyMs = (await untilLowerServed(h, 'cp', 600_000)) - first;
    const found = (await grep('cp')()).files as string[];
    const listed = ((await list('cp')()).entries as unknown[]).length;
    if (found.length !== 1 || ((await list('wt')()).entries as unknown[]).length !== listed) {
      throw new Error(`copy and worktree disagree: grep found ${found.length}, list ${listed}`);
    }

    const rows: { name: string; subject: () => Promise<unknown>; baseline: () => Promise<unknown>; iterations: number; note: string }[] = [
      {
        name: 'grep rare literal (copy vs worktree)',
        subject: grep('cp'),
        baseline: grep('wt'),
        iterations: 10,
        note: `one match in ${files} files`,
      },
      { name: 'list **/*.js (copy vs worktree)', subject: list('cp'), baseline: list('wt'), iterations: 10, note: `${listed} matches` },
      {
        name: 'read 4 KiB (copy vs worktree)',
        subject: read('cp'),
        baseline: read('wt'),
        iterations: 1000,
        note: 'a file of the pinned commit, three folders deep',
      },
    ];
    for (const r of rows) {
      const m = await measurePair(r.subject, r.baseline, {
        iterations: r.iterations,
        warmup: r.iterations >= 100 ? 50 : 1,
        rounds: r.iterations >= 100 ? 5 : 2,
      });
      report.compare({ suite: SUITE, name: r.name, ...m, baseline: 'the same call in a worktree workspace', target: 1.5, note: r.note });
    }
    report.note(
      SUITE,
      `${files} files; copy preparation ${prepareMs.toFixed(0)} ms; lower folder served ${(readyMs / 1000).toFixed(1)} s after the first read; ` +
        `on git objects before that: grep ${(onObjects.grep / 1000).toFixed(0)} ms, list ${(onObjects.list / 1000).toFixed(0)} ms; ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  } finally {
    await host?.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: repo });
    try {
      execFileSync('git', ['branch', '-D', 'gatefs/wt'], { cwd: repo, stdio: 'ignore' });
    } catch {
      /* not there */
    }
  }
}

/** Wall time of one call, µs. */
async function timeOnce(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return (performance.now() - t) * 1000;
}

/** Waits until the run log says the copy's lower folder is served (`lower.ready`); returns performance.now() then. */
async function untilLowerServed(host: Host, conversation: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const events = host.events({ conversation });
    const end = events.find((e) => e.type === 'lower.ready' || e.type === 'lower.unavailable' || e.type === 'lower.failed');
    if (end?.type === 'lower.ready') return performance.now();
    if (end) throw new Error(`the lower folder was not made: ${JSON.stringify(end.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the lower folder was not ready in time');
}

/**
 * The repository: `COPIES` copies of node_modules (files up to `MAX_FILE`, links kept as
 * links), a 4 KiB file to read and one file holding the rare literal, in one commit; made once
 * per node_modules size, then reused.
 */
function nodeModulesRepository(modules: string): string {
  const base = join(tmpdir(), `gatefs-bench-node-modules-x${COPIES}-v1`);
  const repo = join(base, 'repo');
  if (existsSync(join(base, 'complete'))) return repo;
  rmSync(base, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  const small = (src: string) => {
    const st = lstatSync(src);
    return st.isDirectory() || st.isSymbolicLink() || (st.isFile() && st.size <= MAX_FILE);
  };
  for (let i = 1; i <= COPIES; i++) cpSync(modules, join(repo, `copy${i}`), { recursive: true, verbatimSymlinks: true, filter: small });
  mkdirSync(join(repo, 'copy2/bench/deep'), { recursive: true });
  writeFileSync(join(repo, READ_PATH), `${'r'.repeat(63)}\n`.repeat(64));
  writeFileSync(join(repo, 'copy3/bench-rare.js'), `// ${RARE}\nexport {};\n`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore', maxBuffer: 1 << 28 });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'gc.auto', '0');
  git('config', 'user.name', 'gatefs bench');
  git('config', 'user.email', 'bench@gatefs.invalid');
  git('add', '-A', '-f');
  git('commit', '--quiet', '-m', 'three copies of node_modules');
  git('gc', '--quiet');
  writeFileSync(join(base, 'complete'), '');
  return repo;
}
