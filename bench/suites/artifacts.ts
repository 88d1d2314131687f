/**
 * Artifact handoff (issue 24) on the real disk host.
 *
 * Rows (each a median of several rounds, subject and baseline measured in the same rounds):
 * 1. `handoff` collecting 32 files of 1 MiB (fresh random bytes every round, so every object is
 *    new to the store) from a worktree workspace, through the gate as an agent calls it, vs one
 *    `cp` of the same 32 files into a fresh folder (target ≤ 1.5×). The collection reads each file
 *    through the confined walk, hashes it, writes it durably into the store (fsync) and links it
 *    into the handoff's folder; `cp` does not fsync. `auto_patch` is off for this row (its cost is
 *    a note).
 * 2. Routing: a receiver's first look at the artifacts (prepare of the receiving conversation and
 *    a `list` of `artifacts/<role>-v<n>`, plus a `read` reaching one artifact) when the handoff carried
 *    32 × 1 MiB vs when it carried 32 × 1 KiB (target ≤ 1.2×: O(1) in their size, a read-only
 *    mount of the store, not a copy).
 * Notes: the same handoff with `auto_patch` on (a worktree's patch of 32 MiB of new files); bytes
 * added to the store by a second, identical handoff (identical artifacts are stored once).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { median, type Report } from '../harness.js';

const SUITE = 'artifacts';
const FILES = 32;
const MIB = 1024 * 1024;
const ROUNDS = Number(process.env.GATEFS_BENCH_ARTIFACT_ROUNDS ?? 7);

function manifestOf(autoPatch: boolean) {
  return {
    roles: [
      {
        name: 'maker',
        tools: ['read', 'write', 'handoff'],
        workspace: { backend: 'worktree' },
        artifacts: { auto_patch: autoPatch, max_file_bytes: MIB, max_files: FILES },
      },
      { name: 'taker', tools: ['read', 'list'], workspace: { backend: 'worktree' } },
    ],
  };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function freshRepo(root: string): string {
  const repo = join(root, 'repo');
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '--quiet', '--initial-branch', 'main');
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.name=b', '-c', 'user.email=b@example.invalid', 'commit', '--quiet', '-m', 'initial');
  return repo;
}

/** Writes 32 files of `size` fresh random bytes under `out/` of a folder; answers their relative paths. */
function writeOutputs(folder: string, size: number): string[] {
  mkdirSync(join(folder, 'out'), { recursive: true });
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const rel = `out/part-${String(i).padStart(2, '0')}.bin`;
    writeFileSync(join(folder, rel), randomBytes(size));
    paths.push(rel);
  }
  return paths;
}

function okValue<T>(r: { ok: boolean; value?: unknown; error?: unknown }, what: string): T {
  if (!r.ok) throw new Error(`${what} failed: ${JSON.stringify(r.error)}`);
  return r.value as T;
}

/** Bytes under a folder (files only, recursive). */
function bytesUnder(folder: string): number {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(folder, e.name);
    if (e.isDirectory()) total += bytesUnder(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

export async function run(report: Report): Promise<void> {
  for (const tool of ['git', 'cp', 'sync']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      report.skip({ suite: SUITE, name: 'all', reason: `${tool} is not installed` });
      return;
    }
  }
  const root = mkdtempSync(join(tmpdir(), 'gatefs-bench-artifacts-'));
  try {
    await collectRow(report, root);
    await routingRow(report, root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Row 1 and the notes: 32 × 1 MiB collected vs `cp`. */
async function collectRow(report: Report, root: string): Promise<void> {
  const repo = freshRepo(join(root, 'collect'));
  const stateDir = join(repo, '.gatefs');
  const host: Host = await createHost({ repo, manifest: manifestOf(false) });
  const subject: number[] = [];
  const baseline: number[] = [];
  const durable: number[] = [];
  try {
    for (let round = 0; round < ROUNDS + 1; round++) {
      const id = `maker-${round}`;
      await host.prepare({ conversation: id, role: 'maker', run: `bench-${round}` } as never);
      const worktree = join(stateDir, 'worktrees', id);
      const paths = writeOutputs(worktree, MIB);
      const copyTo = join(root, `cp-${round}`);
      mkdirSync(copyTo);
      execFileSync('sync');
      let t0 = performance.now();
      execFileSync('cp', [...paths.map((p) => join(worktree, p)), copyTo]);
      const cpMs = performance.now() - t0;
      // The same copy made durable, as the store makes its objects before any record names them.
      const durableTo = join(root, `cp-sync-${round}`);
      mkdirSync(durableTo);
      execFileSync('sync');
      t0 = performance.now();
      execFileSync('sh', ['-c', 'cp "$@" "$0" && sync "$0"/*', durableTo, ...paths.map((p) => join(worktree, p))]);
      const durableMs = performance.now() - t0;
      execFileSync('sync');
      t0 = performance.now();
      const value = okValue<{ collected: unknown[]; rejected: unknown[] }>(
        await host.gate.call(id, 'handoff', { to: 'taker', files: paths }),
        'handoff',
      );
      const handoffMs = performance.now() - t0;
      if (value.collected.length !== FILES)
        throw new Error(`collected ${value.collected.length} of ${FILES}: ${JSON.stringify(value.rejected)}`);
      if (round === 0) continue; // warm-up
      subject.push(handoffMs * 1000);
      baseline.push(cpMs * 1000);
      durable.push(durableMs * 1000);
    }
    report.compare({
      suite: SUITE,
      name: `handoff collecting ${FILES} × 1 MiB (worktree, auto_patch off)`,
      subjectUs: median(subject),
      baselineUs: median(baseline),
      baseline: `cp of the same ${FILES} files`,
      target: 1.5,
      note: `median of ${ROUNDS} rounds; the store fsyncs each object, cp does not`,
    });
    report.note(
      SUITE,
      `the same 32 files copied and made durable (cp, then sync of each copy): ${(median(durable) / 1000).toFixed(1)} ms; the handoff is ${(median(subject) / median(durable)).toFixed(2)}x that`,
    );
    // Identical artifacts are stored once: a second handoff of the same bytes adds nothing.
    const objects = join(stateDir, 'artifacts', 'objects');
    const before = bytesUnder(objects);
    const again = 'maker-again-1';
    await host.prepare({ conversation: again, role: 'maker', run: 'bench-again' } as never);
    const first = join(stateDir, 'worktrees', 'maker-1');
    const paths = readdirSync(join(first, 'out')).map((n) => `out/${n}`);
    mkdirSync(join(stateDir, 'worktrees', again, 'out'));
    for (const p of paths) execFileSync('cp', [join(first, p), join(stateDir, 'worktrees', again, p)]);
    okValue(await host.gate.call(again, 'handoff', { to: 'taker', files: paths }), 'identical handoff');
    report.note(SUITE, `a second handoff of the same ${FILES} MiB added ${bytesUnder(objects) - before} bytes to the store`);
  } finally {
    await host.close();
  }
  await autoPatchNote(report, root);
}

/** The note: the same collection with auto_patch on. */
async function autoPatchNote(report: Report, root: string): Promise<void> {
  const repo = freshRepo(join(root, 'patch'));
  const host: Host = await createHost({ repo, manifest: manifestOf(true) });
  try {
    const times: number[] = [];
    for (let round = 0; round < 4; round++) {
      const id = `patcher-${round}`;
      await host.prepare({ conversation: id, role: 'maker', run: `patch-${round}` } as never);
      const paths = writeOutputs(join(repo, '.gatefs', 'worktrees', id), MIB);
      execFileSync('sync');
      const t0 = performance.now();
      okValue(await host.gate.call(id, 'handoff', { to: 'taker', files: paths }), 'handoff with a patch');
      if (round > 0) times.push(performance.now() - t0);
    }
    report.note(
      SUITE,
      `the same handoff with auto_patch on (a binary patch of ${FILES} new 1 MiB files): ${median(times).toFixed(0)} ms (median of 3)`,
    );
  } finally {
    await host.close();
  }
}

/** Row 2: a receiver's first look at 32 × 1 MiB vs 32 × 1 KiB of artifacts. */
async function routingRow(report: Report, root: string): Promise<void> {
  const repo = freshRepo(join(root, 'routing'));
  const host: Host = await createHost({ repo, manifest: manifestOf(false) });
  const big: number[] = [];
  const small: number[] = [];
  try {
    for (let round = 0; round < ROUNDS + 1; round++) {
      for (const [size, into] of [
        [MIB, big],
        [1024, small],
      ] as const) {
        const run = `route-${size}-${round}`;
        const maker = `m-${size}-${round}`;
        const taker = `t-${size}-${round}`;
        await host.prepare({ conversation: maker, role: 'maker', run } as never);
        const paths = writeOutputs(join(repo, '.gatefs', 'worktrees', maker), size);
        okValue(await host.gate.call(maker, 'handoff', { to: 'taker', files: paths }), 'handoff');
        execFileSync('sync');
        const t0 = performance.now();
        await host.prepare({ conversation: taker, role: 'taker', run } as never);
        const listed = okValue<{ entries: unknown[] }>(
          await host.gate.call(taker, 'list', { path: 'artifacts/maker-v1/out' }),
          'list of the routed folder',
        );
        // Random bytes are binary: the read reaching the file answers BINARY_FILE, which proves it is there.
        const read = await host.gate.call(taker, 'read', { path: 'artifacts/maker-v1/out/part-00.bin', limit: 1 });
        if (!read.ok && (read as { error: { code: string } }).error.code !== 'BINARY_FILE') throw new Error(JSON.stringify(read));
        const ms = performance.now() - t0;
        if (listed.entries.length !== FILES) throw new Error(`the receiver lists ${listed.entries.length} of ${FILES}`);
        if (round > 0) into.push(ms * 1000);
      }
    }
    report.compare({
      suite: SUITE,
      name: `routing ${FILES} × 1 MiB to a receiver (prepare, list, reach one)`,
      subjectUs: median(big),
      baselineUs: median(small),
      baseline: `the same for ${FILES} × 1 KiB`,
      target: 1.2,
      note: `median of ${ROUNDS} rounds; a read-only mount of the store folder, nothing copied`,
    });
  } finally {
    await host.close();
  }
}
