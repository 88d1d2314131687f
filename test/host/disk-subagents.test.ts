/**
 * Subagents on a real repository: a child conversation gets its own worktree from its parent's
 * branch head; its git commands carry the chain parent → child; `land` fast-forwards the
 * parent's branch (the parent's files follow, its own uncommitted edits kept) and releases the
 * child; `discard` keeps the child's branch; releasing a child with unlanded commits is
 * refused; a child's submission lands through the lander, counts for the root and notes the
 * parent. A landing never replaces, deletes or writes into the parent's untracked or ignored
 * files, and a child branch holding the state directory's name is refused.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'edit', 'commit', 'submit'], workspace: { backend: 'worktree' } }],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world() {
  const repo = makeTempRepo({ 'README.md': '# r\n', 'notes.txt': 'one\ntwo\n' });
  cleanups.push(() => repo.cleanup());
  const host = await createHost({ repo: repo.dir, manifest, settings: { lander: { checks: ['true'] } } });
  cleanups.push(() => host.close());
  await host.prepare({ conversation: 'p' });
  await host.gate.call('p', 'write', { path: 'parent.txt', content: 'parent\n' });
  await host.gate.call('p', 'commit', { message: 'parent work' });
  const worktree = (id: string) => join(repo.dir, '.gatefs/worktrees', id);
  return { repo, host, worktree };
}

describe('a subagent', () => {
  it("starts from its parent's branch head, and its commands carry the chain parent → child", async () => {
    const { repo, host, worktree } = await world();
    const child = await host.subagents.start({ parent: 'p', child: 'k' });
    expect(child).toMatchObject({ conversation: 'k', parent: 'p', state: 'ready', pinnedSha: repo.git('rev-parse', 'gatefs/p') });
    expect(readFileSync(join(worktree('k'), 'parent.txt'), 'utf8')).toBe('parent\n');
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    const commits = host.events().filter((e) => e.type === 'exec' && e.conversation === 'k' && e.data.tag === 'commit');
    expect(commits.length).toBeGreaterThan(0);
    for (const e of commits) expect(e.data.chain).toEqual(['p', 'k']);
    expect(host.status().find((s) => s.conversation === 'p')).toMatchObject({ parent: null, landed: 0 });
  });

  it("lands by fast-forwarding the parent's branch; the parent's files follow and its own edits stay", async () => {
    const { repo, host, worktree } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    // The parent keeps working meanwhile, on a file the child did not touch (not committed).
    await host.gate.call('p', 'edit', { path: 'notes.txt', oldString: 'two', newString: 'TWO' });
    const landed = await host.subagents.land('k');
    expect(landed).toMatchObject({ child: 'k', parent: 'p', commits: 1, parentHead: repo.git('rev-parse', 'gatefs/p') });
    expect(repo.git('log', '-1', '--format=%s', 'gatefs/p')).toBe('child work');
    expect(readFileSync(join(worktree('p'), 'child.txt'), 'utf8')).toBe('child\n');
    expect(readFileSync(join(worktree('p'), 'notes.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(existsSync(worktree('k'))).toBe(false);
    expect(repo.git('branch', '--list', 'gatefs/k')).toBe('');
    expect(host.status().find((s) => s.conversation === 'k')).toMatchObject({ state: 'released' });
  });

  it("refuses to land over the parent's uncommitted edit of a file the child changed, changing nothing", async () => {
    const { repo, host, worktree } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    await host.gate.call('k', 'edit', { path: 'notes.txt', oldString: 'one', newString: 'ONE' });
    await host.gate.call('k', 'commit', { message: 'child edit' });
    await host.gate.call('p', 'edit', { path: 'notes.txt', oldString: 'two', newString: 'parent-two' });
    const before = repo.git('rev-parse', 'gatefs/p');
    await expect(host.subagents.land('k')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['notes.txt'] } });
    expect(repo.git('rev-parse', 'gatefs/p')).toBe(before);
    expect(readFileSync(join(worktree('p'), 'notes.txt'), 'utf8')).toBe('one\nparent-two\n');
    expect(host.status().find((s) => s.conversation === 'k')).toMatchObject({ state: 'ready' });
  });

  it("refuses to replace the parent's ignored build/ folder by a file, changing nothing (DIRTY_WORKTREE, UNTRACKED_FILES)", async () => {
    const { repo, host, worktree } = await world();
    await host.gate.call('p', 'write', { path: '.gitignore', content: 'build/\n' });
    await host.gate.call('p', 'commit', { message: 'ignore build' });
    mkdirSync(join(worktree('p'), 'build'));
    writeFileSync(join(worktree('p'), 'build/out.bin'), 'compiled\n');
    await host.subagents.start({ parent: 'p', child: 'k' });
    expect(await host.gate.call('k', 'write', { path: 'build', content: 'a file now\n' })).toMatchObject({ ok: true });
    await host.gate.call('k', 'commit', { message: 'child build file' });
    const before = repo.git('rev-parse', 'gatefs/p');
    await expect(host.subagents.land('k')).rejects.toMatchObject({
      code: 'DIRTY_WORKTREE',
      data: { conversation: 'p', reason: 'UNTRACKED_FILES', files: ['build/'] },
    });
    expect(repo.git('rev-parse', 'gatefs/p')).toBe(before);
    expect(readFileSync(join(worktree('p'), 'build/out.bin'), 'utf8')).toBe('compiled\n');
    expect(host.status().find((s) => s.conversation === 'k')).toMatchObject({ state: 'ready' });
  });

  it("refuses a child branch holding the state directory's name (NOT_CLEAN, PROTECTED_PATH), changing nothing", async () => {
    const { repo, host, worktree } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    // No tool writes it: the child's commit is made with plain git.
    writeFileSync(join(worktree('k'), '.gatefs'), 'not a folder\n');
    const git = (...args: string[]) => execFileSync('git', ['-C', worktree('k'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    git('add', '-f', '.gatefs');
    git('-c', 'user.name=agent', '-c', 'user.email=a@example.invalid', 'commit', '-q', '--no-verify', '-m', 'by hand');
    const before = repo.git('rev-parse', 'gatefs/p');
    await expect(host.subagents.land('k')).rejects.toMatchObject({
      code: 'NOT_CLEAN',
      data: { reason: 'PROTECTED_PATH', paths: ['.gatefs'] },
    });
    expect(repo.git('rev-parse', 'gatefs/p')).toBe(before);
    expect(existsSync(join(worktree('p'), '.gatefs'))).toBe(false);
    expect(lstatSync(join(repo.dir, '.gatefs')).isDirectory()).toBe(true);
  });

  it('refuses to land a child whose parent branch moved on (NOT_CLEAN, PARENT_MOVED)', async () => {
    const { host } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    await host.gate.call('p', 'write', { path: 'more.txt', content: 'more\n' });
    await host.gate.call('p', 'commit', { message: 'parent moves on' });
    await expect(host.subagents.land('k')).rejects.toMatchObject({ code: 'NOT_CLEAN', data: { reason: 'PARENT_MOVED' } });
  });

  it('cannot be released while its branch holds commits its parent lacks, not even with --discard', async () => {
    const { host, worktree } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    const refused = host.release('k');
    await expect(refused).rejects.toMatchObject({ code: 'NOT_CLEAN', data: { reason: 'UNLANDED_COMMITS', commits: 1 } });
    expect(existsSync(join(worktree('k'), 'child.txt'))).toBe(true);
    await host.gate.call('k', 'write', { path: 'scratch.txt', content: 'not committed\n' });
    await expect(host.subagents.discard('k')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE' });
    expect(existsSync(join(worktree('k'), 'scratch.txt'))).toBe(true);
    await expect(host.release('k', { discard: true })).rejects.toMatchObject({ code: 'NOT_CLEAN' });
    expect(existsSync(join(worktree('k'), 'scratch.txt'))).toBe(true);
  });

  it('discard removes a clean checkout and keeps its branch and commits', async () => {
    const { repo, host, worktree } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    const head = repo.git('rev-parse', 'gatefs/k');
    expect(await host.subagents.discard('k')).toMatchObject({ conversation: 'k', removed: true, branchDeleted: false });
    expect(existsSync(worktree('k'))).toBe(false);
    expect(repo.git('rev-parse', 'gatefs/k')).toBe(head);
  });

  it("submits through the lander: main gets the work, the root's tally counts it, the parent gets the note", async () => {
    const { repo, host } = await world();
    await host.subagents.start({ parent: 'p', child: 'k' });
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    const sub = await host.gate.call('k', 'submit', { divergence: 'None', summary: 'the child part' });
    expect(sub).toMatchObject({ ok: true });
    expect((await host.lander.run()).landed).toHaveLength(1);
    expect(repo.git('show', 'main:child.txt')).toBe('child');
    expect(host.status().find((s) => s.conversation === 'p')).toMatchObject({ landed: 1 });
    expect(host.messages('k').map((m) => m.kind)).toEqual(['report']);
    expect(host.messages('p')).toMatchObject([{ kind: 'note', body: { from: 'k', summary: 'the child part' } }]);
  });

  it('is refused for an unknown parent or a child id already in use, creating nothing', async () => {
    const { host } = await world();
    await expect(host.subagents.start({ parent: 'nobody', child: 'k' })).rejects.toMatchObject({ code: 'UNKNOWN_CONVERSATION' });
    await expect(host.subagents.start({ parent: 'p', child: 'p' })).rejects.toMatchObject({ code: 'PREPARATION_FAILED' });
    await expect(host.subagents.land('p')).rejects.toMatchObject({ code: 'UNKNOWN_CONVERSATION' });
    expect(host.status().map((s) => s.conversation)).toEqual(['p']);
  });
});
