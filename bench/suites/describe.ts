/**
 * The execution snapshot (issue 25: "`describe` ≤ 1 ms"), on the disk host (real SQLite, real
 * git) for a worktree conversation whose role runs commands and checks, holding its own workspace
 * and two attachments (the canonical checkout shared-read, another conversation's workspace
 * shared-read). Rows:
 * - `host.describe` against the 1 ms budget (target ≤ 1×);
 * - `host.describe` against one `read` of a 200-byte file through the gate (`host.gate.call`:
 *   validation, registry lookup, path walk, the file, the audit record), measured interleaved in
 *   the same run (target ≤ 1×: a snapshot costs no more than the cheapest tool call);
 * - the `whereami` tool through the gate against the same `read` (target ≤ 2×: a gate call plus
 *   a describe, against a gate call plus a small read, so at most the two baselines together).
 * The mean of `host.describe` over 5,000 calls is noted beside the medians. The sandbox is
 * probed once first (bubblewrap, or unavailable here): a snapshot reads the cached fact.
 */
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/host/composition/create-host.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'describe';
const OPTIONS = { iterations: 3000, warmup: 300 };
const MEAN_CALLS = 5000;

const MANIFEST = {
  checks: [{ name: 'unit', command: 'npx vitest run' }],
  roles: [
    { name: 'impl', tools: ['read', 'write', 'exec', 'check', 'whereami'], workspace: { backend: 'worktree' } },
    { name: 'peer', tools: ['read'], workspace: { backend: 'copy' } },
  ],
};

export async function run(report: Report): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-bench-describe-'));
  const repo = join(root, 'repo');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
  git('config', 'user.name', 'bench');
  git('config', 'user.email', 'bench@gatefs.invalid');
  git('config', 'commit.gpgsign', 'false');
  writeFileSync(join(repo, 'README.md'), `${'# describe bench\n'.padEnd(199, 'x')}\n`);
  git('add', '--all');
  git('commit', '--quiet', '-m', 'bench');
  const host = await createHost({ repo, manifest: MANIFEST });
  try {
    await host.prepare({ conversation: 'w', role: 'impl' });
    await host.prepare({ conversation: 'p', role: 'peer' });
    host.attach('w', 'canonical', 'shared-read');
    host.attach('w', 'p', 'shared-read');
    const probed = await host.describeProbed('w');
    if (probed.attached.length !== 2) throw new Error('the attachments are not in the snapshot');
    const sandbox = probed.policy.commands?.sandbox ?? 'none';

    const describe = () => host.describe('w');
    const read = async () => {
      const r = await host.gate.call('w', 'read', { path: 'README.md' });
      if (!r.ok) throw new Error(`read failed: ${r.error.code}`);
    };
    const whereami = async () => {
      const r = await host.gate.call('w', 'whereami', {});
      if (!r.ok) throw new Error(`whereami failed: ${r.error.code}`);
    };

    const mean = meanUs(describe, MEAN_CALLS);
    const vsRead = await measurePair(describe, read, OPTIONS);
    const note = `worktree, own + 2 attachments, exec and check declared, sandbox ${sandbox}; mean of ${MEAN_CALLS} calls ${mean.toFixed(1)} µs`;
    report.compare({
      suite: SUITE,
      name: 'host.describe, against the 1 ms budget',
      subjectUs: vsRead.subjectUs,
      baselineUs: 1000,
      baseline: 'the issue budget',
      target: 1,
      note,
    });
    report.compare({
      suite: SUITE,
      name: 'host.describe vs a gated read of a 200-byte file',
      ...vsRead,
      baseline: 'host.gate.call read',
      target: 1,
      note: 'disk host, same run, interleaved',
    });
    const tool = await measurePair(whereami, read, OPTIONS);
    report.compare({
      suite: SUITE,
      name: 'whereami through the gate vs a gated read of a 200-byte file',
      ...tool,
      baseline: 'host.gate.call read',
      target: 2,
      note: 'the tool answers host.describe after the cached sandbox fact',
    });
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    report.note(
      SUITE,
      `host.describe: median ${vsRead.subjectUs.toFixed(1)} µs, mean ${mean.toFixed(1)} µs (${MEAN_CALLS} calls); load average ${load}`,
    );
  } finally {
    await host.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The mean wall time of `fn` over `calls` calls (after 200 untimed), microseconds. */
function meanUs(fn: () => unknown, calls: number): number {
  for (let i = 0; i < 200; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) fn();
  return ((performance.now() - t0) * 1000) / calls;
}
