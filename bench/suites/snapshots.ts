/**
 * Snapshots and restore (issue 23) on a real disk workspace of 20,000 small files (200 folders ×
 * 100 files of 1–4 KiB of text, committed in the repository so a worktree tracks them) plus 200
 * untracked files, for each backend that can hold them:
 *
 * - `worktree`: the files are the checked-out commit; the untracked ones written into the folder.
 * - `empty`: all 20,200 files written straight into `<stateDir>/scratch/<id>`.
 * - `copy`: the 20,000 files are the pinned commit (its lower folder); the untracked files and
 *   every change are written into its upper folder, as the sandbox's overlay writes them — a
 *   copy's snapshot holds only its upper folder, which is the whole difference.
 *
 * Rows (each a median of several repetitions, subject and baseline measured in the same rounds, a
 * `sync` before each timed operation so none pays for the write-back of the one before):
 * 1. an incremental snapshot after 10 files changed vs `cp -r` of the 20,200-file workspace folder
 *    (target ≤ 0.01×), and (worktree) vs a git private-index snapshot done the way Conductor does it
 *    (`cp <worktree gitdir>/index tmp; GIT_INDEX_FILE=tmp git add -A --force; git write-tree;
 *    git commit-tree; git update-ref`, one `sh -c`, after a warm-up run) (target ≤ 1.0×);
 * 2. a restore of the snapshot from before 10 more changes vs `cp -r` (target ≤ 0.05×);
 * 3. storage for 100 snapshots each changing 10 files: bytes added to the repository's objects
 *    (worktree; loose objects, classified by `git cat-file --batch-check`) or to
 *    `<stateDir>/snapshots/objects` (copy, empty), less the metadata (trees, commits, manifests),
 *    vs the changed bytes (target ≤ 2×); the metadata and the disk usage in blocks are notes.
 * Notes: the first (full) snapshot's time per backend.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { median, type Report } from '../harness.js';

const SUITE = 'snapshots';
const FOLDERS = 200;
const PER_FOLDER = 100;
const UNTRACKED = 200;
const CHANGED = 10;
/** Timed rounds of the incremental snapshot and restore rows. */
const ROUNDS = Number(process.env.GATEFS_BENCH_SNAPSHOT_ROUNDS ?? 5);
/** Snapshots of the storage rows. */
const STORAGE_SNAPSHOTS = Number(process.env.GATEFS_BENCH_SNAPSHOT_STORAGE ?? 100);
/** Full snapshots timed per backend (each of a fresh conversation). */
const FULL_REPS = Number(process.env.GATEFS_BENCH_SNAPSHOT_FULL ?? 3);
const FILES = FOLDERS * PER_FOLDER;
const WORKSPACE = `${FILES} tracked + ${UNTRACKED} untracked files`;

const manifest = {
  roles: [
    { name: 'worker', tools: ['read'], workspace: { backend: 'worktree' } },
    { name: 'copier', tools: ['read'], workspace: { backend: 'copy' } },
    { name: 'scratcher', tools: ['read'], workspace: { backend: 'empty' } },
  ],
};

type Backend = 'worktree' | 'copy' | 'empty';

export async function run(report: Report): Promise<void> {
  for (const tool of ['git', 'cp', 'du', 'sh', 'sync']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      report.skip({ suite: SUITE, name: '(all)', reason: `${tool} is not installed` });
      return;
    }
  }
  const repo = benchRepository();
  const scratch = mkdtempSync(join(tmpdir(), 'gatefs-bench-snapshots-'));
  const stateDir = join(scratch, 'state');
  let host: Host | undefined;
  try {
    host = await createHost({ repo, stateDir, manifest });
    const ctx: Ctx = { host, repo, stateDir, scratch, report, cpSource: '' };
    await worktreeRows(ctx);
    await emptyRows(ctx);
    await copyRows(ctx);
    report.note(
      SUITE,
      `workspace: ${WORKSPACE} (200 folders × 100 files of 1–4 KiB of text); ${ROUNDS} rounds for timed rows, ` +
        `${FULL_REPS} full snapshots per backend; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  } finally {
    await host?.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'prune'], { cwd: repo });
    const branches = execFileSync('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/gatefs/'], {
      cwd: repo,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    if (branches.length) execFileSync('git', ['branch', '-D', ...branches], { cwd: repo, stdio: 'ignore' });
    const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/gatefs/', 'refs/conductor/'], {
      cwd: repo,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    if (refs.length) execFileSync('git', ['update-ref', '--stdin'], { cwd: repo, input: refs.map((r) => `delete ${r}\n`).join('') });
    execFileSync('git', ['gc', '--quiet', '--prune=now'], { cwd: repo });
  }
}

interface Ctx {
  host: Host;
  repo: string;
  stateDir: string;
  scratch: string;
  report: Report;
  /** The folder `cp -r` copies as the baseline (the first worktree workspace: the same 20,200 files). */
  cpSource: string;
}

/** The workspace folder of a conversation. */
function folderOf(ctx: Ctx, backend: Backend, conversation: string): string {
  const area = backend === 'worktree' ? 'worktrees' : backend === 'copy' ? 'copies' : 'scratch';
  return join(ctx.stateDir, area, conversation);
}

async function worktreeRows(ctx: Ctx): Promise<void> {
  const full: number[] = [];
  for (let i = 1; i <= FULL_REPS; i++) {
    const c = `wt${i}`;
    await ctx.host.prepare({ conversation: c, role: 'worker' });
    const folder = folderOf(ctx, 'worktree', c);
    writeUntracked(folder, `wt${i}`);
    // As an editor's `git status` would: the index's stat data made current (Conductor's copy of it is then incremental).
    execFileSync('git', ['update-index', '-q', '--refresh'], { cwd: folder, stdio: 'ignore' });
    full.push(await timed(() => ctx.host.snapshot(c)));
  }
  ctx.cpSource = folderOf(ctx, 'worktree', 'wt1');
  const folder = ctx.cpSource;
  const gitdir = readFileSync(join(folder, '.git'), 'utf8')
    .replace(/^gitdir: /, '')
    .trim();
  let conductorN = 0;
  const conductor = () => {
    conductorN++;
    const tmpIndex = join(ctx.scratch, 'conductor-index');
    const script =
      `set -e; cp "$GITDIR/index" "$TMPINDEX"; export GIT_INDEX_FILE="$TMPINDEX"; git add -A --force; ` +
      `tree=$(git write-tree); commit=$(git commit-tree "$tree" -p HEAD -m snapshot); git update-ref refs/conductor/${conductorN} "$commit"`;
    execFileSync('sh', ['-c', script], { cwd: folder, env: { ...process.env, GITDIR: gitdir, TMPINDEX: tmpIndex }, stdio: 'ignore' });
  };
  conductor(); // warm-up: the untracked files' blobs are written once
  const rounds = await timedRounds(ctx, 'worktree', 'wt1', conductor);
  const r = ctx.report;
  r.compare({
    suite: SUITE,
    name: 'worktree: incremental snapshot, 10 files changed',
    subjectUs: rounds.snapshot,
    baselineUs: rounds.cp,
    baseline: 'cp -r of the workspace folder',
    target: 0.01,
    note: WORKSPACE,
  });
  r.compare({
    suite: SUITE,
    name: 'worktree: incremental snapshot, 10 files changed',
    subjectUs: rounds.snapshot,
    baselineUs: rounds.conductor!,
    baseline: 'git private-index snapshot (cp index; GIT_INDEX_FILE add -A --force; write-tree; commit-tree; update-ref)',
    target: 1.0,
    note: `${WORKSPACE}; after a warm-up run`,
  });
  r.compare({
    suite: SUITE,
    name: 'worktree: restore of the snapshot from before 10 changes',
    subjectUs: rounds.restore,
    baselineUs: rounds.cp,
    baseline: 'cp -r of the workspace folder',
    target: 0.05,
    note: 'includes the automatic snapshot a restore takes first',
  });
  r.note(SUITE, `worktree: first (full) snapshot of ${WORKSPACE}: median ${ms(median(full))} (${full.map(ms).join(', ')})`);
  await storageRows(ctx, 'worktree', FULL_REPS >= 2 ? 'wt2' : 'wt1');
}

async function emptyRows(ctx: Ctx): Promise<void> {
  const full: number[] = [];
  for (let i = 1; i <= FULL_REPS; i++) {
    const c = `em${i}`;
    await ctx.host.prepare({ conversation: c, role: 'scratcher' });
    const folder = folderOf(ctx, 'empty', c);
    writeTree(folder, `em${i}`); // contents differ per conversation: nothing is already stored
    writeUntracked(folder, `em${i}`);
    full.push(await timed(() => ctx.host.snapshot(c)));
  }
  const rounds = await timedRounds(ctx, 'empty', 'em1', null);
  const r = ctx.report;
  r.compare({
    suite: SUITE,
    name: 'empty: incremental snapshot, 10 files changed',
    subjectUs: rounds.snapshot,
    baselineUs: rounds.cp,
    baseline: 'cp -r of the workspace folder',
    target: 0.01,
    note: `${WORKSPACE} in the scratch folder`,
  });
  r.compare({
    suite: SUITE,
    name: 'empty: restore of the snapshot from before 10 changes',
    subjectUs: rounds.restore,
    baselineUs: rounds.cp,
    baseline: 'cp -r of the workspace folder',
    target: 0.05,
    note: 'includes the automatic snapshot a restore takes first',
  });
  r.note(SUITE, `empty: first (full) snapshot of ${WORKSPACE}: median ${ms(median(full))} (${full.map(ms).join(', ')})`);
  await storageRows(ctx, 'empty', FULL_REPS >= 2 ? 'em2' : 'em1');
}

async function copyRows(ctx: Ctx): Promise<void> {
  const full: number[] = [];
  for (let i = 1; i <= FULL_REPS; i++) {
    const c = `cp${i}`;
    await ctx.host.prepare({ conversation: c, role: 'copier' });
    writeUntracked(folderOf(ctx, 'copy', c), `cp${i}`);
    full.push(await timed(() => ctx.host.snapshot(c)));
  }
  const rounds = await timedRounds(ctx, 'copy', 'cp1', null);
  const r = ctx.report;
  r.compare({
    suite: SUITE,
    name: 'copy: incremental snapshot, 10 files changed',
    subjectUs: rounds.snapshot,
    baselineUs: rounds.cp,
    baseline: 'cp -r of a folder of the same files',
    target: 0.01,
    note: `${WORKSPACE}; the snapshot reads only the upper folder`,
  });
  r.compare({
    suite: SUITE,
    name: 'copy: restore of the snapshot from before 10 changes',
    subjectUs: rounds.restore,
    baselineUs: rounds.cp,
    baseline: 'cp -r of a folder of the same files',
    target: 0.05,
    note: 'includes the automatic snapshot a restore takes first',
  });
  r.note(
    SUITE,
    `copy: first snapshot (upper folder: ${UNTRACKED} new files; the 20,000 are the pinned commit): median ${ms(median(full))}`,
  );
  await storageRows(ctx, 'copy', FULL_REPS >= 2 ? 'cp2' : 'cp1');
}

/**
 * ROUNDS rounds on `conversation`: change 10 files, time a snapshot (and the Conductor baseline),
 * time `cp -r`, change 10 more files, time a restore of the round's snapshot. Medians, µs.
 */
async function timedRounds(
  ctx: Ctx,
  backend: Backend,
  conversation: string,
  conductor: (() => void) | null,
): Promise<{ snapshot: number; restore: number; cp: number; conductor?: number }> {
  const folder = folderOf(ctx, backend, conversation);
  const snap: number[] = [];
  const rest: number[] = [];
  const cps: number[] = [];
  const cond: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    changeFiles(folder, `${conversation}-a${round}`, round * 2);
    let id = '';
    settle();
    snap.push(await timed(async () => (id = (await ctx.host.snapshot(conversation)).snapshotId)));
    settle();
    if (conductor) cond.push(await timed(conductor));
    settle();
    cps.push(await timed(() => cpR(ctx)));
    rmSync(join(ctx.scratch, 'cp-dest'), { recursive: true, force: true });
    changeFiles(folder, `${conversation}-b${round}`, round * 2 + 1);
    settle();
    rest.push(await timed(() => ctx.host.restore(conversation, id)));
  }
  return { snapshot: median(snap), restore: median(rest), cp: median(cps), ...(conductor ? { conductor: median(cond) } : {}) };
}

/** `cp -r` of the baseline folder to a new place (the caller removes it, untimed). */
function cpR(ctx: Ctx): void {
  execFileSync('cp', ['-r', ctx.cpSource, join(ctx.scratch, 'cp-dest')]);
}

/** Flushes the writes before a timed operation (`sync`), so none pays for the write-back of the one before. */
function settle(): void {
  execFileSync('sync');
}

/**
 * STORAGE_SNAPSHOTS snapshots of `conversation`, each after 10 changed files; what they added to
 * the objects (the repository's or the content store) against the changed bytes.
 */
async function storageRows(ctx: Ctx, backend: Backend, conversation: string): Promise<void> {
  const folder = folderOf(ctx, backend, conversation);
  const objects = backend === 'worktree' ? join(ctx.repo, '.git', 'objects') : join(ctx.stateDir, 'snapshots', 'objects');
  const before = filesBelow(objects);
  const blocksBefore = duBlocks(objects);
  let changedBytes = 0;
  const changedIds = new Set<string>();
  for (let i = 0; i < STORAGE_SNAPSHOTS; i++) {
    for (const bytes of changeFiles(folder, `${conversation}-s${i}`, 1000 + i)) {
      changedBytes += bytes.length;
      changedIds.add(createHash('sha256').update(bytes).digest('hex'));
    }
    await ctx.host.snapshot(conversation);
  }
  const after = filesBelow(objects);
  const added = [...after].filter(([p]) => !before.has(p));
  const addedBytes = added.reduce((s, [, size]) => s + size, 0);
  const blocksAdded = duBlocks(objects) - blocksBefore;
  let metadata = 0;
  let metaWhat = '';
  if (backend === 'worktree') {
    const loose = added.filter(([p]) => /^[0-9a-f]{2}\/[0-9a-f]{38}$/.test(p));
    const types = typesOf(
      ctx.repo,
      loose.map(([p]) => p.replace('/', '')),
    );
    const byType = new Map<string, { n: number; bytes: number }>();
    loose.forEach(([, size], i) => {
      const t = byType.get(types[i]) ?? { n: 0, bytes: 0 };
      t.n++;
      t.bytes += size;
      byType.set(types[i], t);
    });
    const other = added.length - loose.length;
    metadata = (byType.get('tree')?.bytes ?? 0) + (byType.get('commit')?.bytes ?? 0);
    metaWhat =
      [...byType].map(([t, v]) => `${v.n} ${t}s ${kib(v.bytes)}`).join(', ') +
      (other
        ? `; ${other} other files (packs) ${kib(added.filter(([p]) => !loose.some(([q]) => q === p)).reduce((s, [, b]) => s + b, 0))}`
        : '');
    if (other) metadata += added.filter(([p]) => !loose.some(([q]) => q === p)).reduce((s, [, b]) => s + b, 0);
  } else {
    const blobs = added.filter(([p]) => changedIds.has(p.replace('/', '')));
    const manifests = added.filter(([p]) => !changedIds.has(p.replace('/', '')));
    metadata = manifests.reduce((s, [, b]) => s + b, 0);
    metaWhat = `${blobs.length} file objects ${kib(blobs.reduce((s, [, b]) => s + b, 0))}, ${manifests.length} manifests ${kib(metadata)}`;
  }
  ctx.report.compare({
    suite: SUITE,
    name: `${backend}: storage of ${STORAGE_SNAPSHOTS} snapshots each changing 10 files, metadata left out`,
    subjectUs: addedBytes - metadata,
    baselineUs: changedBytes,
    baseline: 'the changed bytes',
    target: 2,
    unit: 'bytes',
    note: `besides: ${kib(metadata)} of metadata — trees, commits, manifests`,
  });
  ctx.report.note(
    SUITE,
    `${backend} storage, ${STORAGE_SNAPSHOTS} snapshots × 10 changed files (${kib(changedBytes)} changed): ${added.length} files added, ` +
      `${kib(addedBytes)} apparent (${(addedBytes / changedBytes).toFixed(2)}× the changed bytes with metadata), ${kib(blocksAdded * 1024)} on disk in blocks; ${metaWhat}`,
  );
}

/** Every file below `root` with its size, by '/'-joined relative path. */
function filesBelow(root: string): Map<string, number> {
  const out = new Map<string, number>();
  if (!existsSync(root)) return out;
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), r);
      else if (e.isFile()) out.set(r, statSync(join(dir, e.name)).size);
    }
  };
  walk(root, '');
  return out;
}

/** Disk usage of `root` in KiB blocks (`du -sk`). */
function duBlocks(root: string): number {
  if (!existsSync(root)) return 0;
  return Number(execFileSync('du', ['-sk', root], { encoding: 'utf8' }).split('\t')[0]);
}

/** The object type of each oid (one `cat-file --batch-check`). */
function typesOf(repo: string, oids: string[]): string[] {
  if (oids.length === 0) return [];
  const out = execFileSync('git', ['cat-file', '--batch-check=%(objecttype)'], {
    cwd: repo,
    input: `${oids.join('\n')}\n`,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return out.trim().split('\n');
}

/** Wall time of one call, µs. */
async function timed(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return (performance.now() - t) * 1000;
}

function ms(us: number): string {
  return `${(us / 1000).toFixed(0)} ms`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** A small deterministic generator (xorshift32) seeded from a string. */
function generator(seed: string): () => number {
  let x = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** 1–4 KiB of source-like text, different for every seed. */
function content(seed: string): Buffer {
  const next = generator(seed);
  const size = 1024 + (next() % 3072);
  const lines: string[] = [`// ${seed}`];
  let length = lines[0].length + 1;
  while (length < size) {
    const line = `export const v${next() % 1000} = '${next().toString(16)}${next().toString(36)}'; // ${next() % 97}`;
    lines.push(line);
    length += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** The path of file `j` of folder `i`. */
function pathOf(i: number, j: number): string {
  return `pkg${String(i).padStart(3, '0')}/file${String(j).padStart(3, '0')}.ts`;
}

/** The 20,000 files under `root`, contents seeded by `seed`. */
function writeTree(root: string, seed: string): void {
  for (let i = 0; i < FOLDERS; i++) {
    mkdirSync(join(root, pathOf(i, 0), '..'), { recursive: true });
    for (let j = 0; j < PER_FOLDER; j++) writeFileSync(join(root, pathOf(i, j)), content(`${seed}:${i}:${j}`));
  }
}

/** The untracked files: 200 in two folders (one of them ignored by .gitignore). */
function writeUntracked(root: string, seed: string): void {
  for (const dir of ['notes', 'build']) mkdirSync(join(root, dir), { recursive: true });
  for (let j = 0; j < UNTRACKED; j++) writeFileSync(join(root, j % 2 ? 'notes' : 'build', `u${j}.txt`), content(`${seed}:u${j}`));
}

/** Rewrites 10 tracked files (chosen by `pick`, each in another folder) with new text; returns their new bytes. */
function changeFiles(root: string, seed: string, pick: number): Buffer[] {
  const next = generator(`pick:${pick}`);
  const out: Buffer[] = [];
  const used = new Set<string>();
  while (out.length < CHANGED) {
    const path = pathOf(next() % FOLDERS, next() % PER_FOLDER);
    if (used.has(path)) continue;
    used.add(path);
    const bytes = content(`${seed}:${path}`);
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), bytes);
    out.push(bytes);
  }
  return out;
}

/** The repository of the 20,000 files (with `.gitignore` ignoring build/), made once and cached under the OS temp folder. */
function benchRepository(): string {
  const base = join(tmpdir(), 'gatefs-bench-snapshots-repo-v1');
  const repo = join(base, 'repo');
  if (existsSync(join(base, 'complete'))) return repo;
  rmSync(base, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  writeTree(repo, 'repo');
  writeFileSync(join(repo, '.gitignore'), 'build/\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore', maxBuffer: 1 << 28 });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'gc.auto', '0');
  git('config', 'user.name', 'gatefs bench');
  git('config', 'user.email', 'bench@gatefs.invalid');
  git('add', '-A');
  git('commit', '--quiet', '-m', '20,000 files');
  git('gc', '--quiet');
  writeFileSync(join(base, 'complete'), '');
  return repo;
}
