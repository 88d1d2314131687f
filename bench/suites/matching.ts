/**
 * Bounded matching (issue 9, class L).
 *
 * 1. The worst event-loop delay (`perf_hooks.monitorEventLoopDelay`, 10 ms resolution) and the
 *    slowest answer while the pathological globs, `.gitignore` rules and regexes of
 *    test/security/l-matching-scenarios.ts run through the gate over host folders (60- and
 *    255-character names, 1,000-deep chains, thousands of rules, a 1 MiB `.gitignore`, a 20 MiB
 *    one-line file, one folder of 300,000 files) and the edits of large files (a syntax error left
 *    in 100 KB of JSON, a near miss in 7.8 MB), one call at a time, against the bounds (100 ms of
 *    delay, a 2 s answer).
 * 2. The linear matchers against the packages they replace, in the same run: `compileGlob` vs
 *    picomatch (`dot: true`) and `GitignoreFile` vs the `ignore` package (a typical Node
 *    project `.gitignore`), each over every path of the project's `node_modules`.
 * 3. grep with a regex (now always in a worker) over node_modules vs what it did before on the
 *    main thread (a read and one whole-text RegExp test per file), and vs `rg -l` when installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import ignore from 'ignore';
import picomatch from 'picomatch';
import { openHostLayer, type HostLayer } from '../../vfs/host-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { Registry } from '../../src/gate/registry.js';
import { systemClock } from '../../src/ports/clock.js';
import { ToolGate } from '../../src/gate/tool-gate.js';
import { compileGlob } from '../../tools/patterns/glob-matcher.js';
import { GitignoreFile } from '../../tools/patterns/gitignore-file.js';
import { MatchMeter } from '../../tools/patterns/match-work.js';
import {
  L_SCENARIOS,
  L_WORKSPACES,
  L_WRITABLE,
  buildScenarioFolders,
  scenarioFolder,
  scenarioTools,
} from '../../test/security/l-matching-scenarios.js';
import { RG_LIKE_GATEFS } from '../ripgrep-args.js';
import { measurePair, type Report } from '../harness.js';

const SUITE = 'matching';
const modules = fileURLToPath(new URL('../../../node_modules', import.meta.url));

/** A typical Node project's `.gitignore` (GitHub's Node template, abridged, and common extras). */
const NODE_GITIGNORE = `logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
lerna-debug.log*
.pnpm-debug.log*
report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json
pids
*.pid
*.seed
*.pid.lock
lib-cov
coverage
*.lcov
.nyc_output
.grunt
bower_components
.lock-wscript
build/Release
node_modules/
jspm_packages/
web_modules/
*.tsbuildinfo
.npm
.eslintcache
.stylelintcache
.rpt2_cache/
.rts2_cache_cjs/
.node_repl_history
*.tgz
.yarn-integrity
.env
.env.*.local
!.env.example
.cache
.parcel-cache
.next
out
.nuxt
dist
.vuepress/dist
.temp
.docusaurus
.serverless/
.fusebox/
.dynamodb/
.tern-port
.vscode-test
.yarn/cache
.yarn/unplugged
.yarn/build-state.yml
.yarn/install-state.gz
.pnp.*
**/tmp/**
/docs/_build
*.min.js.map
**/__snapshots__/*.snap
`;

function allPaths(dir: string, rel: string, out: { rel: string; isDir: boolean }[]): void {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    out.push({ rel: r, isDir: d.isDirectory() });
    if (d.isDirectory()) allPaths(join(dir, d.name), r, out);
  }
}

async function worstDelays(report: Report): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'gatefs-bench-matching-'));
  const layers: HostLayer[] = [];
  try {
    buildScenarioFolders(base);
    const registry = new Registry();
    const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
    for (const id of L_WORKSPACES) {
      const layer = openHostLayer(scenarioFolder(base, base, id));
      layers.push(layer);
      const root = `/worktrees/${id}`;
      registry.set({
        conversation: id,
        state: 'ready',
        role: 'agent',
        tools: scenarioTools(id),
        namespace: new Namespace({ root, mounts: [{ path: root, layer, writable: L_WRITABLE.has(id) }] }),
      });
    }
    const groups = new Map<string, { delay: number; delayAt: string; wall: number; wallAt: string; calls: number; refused: number }>();
    for (const s of L_SCENARIOS) {
      const group = s.workspace.startsWith('ig-')
        ? '.gitignore rules'
        : s.workspace === 'big'
          ? 'regexes and huge lines'
          : s.workspace === 'huge' || s.workspace === 'edits'
            ? 'huge folders and large edits'
            : 'globs';
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      const t0 = performance.now();
      const r = await gate.call(s.workspace, s.tool, s.args);
      const wall = performance.now() - t0;
      h.disable();
      const delay = h.max / 1e6;
      const g = groups.get(group) ?? { delay: 0, delayAt: '', wall: 0, wallAt: '', calls: 0, refused: 0 };
      g.calls++;
      if (!r.ok && r.error.code === 'INVALID_INPUT') g.refused++;
      if (delay > g.delay) Object.assign(g, { delay, delayAt: s.name });
      if (wall > g.wall) Object.assign(g, { wall, wallAt: s.name });
      groups.set(group, g);
    }
    for (const [group, g] of groups) {
      report.compare({
        suite: SUITE,
        name: `worst event-loop delay, pathological ${group}`,
        note: `${g.calls} calls, ${g.refused} answered INVALID_INPUT; worst: ${g.delayAt}`,
        subjectUs: g.delay * 1000,
        baselineUs: 100_000,
        baseline: 'bound',
        target: 1,
      });
      report.compare({
        suite: SUITE,
        name: `slowest answer, pathological ${group}`,
        note: `wall time on a shared machine; slowest: ${g.wallAt}`,
        subjectUs: g.wall * 1000,
        baselineUs: 2_000_000,
        baseline: 'bound',
        target: 1,
      });
    }
  } finally {
    for (const l of layers) l.close();
    rmSync(base, { recursive: true, force: true });
  }
}

async function matcherSpeed(report: Report): Promise<void> {
  const paths: { rel: string; isDir: boolean }[] = [];
  allPaths(modules, '', paths);
  for (const pattern of ['**/*.js', '**/*.{js,ts,json}', 'typescript/lib/*.d.ts', '**/test/**/*.js', '*.md']) {
    const ours = compileGlob(pattern, 'pattern');
    const theirs = picomatch(pattern, { dot: true });
    const work = { steps: 0 };
    const oursCount = paths.filter((p) => ours.matches(p.rel, work)).length;
    const theirsCount = paths.filter((p) => theirs(p.rel)).length;
    if (oursCount !== theirsCount) report.note(SUITE, `glob ${pattern}: ${oursCount} matches, picomatch ${theirsCount}`);
    const m = await measurePair(
      () => {
        let n = 0;
        for (const p of paths) if (ours.matches(p.rel, work)) n++;
        return n;
      },
      () => {
        let n = 0;
        for (const p of paths) if (theirs(p.rel)) n++;
        return n;
      },
      { iterations: 20, warmup: 3, rounds: 5 },
    );
    report.compare({
      suite: SUITE,
      name: `glob ${pattern} over ${paths.length} node_modules paths`,
      ...m,
      baseline: 'picomatch (dot: true)',
      target: 1.2,
    });
  }
  // Both sides parse the file afresh each time (the ignore package caches verdicts per path on
  // its instance) and judge every path; grep's walk never enters an ignored folder, so the
  // counts below propagate folder verdicts to what lies beneath, as the ignore package does.
  const rules = NODE_GITIGNORE.trim().split('\n').length;
  const oursOnce = async () => {
    const file = await GitignoreFile.parse(NODE_GITIGNORE, new MatchMeter());
    const work = { steps: 0 };
    const ignoredDirs = new Set<string>();
    let n = 0;
    for (const p of paths) {
      const parent = p.rel.slice(0, Math.max(0, p.rel.lastIndexOf('/')));
      const ignored =
        (parent !== '' && ignoredDirs.has(parent)) ||
        file.verdict(p.rel, 0, p.rel.slice(p.rel.lastIndexOf('/') + 1), p.isDir, work) === 'ignored';
      if (ignored) {
        n++;
        if (p.isDir) ignoredDirs.add(p.rel);
      }
    }
    return n;
  };
  const theirsOnce = () => {
    const ig = ignore().add(NODE_GITIGNORE);
    let n = 0;
    for (const p of paths) if (ig.ignores(p.isDir ? `${p.rel}/` : p.rel)) n++;
    return n;
  };
  report.note(
    SUITE,
    `.gitignore (${rules} rules) over node_modules: ${await oursOnce()} paths ignored (folders' verdicts carried below them), ignore package ${theirsOnce()}`,
  );
  const m = await measurePair(oursOnce, theirsOnce, { iterations: 20, warmup: 3, rounds: 5 });
  report.compare({
    suite: SUITE,
    name: `.gitignore verdicts over ${paths.length} node_modules paths (Node template, ${rules} rules, parsed each time)`,
    ...m,
    baseline: 'ignore package',
    target: 1.2,
  });
}

/** The files below `dir` (no links, no .git), as paths relative to it. */
function filesBelow(dir: string, rel: string, out: string[]): void {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    if (d.isDirectory() && d.name !== '.git') filesBelow(join(dir, d.name), r, out);
    else if (d.isFile()) out.push(r);
  }
}

async function regexGrep(report: Report): Promise<void> {
  const layer = openHostLayer(modules);
  try {
    const registry = new Registry();
    const gate = new ToolGate({ registry, clock: systemClock, runLog: { append: () => {} } });
    const ns = new Namespace({ root: '/worktrees/bench', mounts: [{ path: '/worktrees/bench', layer, writable: false }] });
    registry.set({ conversation: 'bench', state: 'ready', role: 'agent', tools: new Set(['grep']), namespace: ns });
    const pattern = 'use\\s+stri[c]t';
    const grep = async () => {
      const r = await gate.call('bench', 'grep', { pattern, maxResults: 10_000 });
      if (!r.ok) throw new Error(`grep failed: ${JSON.stringify(r.error)}`);
      return (r.value as { files: string[] }).files.length;
    };
    // What grep did before on the main thread: read every file, skip binaries, one whole-text test.
    const files: string[] = [];
    filesBelow(modules, '', files);
    const re = new RegExp(pattern, 'm');
    const inProcess = () => {
      let n = 0;
      for (const f of files) {
        const bytes = readFileSync(join(modules, f));
        if (bytes.subarray(0, 8192).includes(0)) continue;
        if (re.test(bytes.toString('utf8'))) n++;
      }
      return n;
    };
    report.note(
      SUITE,
      `grep regex '${pattern}': gatefs ${await grep()} files, a main-thread readFileSync + RegExp pass over the same tree ${inProcess()} (it ignores no .gitignore)`,
    );
    const m = await measurePair(grep, inProcess, { iterations: 10, warmup: 1, rounds: 5 });
    // The raw pass confines nothing and reads no .gitignore; before this change gatefs ran the
    // regex on the main thread like it (and could be held there for minutes by one pattern).
    report.compare({
      suite: SUITE,
      name: 'grep regex over node_modules (regex in a worker thread)',
      ...m,
      baseline: 'readdirSync walk + readFileSync + RegExp on the main thread',
      target: 2,
    });
    if (spawnSync('rg', ['--version']).status !== 0) {
      report.skip({
        suite: SUITE,
        name: 'grep regex over node_modules vs rg',
        reason: 'ripgrep (Debian package ripgrep) is not installed',
      });
      return;
    }
    const rgArgs = [...RG_LIKE_GATEFS, '--', pattern, '.'];
    const rg = () =>
      spawnSync('rg', rgArgs, { cwd: modules, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean).length;
    const r = await measurePair(grep, rg, { iterations: 10, warmup: 1, rounds: 5 });
    report.compare({
      suite: SUITE,
      name: 'grep regex over node_modules (regex in a worker thread)',
      ...r,
      baseline: 'rg -l (2 threads, process spawn included)',
      target: 2,
    });
  } finally {
    layer.close();
  }
}

export async function run(report: Report): Promise<void> {
  await worstDelays(report);
  if (!existsSync(modules)) {
    report.skip({ suite: SUITE, name: '(node_modules rows)', reason: 'node_modules is absent' });
    return;
  }
  await matcherSpeed(report);
  await regexGrep(report);
}
