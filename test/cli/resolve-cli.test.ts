/**
 * `gatefs resolve`, run in this process over a real repository: readable lines naming the root,
 * namespace path, host path and URI (canonical first for a host path inside a worktree, the
 * worktree on an "also in" line), `--json`, `--base`, `--conversation`, exit 1 with the reason
 * for a reference that does not resolve, exit 2 for a bad command line, and nothing appended to
 * the run log.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatefsInProcess } from './run-gatefs.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo({ 'README.md': '# demo\n', 'src/app.ts': 'x\n' });
});
afterEach(() => repo?.cleanup());

function cli(...args: string[]) {
  return gatefsInProcess(repo.dir, args);
}

describe('gatefs resolve', () => {
  it('resolves every form, readable and as JSON, and appends nothing to the run log', async () => {
    expect((await cli('prepare', 'fix')).code).toBe(0);
    const log = (await cli('log', '--json')).stdout;
    const wt = join(repo.dir, '.gatefs/worktrees/fix');
    const named = await cli('resolve', '/worktrees/fix/src/app.ts');
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('/worktrees/fix/src/app.ts (namespace) → fix');
    expect(named.stdout).toContain(`host:      ${wt}/src/app.ts`);
    expect(named.stdout).toContain('uri:       workspace://fix/src/app.ts?root=fix');
    expect(named.stdout).toContain('exists:    file');
    expect(named.stdout).toContain('also in:   canonical at /canonical/.gatefs/worktrees/fix/src/app.ts (protected)');
    const byHost = await cli('resolve', `${wt}/src/app.ts`, '--json');
    expect(byHost.code, byHost.stderr).toBe(0);
    const answer = JSON.parse(byHost.stdout);
    expect(answer).toMatchObject({ form: 'host', root: 'canonical', hostPath: `${wt}/src/app.ts`, exists: true, type: 'file' });
    expect(answer.alsoIn).toEqual([expect.objectContaining({ root: 'fix', namespacePath: '/worktrees/fix/src/app.ts' })]);
    const relative = await cli('resolve', '../README.md', '--base', '/worktrees/fix/src/app.ts', '--json');
    expect(JSON.parse(relative.stdout)).toMatchObject({ form: 'relative', namespacePath: '/worktrees/fix/README.md' });
    const active = await cli('resolve', 'README.md', '--conversation', 'fix', '--json');
    expect(JSON.parse(active.stdout)).toMatchObject({ namespacePath: '/worktrees/fix/README.md' });
    expect((await cli('log', '--json')).stdout).toBe(log);
  });

  it('exits 1 with the code and reason for a reference that does not resolve, 2 for a bad command line', async () => {
    await cli('prepare', 'fix');
    const escape = await cli('resolve', '../../x', '--base', '/worktrees/fix/README.md');
    expect(escape.code).toBe(1);
    expect(escape.stderr).toContain("'..' climbs out of /worktrees/fix");
    const unknown = await cli('resolve', '/worktrees/nobody/x');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no workspace is recorded for 'nobody'");
    await cli('release', 'fix', '--discard');
    const gone = await cli('resolve', 'workspace://fix/README.md');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('was released');
    const noBase = await cli('resolve', 'README.md');
    expect(noBase.code).toBe(1);
    expect(noBase.stderr).toContain('needs a base file');
    expect((await cli('resolve')).code).toBe(2);
    expect((await cli('resolve', 'x', '--conversation', '../x')).code).toBe(2);
    expect((await cli('resolve', '--help')).stdout).toMatch(/--base FILE\s+resolve a relative reference/);
  });
});
