/**
 * Tree searches over a real tree no one here wrote: the project's `node_modules`.
 *
 * 1. `grep` (literal, files output) through the gate and the host layer vs ripgrep `rg -l`
 *    with the options that make it search what gatefs searches:
 *      --fixed-strings             pattern is a literal (grep `literal: true`)
 *      --hidden                    gatefs searches dot-files too
 *      --no-ignore-dot             gatefs reads no .ignore / .rgignore files
 *      --no-ignore-global --no-ignore-exclude   nor the user's global excludes / .git/info/exclude
 *      --no-ignore-parent          nor .gitignore files above the searched folder (it is the mount root)
 *      --no-require-git            .gitignore files apply although node_modules is no git repository
 *      -g '!.git'                  .git folders are skipped
 *    Links are not followed by either. rg runs multi-threaded (2 cores here) and is timed as a
 *    whole process (spawn included). The file lists are compared and differences reported.
 * 2. `list` with `**\/*.js` vs a raw recursive `readdirSync(withFileTypes)` walk + picomatch
 *    (no stat), and vs the same walk + `lstatSync` of each match (what list returns: sizes).
 * 3. Over a 29,000-file monorepo built from real packages (bench/monorepo-fixture.ts): grep for a
 *    rare literal vs `rg -l`, and a pathless `list packages/*\/src/**\/*.ts` vs a raw walk of only
 *    the folders that pattern can reach (what "walks only what can match" costs at best) and vs a
 *    raw walk of the whole tree.
 * Skipped with a note when rg or node_modules is absent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import { openHostLayer } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { RG_LIKE_GATEFS } from '../ripgrep-args.js';
import { measurePair, type Report } from '../harness.js';
import { monorepoFixture } from '../monorepo-fixture.js';

const SUITE = 'grep';
const tree = fileURLToPath(new URL('../../../node_modules', import.meta.url));
const RG_ARGS = [...RG_LIKE_GATEFS, '--fixed-strings'];

function rgFiles(pattern: string, cwd = tree): string[] {
  const r = spawnSync('rg', [...RG_ARGS, '--', pattern, '.'], { cwd, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/^\.\//, ''))
    .sort();
}

function rawWalk(dir: string, rel: string, isMatch: (p: string) => boolean, out: string[]): void {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    if (isMatch(r)) out.push(r);
    if (d.isDirectory() && d.name !== '.git') rawWalk(join(dir, d.name), r, isMatch, out);
  }
}

/** A gate with one read-only host workspace over `dir`, and the layer to close. */
function gateOver(dir: string) {
  const layer = openHostLayer(dir);
  const registry = new Registry();
  const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
  const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: false }] });
  registry.set({ conversation: 'bench', state: 'ready', role: 'agent', tools: new Set(['grep', 'list']), namespace: ns });
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await gate.call('bench', tool, args);
    if (!r.ok) throw new Error(`${tool} failed: ${JSON.stringify(r.error)}`);
    return r.value as Record<string, unknown> & { truncated: boolean };
  };
  return { layer, call };
}

/** Rows over the monorepo fixture (see the module comment, 3.). */
async function monorepoRows(report: Report, hasRg: boolean): Promise<void> {
  const repo = monorepoFixture();
  if (!repo) return;
  const { layer, call } = gateOver(repo);
  try {
    const all: string[] = [];
    rawWalk(repo, '', () => true, all);
    const files = all.length;
    const needle = 'gatefs-needle-7f3a';
    const grep = async () => ((await call('grep', { pattern: needle, literal: true, maxResults: 10_000 })).files as string[]).length;
    if (hasRg) {
      report.note(SUITE, `monorepo: ${files} entries; grep '${needle}': gatefs ${await grep()} files, rg ${rgFiles(needle, repo).length}`);
      const m = await measurePair(grep, () => rgFiles(needle, repo), { iterations: 10, warmup: 1, rounds: 5 });
      report.compare({
        suite: SUITE,
        name: `grep rare literal (reads every byte) over a ${files}-entry monorepo`,
        ...m,
        baseline: 'rg -l (2 threads, process spawn included)',
        target: 2,
      });
    } else {
      report.skip({
        suite: SUITE,
        name: 'grep rare literal over the monorepo',
        reason: 'ripgrep (Debian package ripgrep) is not installed',
      });
    }
    const pattern = 'packages/*/src/**/*.ts';
    const isMatch = picomatch(pattern, { dot: true });
    const list = async () => ((await call('list', { pattern, maxResults: 100_000 })).entries as unknown[]).length;
    // The least a walk must read: the root, packages/, every package folder, and their src trees;
    // then the size of each match (lstat), as list returns it.
    const reachable = () => {
      const out: string[] = [];
      for (const pkg of readdirSync(join(repo, 'packages'), { withFileTypes: true })) {
        if (!pkg.isDirectory()) continue;
        const src = join(repo, 'packages', pkg.name, 'src');
        readdirSync(join(repo, 'packages', pkg.name));
        if (existsSync(src) && lstatSync(src).isDirectory()) rawWalk(src, `packages/${pkg.name}/src`, isMatch, out);
      }
      readdirSync(repo);
      let bytes = 0;
      for (const p of out) bytes += lstatSync(join(repo, p)).size;
      return bytes >= 0 ? out.length : -1;
    };
    const fullWalk = () => {
      const out: string[] = [];
      rawWalk(repo, '', isMatch, out);
      return out.length;
    };
    report.note(
      SUITE,
      `monorepo list ${pattern}: gatefs ${await list()} entries, raw walk of the reachable folders ${reachable()}, of the whole tree ${fullWalk()}`,
    );
    const least = await measurePair(list, reachable, { iterations: 20, warmup: 2, rounds: 5 });
    report.compare({
      suite: SUITE,
      name: `pathless list ${pattern} over the monorepo`,
      ...least,
      baseline: 'readdirSync walk of only the folders the pattern can reach + picomatch + lstat of matches',
      target: 1.5,
    });
    const full = await measurePair(list, fullWalk, { iterations: 20, warmup: 2, rounds: 5 });
    report.compare({
      suite: SUITE,
      name: `pathless list ${pattern} over the monorepo (gatefs also sizes each match)`,
      ...full,
      baseline: 'readdirSync walk of the whole tree + picomatch',
      target: 0.3,
      note: 'the folders it can reach are about a fifth of the tree',
    });
  } finally {
    layer.close();
  }
}

export async function run(report: Report): Promise<void> {
  if (!existsSync(tree)) {
    report.skip({ suite: SUITE, name: '(all)', reason: 'node_modules is absent' });
    return;
  }
  const layer = openHostLayer(tree);
  try {
    const registry = new Registry();
    const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
    const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: false }] });
    registry.set({ conversation: 'bench', state: 'ready', role: 'agent', tools: new Set(['grep', 'list']), namespace: ns });
    const grepFiles = async (pattern: string): Promise<string[]> => {
      const r = await gate.call('bench', 'grep', { pattern, literal: true, maxResults: 10_000 });
      if (!r.ok) throw new Error(`grep failed: ${JSON.stringify(r.error)}`);
      const v = r.value as { files: string[]; truncated: boolean };
      if (v.truncated) throw new Error('grep truncated: raise maxResults');
      return v.files;
    };

    const hasRg = spawnSync('rg', ['--version']).status === 0;
    for (const [name, pattern] of [
      ['rare literal (reads every byte)', 'gatefs-needle-7f3a'],
      ['common literal', 'use strict'],
    ] as const) {
      const ours = await grepFiles(pattern);
      if (!hasRg) {
        report.skip({ suite: SUITE, name: `grep ${name}`, reason: 'ripgrep (Debian package ripgrep) is not installed' });
        continue;
      }
      const theirs = rgFiles(pattern);
      const oursSorted = [...ours].sort();
      const onlyOurs = oursSorted.filter((f) => !theirs.includes(f));
      const onlyRg = theirs.filter((f) => !oursSorted.includes(f));
      report.note(
        SUITE,
        `grep '${pattern}': gatefs ${ours.length} files, rg ${theirs.length}; only gatefs: ${onlyOurs.length}${onlyOurs.length ? ` (${onlyOurs.slice(0, 3).join(', ')})` : ''}; only rg: ${onlyRg.length}${onlyRg.length ? ` (${onlyRg.slice(0, 3).join(', ')})` : ''}`,
      );
      const m = await measurePair(
        () => grepFiles(pattern),
        () => rgFiles(pattern),
        { iterations: 10, warmup: 1, rounds: 5 },
      );
      report.compare({
        suite: SUITE,
        name: `grep ${name} over node_modules`,
        ...m,
        baseline: 'rg -l (2 threads, process spawn included)',
        target: 2,
      });
    }

    const isJs = picomatch('**/*.js', { dot: true });
    const listJs = async () => {
      const r = await gate.call('bench', 'list', { pattern: '**/*.js', maxResults: 100_000 });
      if (!r.ok) throw new Error(`list failed: ${JSON.stringify(r.error)}`);
      return (r.value as { entries: unknown[] }).entries.length;
    };
    const raw: string[] = [];
    rawWalk(tree, '', isJs, raw);
    const count = await listJs();
    report.note(SUITE, `list **/*.js: gatefs ${count} entries, raw walk ${raw.length}`);
    const noStat = await measurePair(
      listJs,
      () => {
        const out: string[] = [];
        rawWalk(tree, '', isJs, out);
        return out.length;
      },
      { iterations: 10, warmup: 1, rounds: 5 },
    );
    report.compare({
      suite: SUITE,
      name: 'list **/*.js over node_modules',
      ...noStat,
      baseline: 'readdirSync walk + picomatch',
      target: 1.2,
    });
    const withStat = await measurePair(
      listJs,
      () => {
        const out: string[] = [];
        rawWalk(tree, '', isJs, out);
        let bytes = 0;
        for (const p of out) bytes += lstatSync(join(tree, p)).size;
        return bytes;
      },
      { iterations: 10, warmup: 1, rounds: 5 },
    );
    report.compare({
      suite: SUITE,
      name: 'list **/*.js over node_modules',
      ...withStat,
      baseline: 'readdirSync walk + picomatch + lstat of matches',
      target: 1.2,
    });
  } finally {
    layer.close();
  }
  await monorepoRows(report, spawnSync('rg', ['--version']).status === 0);
}
