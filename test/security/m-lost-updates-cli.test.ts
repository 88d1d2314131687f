/**
 * Attack class M across processes: real `gatefs call` processes (the built binary) racing on
 * one file of one workspace, and a lock holder killed with SIGKILL. What a user checks: every
 * change whose process exited 0 is in the file; every other process exited with a typed code;
 * of several writers expecting the same bytes exactly one wins; a dead holder blocks no one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import buildOnce from '../build-once.js';
import { LockFileDir } from '../../src/ports/lock-file-dir.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { ROOT, gatefs, type RunResult } from '../cli/run-gatefs.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const cleanups: (() => unknown)[] = [];
// These tests run the built binary: build it when the run's filter did not ask for it.
beforeAll(() => buildOnce(), 300_000);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const slot = (i: number) => `slot-${String(i).padStart(2, '0')}`;
const board = (n: number) => Array.from({ length: n }, (_, i) => `${slot(i)} = _\n`).join('');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A repository holding `board.txt`, with conversation `c` prepared (a git worktree). */
async function prepared(
  content: string,
): Promise<{ repo: TempRepo; file: string; call: (tool: string, args: object) => Promise<RunResult> }> {
  const repo = makeTempRepo({ 'README.md': '# demo\n', 'board.txt': content });
  cleanups.push(() => repo.cleanup());
  const prep = await gatefs(['prepare', 'c'], { cwd: repo.dir });
  expect(prep.code).toBe(0);
  const call = (tool: string, args: object) => gatefs(['call', 'c', tool, JSON.stringify(args), '--json'], { cwd: repo.dir });
  return { repo, file: join(repo.dir, '.gatefs/worktrees/c/board.txt'), call };
}

/** The error code a finished `gatefs call --json` reported (undefined when it succeeded). */
function codeOf(run: RunResult): string | undefined {
  if (run.code === 0) return undefined;
  try {
    return (JSON.parse(run.stdout) as { error?: { code?: string } }).error?.code ?? `exit ${run.code}`;
  } catch {
    return `exit ${run.code}: ${run.stderr.slice(0, 300)}`;
  }
}

describe('no lost updates across processes', () => {
  it('20 concurrent `gatefs call … edit` processes on one file: every one that exited 0 is in the file', async () => {
    const { file, call } = await prepared(board(20));
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('edit', { path: 'board.txt', oldString: `${slot(i)} = _\n`, newString: `${slot(i)} = p${i}\n` }),
      ),
    );
    const text = readFileSync(file, 'utf8');
    const codes = runs.map(codeOf);
    // Nothing but success or a typed, retryable refusal; and every success is in the file.
    for (const code of codes) expect([undefined, 'BUSY']).toContain(code);
    const missing = runs.map((r, i) => (r.code === 0 && !text.includes(`${slot(i)} = p${i}\n`) ? i : -1)).filter((i) => i >= 0);
    expect(missing).toEqual([]);
    expect(codes.filter((c) => c === undefined).length).toBeGreaterThan(0);
    // And nothing else changed: claimed lines are exactly the successes.
    expect(text.split('\n').filter((l) => /= p\d+$/.test(l)).length).toBe(codes.filter((c) => c === undefined).length);
  }, 180_000);

  it('write with the same expectedSha256 from 6 processes at once: exactly one wins, the others answer STALE_CONTENT', async () => {
    const original = 'version 0\n';
    const { file, call } = await prepared(original);
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('write', { path: 'board.txt', content: `written by ${i}\n`, expectedSha256: sha(original) }),
      ),
    );
    const codes = runs.map(codeOf);
    expect(codes.filter((c) => c === undefined)).toHaveLength(1);
    expect(codes.filter((c) => c !== undefined).every((c) => c === 'STALE_CONTENT')).toBe(true);
    const winner = codes.indexOf(undefined);
    expect(readFileSync(file, 'utf8')).toBe(`written by ${winner}\n`);
  }, 120_000);

  it('create-only writes (expectedSha256: null) of one new file from 4 processes: exactly one creates it, the others answer ALREADY_EXISTS', async () => {
    const { repo, call } = await prepared('x\n');
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) => call('write', { path: 'fresh/new.txt', content: `created by ${i}\n`, expectedSha256: null })),
    );
    const codes = runs.map(codeOf);
    expect(codes.filter((c) => c === undefined)).toHaveLength(1);
    expect(codes.filter((c) => c !== undefined).every((c) => c === 'ALREADY_EXISTS')).toBe(true);
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/c/fresh/new.txt'), 'utf8')).toBe(`created by ${codes.indexOf(undefined)}\n`);
  }, 120_000);

  it('a holder killed with SIGKILL while holding the lock file blocks no one; while it lived, an edit answered BUSY and changed nothing', async () => {
    const content = board(2);
    const { repo, file, call } = await prepared(content);
    const stateDir = join(repo.dir, '.gatefs');
    const layer = openHostLayer(join(stateDir, 'worktrees/c'));
    const id = layer.lockKey('board.txt').id;
    layer.close();

    const holder = await holdLock(stateDir, id);
    // Proof the lock is really held by the other process: this one cannot get it.
    const probe = new LockFileDir(join(stateDir, 'locks'), { waitMs: 200 });
    cleanups.push(() => probe.close());
    expect(await probe.acquire(id)).toBeNull();
    const blocked = await call('edit', { path: 'board.txt', oldString: `${slot(0)} = _`, newString: `${slot(0)} = blocked` });
    expect(codeOf(blocked)).toBe('BUSY');
    expect(readFileSync(file, 'utf8')).toBe(content);

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('close', resolve));
    const after = await call('edit', { path: 'board.txt', oldString: `${slot(1)} = _`, newString: `${slot(1)} = after` });
    expect(codeOf(after)).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(`${slot(0)} = _\n${slot(1)} = after\n`);
  }, 120_000);
});

/** A separate process that takes the lock of `id` with the built `LockFileDir` and keeps it until killed. */
async function holdLock(stateDir: string, id: string): Promise<ChildProcess> {
  const module = pathToFileURL(join(ROOT, 'dist/src/ports/lock-file-dir.js')).href;
  const code = `
    const { openLockFileDir } = await import(${JSON.stringify(module)});
    const hold = await openLockFileDir(${JSON.stringify(stateDir)}).acquire(${JSON.stringify(id)});
    process.stdout.write(hold ? 'held\\n' : 'busy\\n');
    setInterval(() => {}, 1 << 30);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.kill('SIGKILL'));
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('error', reject);
    child.once('close', (c) => reject(new Error(`the holder exited (${c}) before taking the lock`)));
  });
  expect(first).toBe('held');
  return child;
}
