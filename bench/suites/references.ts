/**
 * File references (issue 25: "resolution with 1,000 registered workspaces ≤ 1.1× the time with
 * 1"), on the disk host (real SQLite, real folders, the default state directory inside the
 * checkout, so a host path lies in two roots). Two identical repositories: the state directory
 * of one holds only the worktree conversation `t`; the other's holds `t` and 999 more conversations,
 * prepared by `host.prepare` like any other (backend `empty`: a scratch folder each, so 999
 * preparations take seconds, not the minutes of 999 git worktrees; the resolver reads one record
 * by id whatever the backend, so the fillers' backend does not matter to it). Both are then opened
 * as quiet hosts (what `gatefs resolve` opens), and the same reference into `t` is resolved on
 * each, interleaved in rounds: the namespace path `/worktrees/t/src/a.ts`, the host path of that
 * file (canonical first, `t` in `alsoIn`), and `workspace://t/src/a.ts?root=t`. Each row is the
 * 1,000-workspace median against the 1-workspace median (target ≤ 1.1×); the absolute medians are
 * noted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/index.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'references';
const WORKSPACES = 1000;
const OPTIONS = { iterations: 3000, warmup: 300, rounds: 10 };

const MANIFEST = {
  roles: [
    { name: 'impl', tools: ['read', 'write'], workspace: { backend: 'worktree' } },
    { name: 'filler', tools: ['read'], workspace: { backend: 'empty' } },
  ],
};

export async function run(report: Report): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'gatefs-bench-references-'));
  const repoOne = repository(join(root, 'one'));
  const repoMany = repository(join(root, 'many'));
  const one = join(repoOne, '.gatefs');
  const many = join(repoMany, '.gatefs');
  const hosts: Host[] = [];
  try {
    const t0 = performance.now();
    await prepared(repoOne, 1);
    await prepared(repoMany, WORKSPACES);
    const prepareS = (performance.now() - t0) / 1000;
    const small = await createHost({ repo: repoOne, manifest: MANIFEST, quiet: true });
    const large = await createHost({ repo: repoMany, manifest: MANIFEST, quiet: true });
    hosts.push(small, large);
    if (large.status().length !== WORKSPACES || small.status().length !== 1)
      throw new Error('the state directories do not hold 1 and 1,000 workspaces');
    const forms: [string, (stateDir: string) => string][] = [
      ['namespace path', () => '/worktrees/t/src/a.ts'],
      ['host path (canonical first, the worktree in alsoIn)', (stateDir) => join(stateDir, 'worktrees', 't', 'src', 'a.ts')],
      ['workspace:// URI', () => 'workspace://t/src/a.ts?root=t'],
    ];
    for (const [name, referenceIn] of forms) {
      const resolveOn = (host: Host, stateDir: string) => {
        const reference = referenceIn(stateDir);
        return async () => {
          const r = await host.resolveReference(reference);
          if (!r.exists) throw new Error(`${reference} did not resolve to the file`);
        };
      };
      const m = await measurePair(resolveOn(large, many), resolveOn(small, one), OPTIONS);
      report.compare({
        suite: SUITE,
        name: `resolve a ${name}, ${WORKSPACES} workspaces vs 1`,
        subjectUs: m.subjectUs,
        baselineUs: m.baselineUs,
        baseline: '1 workspace',
        target: 1.1,
        note: `disk host, worktree target, ${WORKSPACES - 1} empty-backend fillers prepared in ${prepareS.toFixed(1)} s; load ${loadavg()[0]!.toFixed(1)}`,
      });
    }
  } finally {
    for (const host of hosts) await host.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** A repository at `repo` with one committed file, `src/a.ts`. */
function repository(repo: string): string {
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git('-c', 'user.name=b', '-c', 'user.email=b@gatefs.invalid', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'one file');
  return repo;
}

/** Prepares `t` (a worktree) and `count - 1` empty-backend conversations in `repo`'s default state directory, then closes that host. */
async function prepared(repo: string, count: number): Promise<void> {
  const host = await createHost({ repo, manifest: MANIFEST });
  try {
    await host.prepare({ conversation: 't', role: 'impl' });
    for (let i = 1; i < count; i++) await host.prepare({ conversation: `f${String(i).padStart(4, '0')}`, role: 'filler' });
  } finally {
    await host.close();
  }
}
