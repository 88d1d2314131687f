/**
 * Workspaces on a generated 20,000-file repository (cached under the OS temp folder, so reruns
 * skip generation):
 * - `worktree` preparation (host.prepare) vs a raw `git worktree add` of the same commit;
 * - `copy` preparation vs `cp -r` of the same tree, once the pinned commit exists (the overlay
 *   over the pinned git tree makes a copy O(1));
 * - memory per registered idle conversation with 1,000 registered (`copy` workspaces, each
 *   holding one folder handle), against a 64 KiB budget;
 * - gate `read` latency with 1,000 registered vs 1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { measurePair, median, type Report } from '../harness.js';

const SUITE = 'workspaces';
const FILES = 20_000;
const ROUNDS = 4;
const REGISTERED = 1000;
const manifest = {
  roles: [
    { name: 'worker', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend: 'worktree' } },
    { name: 'copier', tools: ['read', 'grep', 'list', 'edit', 'write'], workspace: { backend: 'copy' } },
  ],
};

export async function run(report: Report): Promise<void> {
  const repo = generatedRepository();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-ws-'));
  const sha = git('rev-parse', 'HEAD');
  const hosts: Host[] = [];
  const open = async (name: string) => {
    const host = await createHost({ repo, stateDir: join(scratch, name), manifest });
    hosts.push(host);
    return host;
  };
  try {
    // worktree preparation vs raw git worktree add
    const prep = await open('prep');
    const raw: number[] = [];
    const ours: number[] = [];
    const rawCpu: number[] = [];
    const oursCpu: number[] = [];
    const timeRaw = () => {
      const path = join(scratch, `raw-${raw.length}`);
      const branch = `bench/raw-${raw.length}`;
      execFileSync('sync');
      const t = performance.now();
      const c = cpuUs();
      git('worktree', 'add', '--quiet', '-b', branch, path, sha);
      raw.push((performance.now() - t) * 1000);
      rawCpu.push(cpuUs() - c);
      git('worktree', 'remove', '--force', path);
      git('branch', '-D', branch);
    };
    const timeOurs = async () => {
      const id = `w${ours.length}`;
      execFileSync('sync');
      const t = performance.now();
      const c = cpuUs();
      await prep.prepare({ conversation: id, role: 'worker' });
      ours.push((performance.now() - t) * 1000);
      oursCpu.push(cpuUs() - c);
      await prep.release(id, { deleteBranch: true });
    };
    // Alternate the order (ABBA) and flush dirty pages before each timed step: the removal of
    // 20,000 files just before a checkout otherwise slows whichever runs second.
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        timeRaw();
        await timeOurs();
      } else {
        await timeOurs();
        timeRaw();
      }
    }
    report.compare({
      suite: SUITE,
      name: 'worktree preparation (wall time)',
      subjectUs: median(ours),
      baselineUs: median(raw),
      baseline: 'raw git worktree add',
      target: 1.1,
      note: `${FILES} files, median of ${ROUNDS}, alternating order`,
    });
    report.compare({
      suite: SUITE,
      name: 'worktree preparation (CPU time, this process + its children)',
      subjectUs: median(oursCpu),
      baselineUs: median(rawCpu),
      baseline: 'raw git worktree add',
      target: 1.1,
      note: 'less sensitive to other load on the machine',
    });
    report.note(
      SUITE,
      `worktree preparation rounds (ms): gatefs ${ours.map((u) => Math.round(u / 1000)).join(', ')}; raw ${raw.map((u) => Math.round(u / 1000)).join(', ')}; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );

    // copy preparation vs cp -r of the same tree
    const source = join(scratch, 'tree');
    git('worktree', 'add', '--quiet', '--detach', source, sha);
    const cp: number[] = [];
    const copies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      execFileSync('sync');
      let t = performance.now();
      execFileSync('cp', ['-r', source, join(scratch, `cp-${i}`)]);
      cp.push((performance.now() - t) * 1000);
      rmSync(join(scratch, `cp-${i}`), { recursive: true, force: true });
      execFileSync('sync');
      t = performance.now();
      await prep.prepare({ conversation: `c${i}`, role: 'copier' });
      copies.push((performance.now() - t) * 1000);
    }
    git('worktree', 'remove', '--force', source);
    report.compare({
      suite: SUITE,
      name: 'copy preparation (base HEAD)',
      subjectUs: median(copies),
      baselineUs: median(cp),
      baseline: 'cp -r of the tree',
      target: 0.05,
      note: `${FILES} files; resolving HEAD spawns one git`,
    });

    // memory per registered idle conversation, and gate read latency 1,000 vs 1
    const gc = exposeGc();
    const one = await open('one');
    await one.prepare({ conversation: 'solo', role: 'copier', baseRef: sha });
    const many = await open('many');
    await many.prepare({ conversation: 'c0', role: 'copier', baseRef: sha });
    gc();
    const before = process.memoryUsage();
    const t = performance.now();
    for (let i = 1; i < REGISTERED; i++) await many.prepare({ conversation: `c${i}`, role: 'copier', baseRef: sha });
    const perPrepareUs = ((performance.now() - t) * 1000) / (REGISTERED - 1);
    gc();
    const after = process.memoryUsage();
    const perConversation = (after.heapUsed + after.external - before.heapUsed - before.external) / (REGISTERED - 1);
    report.compare({
      suite: SUITE,
      name: 'memory per registered idle conversation',
      unit: 'bytes',
      subjectUs: perConversation,
      baselineUs: 65536,
      baseline: '64 KiB budget',
      target: 1,
      note: `${REGISTERED} registered copy workspaces, heap + external after GC`,
    });
    report.note(
      SUITE,
      `copy preparation from a full SHA (no process): ${(perPrepareUs / 1000).toFixed(2)} ms each over ${REGISTERED - 1} preparations; rss grew ${((after.rss - before.rss) / 1024 / 1024).toFixed(1)} MiB`,
    );

    const path = 'd100/f50.txt';
    const read = (host: Host, id: string) => async () => {
      const r = await host.gate.call(id, 'read', { path });
      if (!r.ok) throw new Error(`read failed: ${r.error.code}`);
    };
    const m = await measurePair(read(many, 'c500'), read(one, 'solo'), { iterations: 1000, warmup: 100 });
    report.compare({
      suite: SUITE,
      name: 'gate read with 1,000 registered',
      ...m,
      baseline: 'gate read with 1 registered',
      target: 1.1,
      note: 'copy workspaces, file from the pinned tree',
    });
  } finally {
    for (const host of hosts) await host.close().catch(() => undefined);
    execFileSync('git', ['worktree', 'prune'], { cwd: repo });
    for (const b of git('branch', '--list', 'gatefs/*', 'bench/*')
      .split('\n')
      .map((l) => l.replace(/^[*+ ]+/, '').trim())
      .filter(Boolean))
      git('branch', '-D', b);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * CPU time used so far by this process and its reaped children, in µs (children from
 * /proc/self/stat `cutime` + `cstime`, 10 ms ticks; 0 where /proc is absent).
 */
function cpuUs(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) * 10_000;
  } catch {
    children = 0;
  }
  return own.user + own.system + children;
}

/** The generated repository: 200 folders of 100 small files, one commit; made once, then reused. */
export function generatedRepository(): string {
  const root = join(tmpdir(), `gatefs-bench-repo-${FILES}-v1`);
  const repo = join(root, 'repo');
  if (existsSync(join(root, 'complete'))) return repo;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(repo, `d${d}`));
    for (let f = 0; f < 100; f++) writeFileSync(join(repo, `d${d}`, `f${f}.txt`), `folder ${d} file ${f}\n${'x'.repeat(200)}\n`);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'gc.auto', '0');
  git('config', 'user.name', 'gatefs bench');
  git('config', 'user.email', 'bench@gatefs.invalid');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'generated');
  git('gc', '--quiet');
  writeFileSync(join(root, 'complete'), '');
  return repo;
}

/** A `gc()` function (V8's, exposed at run time), so memory is measured after collection. */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}
