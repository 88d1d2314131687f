/**
 * `commit` and a file or folder named like the state directory, on real git (the twin of
 * memory-commit-state-dir.test.ts): no tool writes one at the workspace root, but a shell can
 * put one there. `commit` (the tool, and `gatefs commit` through `host.work`) refuses to take it
 * with `PROTECTED_PATH` naming it: nothing is committed, the branch and the worktree's index
 * stay as they were, the planted bytes stay. What the lander refuses is what `commit` refuses:
 * the name at the workspace root, folded as a case-insensitive filesystem folds it; deeper down
 * `.gatefs` is an ordinary name.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = { roles: [{ name: 'agent', tools: ['read', 'write', 'commit'], workspace: { backend: 'worktree' } }] };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A host over a fresh repository with conversation `a` prepared and `work.txt` written through the tools. */
async function world() {
  const repo = makeTempRepo({ 'README.md': '# r\n' });
  cleanups.push(() => repo.cleanup());
  const host = await createHost({ repo: repo.dir, manifest });
  cleanups.push(() => host.close());
  await host.prepare({ conversation: 'a' });
  expect(await host.gate.call('a', 'write', { path: 'work.txt', content: 'work\n' })).toMatchObject({ ok: true });
  const wt = join(repo.dir, '.gatefs/worktrees/a');
  const plant = (path: string, content = 'planted\n') => {
    mkdirSync(dirname(join(wt, path)), { recursive: true });
    writeFileSync(join(wt, path), content);
  };
  /** The branch head and the worktree's index (every staged entry): what a refused commit must leave. */
  const gitState = () => ({
    head: repo.git('rev-parse', 'refs/heads/gatefs/a'),
    index: execFileSync('git', ['-C', wt, 'ls-files', '--stage'], { encoding: 'utf8' }),
  });
  const branchFiles = () => repo.git('ls-tree', '-r', '--name-only', 'refs/heads/gatefs/a').split('\n');
  return { repo, host, wt, plant, gitState, branchFiles };
}

describe('commit refuses a state directory name planted at the workspace root', () => {
  it.each([
    ['a file .gatefs', '.gatefs', '.gatefs'],
    ['a file .GATEFS', '.GATEFS', '.GATEFS'],
    ["a file '.gatefs.' (NTFS drops the dot)", '.gatefs.', '.gatefs.'],
    ['a folder .Gatefs/ with files inside', '.Gatefs/worktrees/b/notes.txt', '.Gatefs'],
  ])('%s: PROTECTED_PATH naming it, nothing committed, branch and index unchanged', async (_, planted, named) => {
    const { host, wt, plant, gitState, branchFiles } = await world();
    plant(planted);
    const before = gitState();
    const refused = await host.gate.call('a', 'commit', { message: 'planted' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'PROTECTED_PATH', path: named } });
    expect((refused as { error: { message: string } }).error.message).toContain(named);
    // The operator's `gatefs commit` goes through the same service.
    await expect(host.work('a').commit({ message: 'planted' })).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    expect(gitState()).toEqual(before);
    expect(readFileSync(join(wt, planted), 'utf8')).toBe('planted\n');
    // Once it is gone, the same commit goes through.
    rmSync(join(wt, named), { recursive: true });
    expect(await host.gate.call('a', 'commit', { message: 'work' })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'work.txt', status: 'added' }] },
    });
    expect(branchFiles()).toEqual(['README.md', 'work.txt']);
  });

  it('a .gitignore that un-ignores the state directory does not get a planted .gatefs/ folder committed', async () => {
    const { host, plant, gitState } = await world();
    expect(await host.gate.call('a', 'write', { path: '.gitignore', content: '!/.gatefs/\n' })).toMatchObject({ ok: true });
    plant('.gatefs/worktrees/b/notes.txt');
    const before = gitState();
    expect(await host.gate.call('a', 'commit', { message: 'planted' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH', path: '.gatefs' },
    });
    expect(gitState()).toEqual(before);
  });

  it('a .gatefs/ folder the exclude file ignores is not taken, so the commit goes through without it', async () => {
    const { host, wt, plant, branchFiles } = await world();
    plant('.gatefs/notes.txt');
    expect(await host.gate.call('a', 'commit', { message: 'work' })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'work.txt', status: 'added' }] },
    });
    expect(branchFiles()).toEqual(['README.md', 'work.txt']);
    expect(existsSync(join(wt, '.gatefs/notes.txt'))).toBe(true);
  });

  it('with paths: naming the planted name is PROTECTED_PATH; paths that leave it out commit only those', async () => {
    const { host, plant, gitState, branchFiles } = await world();
    plant('.GATEFS');
    const before = gitState();
    for (const paths of [['.GATEFS'], ['work.txt', '.gatefs'], ['.GATEFS/inner.txt'], ['.']]) {
      expect(await host.gate.call('a', 'commit', { message: 'planted', paths })).toMatchObject({
        ok: false,
        error: { code: 'PROTECTED_PATH' },
      });
    }
    expect(gitState()).toEqual(before);
    expect(await host.gate.call('a', 'commit', { message: 'work', paths: ['work.txt'] })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'work.txt', status: 'added' }] },
    });
    expect(branchFiles()).toEqual(['README.md', 'work.txt']);
  });

  it('deeper down .gatefs is an ordinary name, committed like any file (the lander lands it too)', async () => {
    const { host, plant, branchFiles } = await world();
    plant('docs/.gatefs', 'a doc\n');
    expect(await host.gate.call('a', 'commit', { message: 'work' })).toMatchObject({
      ok: true,
      value: {
        files: [
          { path: 'docs/.gatefs', status: 'added' },
          { path: 'work.txt', status: 'added' },
        ],
      },
    });
    expect(branchFiles()).toEqual(['README.md', 'docs/.gatefs', 'work.txt']);
  });
});
