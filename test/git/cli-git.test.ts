import * as fs from 'node:fs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliGit } from '../../src/git/cli-git.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import type { ExecRequest, HostExec } from '../../src/ports/host-exec.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const ctx = { tag: 'test', chain: ['c1'] };
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.cleanup()));

function setup(files: Record<string, string> = { 'a.txt': 'A\n', 'src/b.ts': 'B\n' }) {
  const repo = makeTempRepo(files);
  repos.push(repo);
  const seen: ExecRequest[] = [];
  const real = new NodeHostExec();
  const exec: HostExec = { run: (r) => (seen.push(r), real.run(r)) };
  const git = new CliGit({ repo: repo.dir, exec, fs });
  return { repo, git, seen };
}

describe('CliGit', () => {
  it('resolves refs to full SHAs and refuses refs that name no commit or look like options', async () => {
    const { repo, git, seen } = setup();
    expect(await git.isRepository(ctx)).toBe(true);
    const head = repo.git('rev-parse', 'HEAD');
    expect(await git.resolveCommit('HEAD', ctx)).toBe(head);
    expect(await git.resolveCommit('main', ctx)).toBe(head);
    expect(await git.resolveCommit(head.slice(0, 8), ctx)).toBe(head);
    await expect(git.resolveCommit('no-such-branch', ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
    await expect(git.resolveCommit('--output=/tmp/x', ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
    expect(seen.every((r) => r.argv[0] === 'git' && r.tag === 'test' && r.chain[0] === 'c1')).toBe(true);
  });

  it('reads packed objects of a CLI-made repository through the object reader', async () => {
    const { repo, git } = setup({ 'd/e.txt': 'packed bytes', 'top.md': '# t' });
    repo.git('gc', '--quiet', '--aggressive');
    expect(existsSync(join(repo.dir, '.git/objects/pack'))).toBe(true);
    await git.isRepository(ctx);
    const head = await git.resolveCommit('HEAD', ctx);
    const tree = await git.objects.commitTree(head);
    const top = await git.objects.readTree(tree);
    expect(top.map((e) => e.name)).toEqual(['d', 'top.md']);
    const d = await git.objects.readTree(top[0].oid);
    expect(Buffer.from(await git.objects.readBlob(d[0].oid)).toString()).toBe('packed bytes');
    await expect(git.objects.readBlob('0'.repeat(40))).rejects.toMatchObject({ code: 'OBJECT_MISSING' });
  });

  it('is not a repository in a plain folder', async () => {
    const { repo } = setup();
    fs.rmSync(join(repo.dir, '.git'), { recursive: true });
    const git = new CliGit({ repo: repo.dir, exec: new NodeHostExec(), fs });
    expect(await git.isRepository(ctx)).toBe(false);
    await expect(git.open(ctx)).rejects.toMatchObject({ code: 'NOT_A_GIT_REPOSITORY' });
  });
});
