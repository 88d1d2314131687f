/**
 * Progressive disclosure on the generated 20,000-file repository (shared with `workspaces`,
 * cached under the OS temp folder):
 * - `request_files` of 1 and of 50 files (through the gate: check against the pinned commit,
 *   `git sparse-checkout add`, state and run log) vs writing the same blobs with one
 *   `git cat-file --batch` process directly (target ≤ 1.5×). Every round asks for files not
 *   disclosed before, so no round is an idempotent no-op;
 * - preparing a sparse workspace with 10 initial paths vs a full `worktree` preparation of the
 *   same commit, both through `host.prepare` (target ≤ 0.2×).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { median, type Report } from '../harness.js';
import { generatedRepository } from './workspaces.js';

const SUITE = 'disclosure';
const ROUNDS = 15;
const PREP_ROUNDS = 3;
const INITIAL = Array.from({ length: 10 }, (_, i) => `d${i}/f0.txt`);
const manifest = {
  roles: [
    {
      name: 'sparse',
      tools: ['read', 'list', 'request_files'],
      workspace: {
        backend: 'worktree',
        progressive_disclosure: { initial_paths: INITIAL, allowed_paths: Array.from({ length: 200 }, (_, d) => `d${d}`) },
      },
    },
    { name: 'full', tools: ['read', 'list'], workspace: { backend: 'worktree' } },
  ],
};

export async function run(report: Report): Promise<void> {
  const repo = generatedRepository();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-disclosure-'));
  const hosts: Host[] = [];
  try {
    const host = await createHost({ repo, stateDir: join(scratch, 'state'), manifest });
    hosts.push(host);
    await host.prepare({ conversation: 'req', role: 'sparse' });
    // Folders d10.. hold files nobody has asked for; each round takes fresh ones.
    let next = 10 * 100;
    const fresh = (n: number) => Array.from({ length: n }, () => next++).map((k) => `d${Math.floor(k / 100)}/f${k % 100}.txt`);
    // Warm-up (untimed): loads the pack index, JIT-compiles both paths.
    catFileBatch(repo, fresh(5), join(scratch, 'warm'));
    await host.gate.call('req', 'request_files', { paths: fresh(5), reason: 'warm-up' });
    for (const size of [1, 50]) {
      const ours: number[] = [];
      const raw: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const target = join(scratch, `raw-${size}-${r}`);
        const baselinePaths = fresh(size);
        let t = performance.now();
        catFileBatch(repo, baselinePaths, target);
        raw.push((performance.now() - t) * 1000);
        const paths = fresh(size);
        t = performance.now();
        const result = await host.gate.call('req', 'request_files', { paths, reason: 'bench' });
        ours.push((performance.now() - t) * 1000);
        if (!result.ok || (result.value as { outcome: string }).outcome !== 'approved')
          throw new Error(`request_files failed: ${JSON.stringify(result).slice(0, 300)}`);
      }
      report.compare({
        suite: SUITE,
        name: `request_files of ${size} file${size === 1 ? '' : 's'}`,
        subjectUs: median(ours),
        baselineUs: median(raw),
        baseline: 'git cat-file --batch + write',
        target: 1.5,
        note: `20,000-file repository, median of ${ROUNDS}, fresh files every round`,
      });
    }

    const prep = await createHost({ repo, stateDir: join(scratch, 'prep'), manifest });
    hosts.push(prep);
    const sparseUs: number[] = [];
    const fullUs: number[] = [];
    for (let i = 0; i < PREP_ROUNDS; i++) {
      let t = performance.now();
      await prep.prepare({ conversation: `full${i}`, role: 'full' });
      fullUs.push((performance.now() - t) * 1000);
      t = performance.now();
      await prep.prepare({ conversation: `sparse${i}`, role: 'sparse' });
      sparseUs.push((performance.now() - t) * 1000);
      await prep.release(`full${i}`, { deleteBranch: true });
      await prep.release(`sparse${i}`, { deleteBranch: true });
    }
    report.compare({
      suite: SUITE,
      name: 'sparse preparation (10 initial paths)',
      subjectUs: median(sparseUs),
      baselineUs: median(fullUs),
      baseline: 'full worktree preparation',
      target: 0.2,
      note: `20,000 files, median of ${PREP_ROUNDS}`,
    });
  } finally {
    for (const h of hosts) await h.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: repo });
    for (const b of git('branch', '--list', 'gatefs/*')
      .split('\n')
      .map((l) => l.replace(/^[*+ ]+/, '').trim())
      .filter(Boolean))
      git('branch', '-D', b);
  }
}

/** The baseline: one `git cat-file --batch` for the blobs at HEAD, each written under `target`. */
function catFileBatch(repo: string, paths: string[], target: string): void {
  const r = spawnSync('git', ['cat-file', '--batch'], { cwd: repo, input: paths.map((p) => `HEAD:${p}\n`).join('') });
  if (r.status !== 0) throw new Error(`git cat-file failed: ${r.stderr}`);
  const out = r.stdout;
  let at = 0;
  for (const path of paths) {
    const eol = out.indexOf(10, at);
    const size = Number(out.subarray(at, eol).toString('latin1').split(' ')[2]);
    const file = join(target, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
}
