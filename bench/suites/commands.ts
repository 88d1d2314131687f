/**
 * Commands in the kernel sandbox (issue 21's targets, docs/ARCHITECTURE.md § Commands):
 *
 * - `exec {command: "true"}` round trip over MCP (`gatefs serve`, stdio, a worktree workspace of
 *   a small repository), median against the issue's 50 ms budget; a plain spawn of `true` from
 *   this process is noted for scale;
 * - a CPU-bound command of about one second, in the sandbox (the port, as `exec` runs it, with
 *   its before/after scans) against the same command spawned unconfined, interleaved;
 * - `npx tsc --noEmit` of gatefs's own repository inside a gatefs worktree workspace of it (with
 *   `share: [node_modules]`) through `exec`, against the same command in the checkout directly.
 *
 * Skips, saying why, where no sandbox can run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measure, measurePair, type Report } from '../harness.js';
import { createHost } from '../../src/host/composition/create-host.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';

const SUITE = 'commands';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const BURN = `let x=0;for(let i=0;i<6e8;i++){x+=i%7}`;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

/** A small repository with a commit, in `tmp`. */
function smallRepo(tmp: string): string {
  const repo = join(tmp, 'repo');
  execFileSync('git', ['init', '-q', '--initial-branch=main', repo]);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.name=b', '-c', 'user.email=b@b.invalid', 'commit', '-qm', 'init');
  return repo;
}

export async function run(report: Report): Promise<void> {
  const sandbox = new BubblewrapSandbox();
  const support = await sandbox.probe();
  if (!support.available) {
    report.skip({ suite: SUITE, name: '(all)', reason: `no sandbox here: ${support.cause}` });
    return;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'gatefs-bench-commands-'));
  try {
    await roundTrip(report, tmp);
    await cpuBound(report, sandbox, tmp);
    await typeCheck(report, tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function roundTrip(report: Report, tmp: string): Promise<void> {
  const repo = smallRepo(tmp);
  const manifest = join(tmp, 'exec.yaml');
  writeFileSync(manifest, 'roles:\n  - name: bench\n    tools: [read, exec]\n');
  const client = new Client({ name: 'gatefs-bench', version: '1' });
  const args = [
    join(root, 'dist/src/cli/main.js'),
    'serve',
    '--repo',
    repo,
    '--state-dir',
    join(tmp, 'state'),
    '--manifest',
    manifest,
    '--conversation',
    'bench',
  ];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  try {
    const exec = async () => {
      const r = await client.callTool({ name: 'exec', arguments: { command: 'true' } });
      if (r.isError) throw new Error(`exec failed: ${JSON.stringify(r.content).slice(0, 300)}`);
    };
    const us = await measure(exec, { iterations: 60, warmup: 5 });
    report.compare({
      suite: SUITE,
      name: 'exec {command: "true"} round trip over MCP (p50)',
      subjectUs: us,
      baselineUs: 50_000,
      baseline: "the issue's budget",
      target: 1,
    });
    const spawnUs = await measure(() => spawnSync('true'), { iterations: 60, warmup: 5 });
    report.note(SUITE, `for scale: spawning \`true\` unconfined from this process takes ${(spawnUs / 1000).toFixed(2)} ms (p50)`);
  } finally {
    await client.close();
  }
}

async function cpuBound(report: Report, sandbox: BubblewrapSandbox, tmp: string): Promise<void> {
  const ws = join(tmp, 'repo');
  const plan = {
    binds: [{ host: ws, at: '/worktrees/bench', writable: true }],
    hidden: [],
    cwd: '/worktrees/bench',
    network: false,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    scan: { roots: ['/worktrees/bench'], prune: [] },
  };
  const limits = { timeoutMs: 60_000, memoryBytes: 2 * 1024 ** 3, processes: 256, outputBytes: 1024 ** 2, keepBytes: 30_000 };
  const sandboxed = async () => {
    const cmd = await sandbox.start({ command: { argv: [process.execPath, '-e', BURN] }, plan, limits, tag: 'bench', chain: [] });
    const r = await cmd.done;
    if (r.exitCode !== 0) throw new Error(`sandboxed burn failed: ${r.stderr}`);
  };
  const unconfined = () => {
    const r = spawnSync(process.execPath, ['-e', BURN], { cwd: ws });
    if (r.status !== 0) throw new Error('unconfined burn failed');
  };
  const { subjectUs, baselineUs } = await measurePair(sandboxed, unconfined, { iterations: 20, rounds: 10, warmup: 1 });
  report.compare({
    suite: SUITE,
    name: 'CPU-bound command (~1 s of node) in the sandbox',
    subjectUs,
    baselineUs,
    baseline: 'spawned unconfined',
    target: 1.1,
  });
}

async function typeCheck(report: Report, tmp: string): Promise<void> {
  const host = await createHost({
    repo: root,
    stateDir: join(tmp, 'tsc-state'),
    manifest: { roles: [{ name: 'bench', tools: ['read', 'exec'], share: ['node_modules'], exec: { timeout: 600, memory: '4G' } }] },
  });
  try {
    await host.prepare({ conversation: 'tsc' });
    const inWorkspace = async () => {
      const r = await host.gate.call('tsc', 'exec', { command: 'npx tsc --noEmit -p .' });
      if (!r.ok || (r.value as { exitCode: number }).exitCode !== 0)
        throw new Error(`tsc in the workspace failed: ${JSON.stringify(r).slice(0, 500)}`);
    };
    const inCheckout = () => {
      const r = spawnSync('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: root, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`tsc in the checkout failed: ${r.stdout.slice(0, 500)}`);
    };
    const { subjectUs, baselineUs } = await measurePair(inWorkspace, inCheckout, { iterations: 6, rounds: 6, warmup: 1 });
    report.compare({
      suite: SUITE,
      name: 'npx tsc --noEmit of gatefs in a worktree workspace (share: node_modules) via exec',
      subjectUs,
      baselineUs,
      baseline: 'the same in the checkout',
      target: 1.1,
    });
  } finally {
    await host.release('tsc', { discard: true } as never).catch(() => undefined);
    await host.close();
  }
}
