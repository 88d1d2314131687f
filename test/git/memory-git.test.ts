import git, { type FsClient } from 'isomorphic-git';
import { Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { MemoryGit } from '../../src/git/memory-git.js';
import { seedMemoryRepository } from '../../src/host/memory/memory-repository.js';
import { ManualClock } from '../../src/ports/clock.js';

const ctx = { tag: 't', chain: [] };

async function setup() {
  const volume = new Volume();
  const head = await seedMemoryRepository({
    volume,
    dir: '/repo',
    files: { 'a.txt': 'A\n', 'src/b.ts': 'B\n', '.gitignore': 'ignored.log\n' },
    clock: new ManualClock(),
  });
  return { volume, head: head!, git: new MemoryGit({ volume, dir: '/repo' }) };
}

describe('MemoryGit (isomorphic-git over memfs)', () => {
  it('makes the same commit from the same files and clock', async () => {
    expect((await setup()).head).toBe((await setup()).head);
  });

  it('resolves refs and refuses ones that name no commit', async () => {
    const { git: port, head } = await setup();
    expect(await port.isRepository(ctx)).toBe(true);
    expect(await port.resolveCommit('HEAD', ctx)).toBe(head);
    expect(await port.resolveCommit('main', ctx)).toBe(head);
    expect(await port.resolveCommit(head.slice(0, 7), ctx)).toBe(head);
    await expect(port.resolveCommit('nope', ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
  });

  it('emulates a worktree: a working folder on its own branch, listed, with status and removal', async () => {
    const { volume, git: port, head } = await setup();
    await port.addWorktree({ path: '/wt/x', branch: 'gatefs/x', base: head }, ctx);
    expect(String(volume.readFileSync('/wt/x/src/b.ts', 'utf8'))).toBe('B\n');
    expect(await port.branchHead('gatefs/x', ctx)).toBe(head);
    expect((await port.listWorktrees(ctx)).map((w) => [w.path, w.branch])).toEqual([
      ['/repo', 'refs/heads/main'],
      ['/wt/x', 'refs/heads/gatefs/x'],
    ]);
    await expect(port.addWorktree({ path: '/wt/y', branch: 'gatefs/x', base: head }, ctx)).rejects.toMatchObject({
      code: 'COMMAND_FAILED',
    });
    volume.writeFileSync('/wt/x/a.txt', 'changed');
    volume.writeFileSync('/wt/x/ignored.log', 'noise');
    volume.mkdirSync('/wt/x/new');
    volume.writeFileSync('/wt/x/new/n.txt', 'n');
    volume.unlinkSync('/wt/x/src/b.ts');
    expect(await port.dirtyFiles('/wt/x', ctx)).toEqual(['a.txt', 'new/n.txt', 'src/b.ts']);
    await expect(port.removeWorktree('/wt/x', ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    await port.removeWorktree('/wt/x', ctx, { force: true });
    expect(volume.existsSync('/wt/x')).toBe(false);
    expect(await port.listWorktrees(ctx)).toHaveLength(1);
  });

  it('proves ancestry and deletes a branch only at the expected commit', async () => {
    const { volume, git: port, head } = await setup();
    const fs = volume as unknown as FsClient;
    volume.writeFileSync('/repo/c.txt', 'C');
    await git.add({ fs, dir: '/repo', filepath: 'c.txt' });
    const author = { name: 't', email: 't@t', timestamp: 1, timezoneOffset: 0 };
    const next = await git.commit({ fs, dir: '/repo', message: 'two', author, committer: author });
    expect(await port.isAncestor(head, next, ctx)).toBe(true);
    expect(await port.isAncestor(next, head, ctx)).toBe(false);
    await git.branch({ fs, dir: '/repo', ref: 'side', object: head });
    await expect(port.deleteBranch('side', next, ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    await port.deleteBranch('side', head, ctx);
    expect(await port.branchHead('side', ctx)).toBeNull();
  });
});
