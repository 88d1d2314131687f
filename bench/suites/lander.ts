/**
 * Bringing work home on a 20,000-file repository (a clone of the generated one of
 * workspaces.ts, so the cached repository never changes):
 * - one landing (`host.lander.run()` with one trivial check, `true`; no push) vs a shell
 *   script doing the same git steps by hand: `worktree add --detach`, `merge`, the check,
 *   `update-ref` with the old value, `worktree remove`. A second baseline keeps one detached
 *   worktree for every landing, as the lander does (`checkout --detach` instead of `worktree
 *   add`), so the lander's own overhead shows without the cost of a fresh checkout. Landings
 *   alternate with the script's, so each merges onto a main that moved (a real merge commit);
 * - the same landing with the source checkout on main (its files follow each landing, after the
 *   check that the move overwrites nothing the checkout does not track) vs a script that keeps
 *   its worktree and ends with `git merge --ff-only` in the source checkout (which refuses
 *   untracked files in the way too);
 * - `commit` of 10 changed files through the gate vs `git add -A && git commit` in a worktree
 *   of the same repository.
 * Wall times, medians; landings per minute = 60 s / the median.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHost } from '../../src/host/composition/create-host.js';
import { median, type Report } from '../harness.js';
import { generatedRepository } from './workspaces.js';

const SUITE = 'lander';
const LANDINGS = 6;
const COMMITS = 8;
const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'commit', 'submit'], workspace: { backend: 'worktree' } }],
};

export async function run(report: Report): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-lander-'));
  const repo = join(scratch, 'repo');
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', generatedRepository(), repo]);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('config', 'user.name', 'bench');
  git('config', 'user.email', 'bench@gatefs.invalid');
  git('config', 'gc.auto', '0');
  // The source checkout stays off main, so neither side spends time updating its files.
  git('checkout', '--quiet', '--detach');
  const host = await createHost({ repo, manifest, settings: { lander: { checks: ['true'], branch: 'main' } } });
  try {
    await host.prepare({ conversation: 'agent' });
    const rawTree = join(scratch, 'raw-agent');
    git('worktree', 'add', '--quiet', '-b', 'raw-agent', rawTree, 'main');
    const kept = join(scratch, 'kept');
    git('worktree', 'add', '--quiet', '--detach', kept, 'main');

    const ours: number[] = [];
    const fresh: number[] = [];
    const reused: number[] = [];
    for (let i = 0; i < LANDINGS; i++) {
      await host.gate.call('agent', 'write', { path: `landed/agent-${i}.txt`, content: `agent ${i}\n` });
      await host.gate.call('agent', 'commit', { message: `agent ${i}` });
      if (!(await host.gate.call('agent', 'submit', { divergence: 'None' })).ok) throw new Error('submit failed');
      let t = performance.now();
      const done = await host.lander.run();
      ours.push((performance.now() - t) * 1000);
      if (done.landed.length !== 1) throw new Error(`the lander did not land: ${JSON.stringify(done)}`);

      for (const [times, script] of [
        [fresh, freshScript],
        [reused, reusedScript],
      ] as const) {
        writeFileSync(join(rawTree, `raw-${i}-${times === fresh ? 'f' : 'r'}.txt`), `raw ${i}\n`);
        execFileSync('git', ['-C', rawTree, 'add', '-A']);
        execFileSync('git', ['-C', rawTree, 'commit', '--quiet', '-m', `raw ${i}`]);
        t = performance.now();
        execFileSync('sh', ['-c', script, 'land', repo, join(scratch, `landing-${i}`), kept], { stdio: 'ignore' });
        times.push((performance.now() - t) * 1000);
      }
    }
    const perMinute = (us: number) => (60_000_000 / us).toFixed(1);
    report.compare({
      suite: SUITE,
      name: 'one landing, check `true` (20,000 files, no push)',
      subjectUs: median(ours),
      baselineUs: median(fresh),
      baseline: 'shell script: worktree add --detach, merge, check, update-ref, worktree remove',
      target: 1.5,
      note: `${perMinute(median(ours))} vs ${perMinute(median(fresh))} landings per minute; median of ${LANDINGS}`,
    });
    report.compare({
      suite: SUITE,
      name: 'one landing, check `true` (20,000 files, no push), against a script that keeps its worktree',
      subjectUs: median(ours),
      baselineUs: median(reused),
      baseline: 'shell script: checkout --detach (kept worktree), merge, check, update-ref',
      target: 1.5,
      note: `${perMinute(median(ours))} vs ${perMinute(median(reused))} landings per minute; median of ${LANDINGS}`,
    });

    // The same landings with the source checkout on main, as a person's usually is: its files
    // follow each landing, after the check that the move overwrites nothing it does not track.
    git('checkout', '--quiet', 'main');
    const oursOnMain: number[] = [];
    const scriptOnMain: number[] = [];
    for (let i = 0; i < LANDINGS; i++) {
      await host.gate.call('agent', 'write', { path: `landed/main-${i}.txt`, content: `agent ${i}\n` });
      await host.gate.call('agent', 'commit', { message: `agent on main ${i}` });
      if (!(await host.gate.call('agent', 'submit', { divergence: 'None' })).ok) throw new Error('submit failed');
      let t = performance.now();
      const done = await host.lander.run();
      oursOnMain.push((performance.now() - t) * 1000);
      if (done.landed.length !== 1) throw new Error(`the lander did not land: ${JSON.stringify(done)}`);
      writeFileSync(join(rawTree, `raw-main-${i}.txt`), `raw ${i}\n`);
      execFileSync('git', ['-C', rawTree, 'add', '-A']);
      execFileSync('git', ['-C', rawTree, 'commit', '--quiet', '-m', `raw on main ${i}`]);
      t = performance.now();
      execFileSync('sh', ['-c', checkedOutScript, 'land', repo, kept], { stdio: 'ignore' });
      scriptOnMain.push((performance.now() - t) * 1000);
    }
    if (git('status', '--porcelain') !== '') throw new Error('the source checkout is not clean after the landings');
    report.compare({
      suite: SUITE,
      name: 'one landing onto the checked-out main, check `true` (20,000 files, no push; the source checkout follows)',
      subjectUs: median(oursOnMain),
      baselineUs: median(scriptOnMain),
      baseline: 'shell script: checkout --detach (kept worktree), merge, check, merge --ff-only in the source checkout',
      target: 1.5,
      note: `${perMinute(median(oursOnMain))} vs ${perMinute(median(scriptOnMain))} landings per minute; median of ${LANDINGS}`,
    });

    const oursCommit: number[] = [];
    const rawCommit: number[] = [];
    for (let i = 0; i < COMMITS; i++) {
      for (let f = 0; f < 10; f++) {
        await host.gate.call('agent', 'write', { path: `d${f}/f${i}.txt`, content: `changed ${i}\n` });
        writeFileSync(join(rawTree, `d${f}`, `f${i}.txt`), `changed ${i}\n`);
      }
      let t = performance.now();
      const r = await host.gate.call('agent', 'commit', { message: `ten files ${i}` });
      oursCommit.push((performance.now() - t) * 1000);
      if (!r.ok || (r.value as { files: unknown[] }).files.length !== 10) throw new Error(`commit: ${JSON.stringify(r)}`);
      t = performance.now();
      execFileSync('sh', ['-c', 'git add -A && git commit --quiet -m "ten files"'], { cwd: rawTree });
      rawCommit.push((performance.now() - t) * 1000);
    }
    report.compare({
      suite: SUITE,
      name: 'commit of 10 changed files (20,000-file worktree)',
      subjectUs: median(oursCommit),
      baselineUs: median(rawCommit),
      baseline: 'git add -A && git commit',
      target: 1.2,
      note: `median of ${COMMITS}`,
    });
    report.note(
      SUITE,
      `landing rounds (ms): gatefs ${ours.map(ms).join(', ')}; fresh-worktree script ${fresh.map(ms).join(', ')}; kept-worktree script ${reused.map(ms).join(', ')}; onto the checked-out main: gatefs ${oursOnMain.map(ms).join(', ')}, script ${scriptOnMain.map(ms).join(', ')}; commit rounds gatefs ${oursCommit.map(ms).join(', ')}, raw ${rawCommit.map(ms).join(', ')}; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await host.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function ms(us: number): number {
  return Math.round(us / 1000);
}

/** $1 repository, $2 a new worktree path: the landing steps with a fresh detached worktree. */
const freshScript = `set -e
cd "$1"
old=$(git rev-parse main)
git worktree add --quiet --detach "$2" main
git -C "$2" merge --quiet --no-edit raw-agent
(cd "$2" && true)
git update-ref refs/heads/main "$(git -C "$2" rev-parse HEAD)" "$old"
git worktree remove --force "$2"`;

/** $1 repository, $3 a kept detached worktree: the same steps reusing it. */
const reusedScript = `set -e
cd "$1"
old=$(git rev-parse main)
git -C "$3" checkout --quiet --detach main
git -C "$3" merge --quiet --no-edit raw-agent
(cd "$3" && true)
git update-ref refs/heads/main "$(git -C "$3" rev-parse HEAD)" "$old"`;

/** $1 repository (main checked out), $2 a kept detached worktree: the landing steps, then the source checkout fast-forwarded. */
const checkedOutScript = `set -e
cd "$1"
git -C "$2" checkout --quiet --detach main
git -C "$2" merge --quiet --no-edit raw-agent
(cd "$2" && true)
git merge --quiet --ff-only "$(git -C "$2" rev-parse HEAD)"`;
