/**
 * `gatefs prepare ID --branch NAME [--base REF]`, run in this process over a real repository: the
 * worktree is made on that branch (the BRANCH column shows it), a name git refuses or a branch
 * checked out elsewhere exits 1 naming the reason, and `--help` names the flag.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefsInProcess } from './run-gatefs.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo({ 'README.md': '# demo\n' });
});
afterEach(() => repo?.cleanup());

function cli(...args: string[]) {
  return gatefsInProcess(repo.dir, args);
}

describe('gatefs prepare --branch', () => {
  it('makes the worktree on the branch, from the base', async () => {
    const base = repo.git('rev-parse', 'HEAD');
    repo.write({ 'README.md': '# two\n' });
    repo.commit('second');
    const made = await cli('prepare', 'a', '--branch', 'feature/x', '--base', base);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('preparing "a" from');
    expect(made.stderr).toContain('on "feature/x"…');
    expect(made.stdout).toMatch(/^a\s.*feature\/x/m);
    expect(repo.git('rev-parse', 'feature/x')).toBe(base);
    const rows = JSON.parse((await cli('status', '--json')).stdout) as { conversation: string; branch: string }[];
    expect(rows).toMatchObject([{ conversation: 'a', branch: 'feature/x' }]);
  });

  it('exits 1 naming BAD_BRANCH_NAME and BRANCH_IN_USE; --help names the flag', async () => {
    const bad = await cli('prepare', 'a', '--branch=-x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^gatefs: error: PREPARATION_FAILED: the branch "-x" cannot start with '-'/m);
    const inUse = await cli('prepare', 'a', '--branch', 'main');
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toContain('the branch main is checked out in the source checkout');
    expect(JSON.parse((await cli('status', '--json')).stdout)).toEqual([]);
    expect((await cli('prepare', '--help')).stdout).toMatch(/--branch NAME\s+worktree only/);
  });
});
