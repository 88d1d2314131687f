/**
 * `prepare({ branch, baseRef })` on a real repository (Holon's CreateWorktree: "creates or safely
 * reuses a linked worktree from an explicit branch and base_ref"): a missing branch is made at the
 * base; an existing one is taken when the base is in its history, never moved; every other
 * combination is a typed refusal that makes nothing (`BAD_BRANCH_NAME`, `BRANCH_IN_USE`,
 * `BASE_MISMATCH`, `BAD_REF` for a backend without a branch). Work on an explicit branch commits,
 * submits, lands and releases there; a branch gatefs did not make is never deleted; a record
 * forged to name a branch prepare never takes reaches no git command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { StateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/ports/clock.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  roles: [
    { name: 'agent', tools: ['read', 'write', 'edit', 'commit', 'submit', 'diff'], workspace: { backend: 'worktree' } },
    { name: 'copier', tools: ['read'], workspace: { backend: 'copy' } },
  ],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world() {
  const repo = makeTempRepo({ 'README.md': 'one\n' });
  cleanups.push(() => repo.cleanup());
  const first = repo.git('rev-parse', 'HEAD');
  repo.write({ 'README.md': 'two\n' });
  const second = repo.commit('second');
  const host = await createHost({ repo: repo.dir, manifest, settings: { lander: { checks: ['true'] } } });
  cleanups.push(() => host.close());
  const worktree = (id: string) => join(repo.dir, '.gatefs/worktrees', id);
  const branches = () => repo.git('branch', '--list', '--format=%(refname:short)').split('\n').filter(Boolean).sort();
  return { repo, host, first, second, worktree, branches };
}

describe('an explicit branch that does not exist', () => {
  it('is made at the base (default HEAD), recorded, and work commits on it', async () => {
    const { repo, host, first, worktree } = await world();
    const ready = await host.prepare({ conversation: 'a', branch: 'feature/login', baseRef: first });
    expect(ready).toMatchObject({ state: 'ready', branch: 'feature/login', pinnedSha: first });
    expect(repo.git('rev-parse', 'feature/login')).toBe(first);
    expect(repo.git('-C', worktree('a'), 'symbolic-ref', 'HEAD')).toBe('refs/heads/feature/login');
    expect(repo.git('branch', '--list', 'gatefs/a')).toBe('');
    await host.gate.call('a', 'write', { path: 'login.md', content: 'login\n' });
    const made = await host.gate.call('a', 'commit', { message: 'login' });
    expect(made).toMatchObject({ ok: true, value: { branch: 'feature/login' } });
    expect(repo.git('log', '-1', '--format=%s', 'feature/login')).toBe('login');

    const fromHead = await host.prepare({ conversation: 'b', branch: 'topic' });
    expect(fromHead).toMatchObject({ branch: 'topic', pinnedSha: repo.git('rev-parse', 'HEAD') });
    expect(host.events().find((e) => e.type === 'prepare.start' && e.conversation === 'b')?.data).toMatchObject({ branch: 'topic' });
  });

  it('asking for gatefs/<id> is the default branch', async () => {
    const { host } = await world();
    expect(await host.prepare({ conversation: 'a', branch: 'gatefs/a' })).toMatchObject({ branch: 'gatefs/a' });
    expect(await host.prepare({ conversation: 'a' })).toMatchObject({ branch: 'gatefs/a' });
  });
});

describe('an explicit branch that exists', () => {
  it('without a base is taken as it is (never moved), pinned at its merge base with HEAD', async () => {
    const { repo, host, first, worktree } = await world();
    repo.git('branch', 'topic', first);
    repo.git('worktree', 'add', '--quiet', join(repo.dir, '..', 'side'), 'topic');
    repo.git('-C', join(repo.dir, '..', 'side'), 'commit', '--quiet', '--allow-empty', '-m', 'topic work');
    repo.git('worktree', 'remove', join(repo.dir, '..', 'side'));
    const head = repo.git('rev-parse', 'topic');
    const ready = await host.prepare({ conversation: 'a', branch: 'topic' });
    expect(ready).toMatchObject({ branch: 'topic', pinnedSha: first });
    expect(repo.git('rev-parse', 'topic')).toBe(head);
    expect(repo.git('-C', worktree('a'), 'rev-parse', 'HEAD')).toBe(head);
    expect(host.events().find((e) => e.type === 'prepare.resumed')?.data).toEqual({
      branch: 'topic',
      head,
      pinnedSha: first,
      landed: false,
    });
  });

  it('with a base in its history (or at its head) is taken, pinned at the base; a base outside it is BASE_MISMATCH', async () => {
    const { repo, host, first, second, branches } = await world();
    repo.git('branch', 'topic', second);
    expect(await host.prepare({ conversation: 'a', branch: 'topic', baseRef: first })).toMatchObject({ branch: 'topic', pinnedSha: first });
    await host.release('a');
    expect(await host.prepare({ conversation: 'a', branch: 'topic', baseRef: second })).toMatchObject({ pinnedSha: second });
    await host.release('a');

    repo.git('branch', 'old', first);
    const before = branches();
    const refused = host.prepare({ conversation: 'b', branch: 'old', baseRef: second });
    await expect(refused).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BASE_MISMATCH', branch: 'old', head: first, baseSha: second },
    });
    expect(branches()).toEqual(before);
    expect(host.status().find((s) => s.conversation === 'b')).toBeUndefined();
  });
});

describe('a ready conversation prepared again', () => {
  it('with the same branch and base is reused; another branch or base is BASE_MISMATCH', async () => {
    const { host, first } = await world();
    const ready = await host.prepare({ conversation: 'a', branch: 'topic', baseRef: first });
    expect(await host.prepare({ conversation: 'a', branch: 'topic', baseRef: first })).toEqual(ready);
    expect(await host.prepare({ conversation: 'a' })).toEqual(ready);
    await expect(host.prepare({ conversation: 'a', branch: 'other' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BASE_MISMATCH', branch: 'topic', askedBranch: 'other' },
    });
    await expect(host.prepare({ conversation: 'a', branch: 'gatefs/a' })).rejects.toMatchObject({ data: { reason: 'BASE_MISMATCH' } });
    await expect(host.prepare({ conversation: 'a', branch: 'topic', baseRef: 'main' })).rejects.toMatchObject({
      data: { reason: 'BASE_MISMATCH', pinnedSha: first },
    });
    expect(host.status()).toEqual([ready]);
  });

  it('a default-branch conversation asked for an explicit branch is BASE_MISMATCH', async () => {
    const { host } = await world();
    await host.prepare({ conversation: 'a' });
    await expect(host.prepare({ conversation: 'a', branch: 'topic' })).rejects.toMatchObject({
      data: { reason: 'BASE_MISMATCH', branch: 'gatefs/a', askedBranch: 'topic' },
    });
  });

  it('whose checkout vanished is made again on its own branch', async () => {
    const { repo, host, worktree } = await world();
    await host.prepare({ conversation: 'a', branch: 'topic' });
    repo.git('worktree', 'remove', '--force', worktree('a'));
    expect(await host.prepare({ conversation: 'a' })).toMatchObject({ state: 'ready', branch: 'topic' });
    expect(repo.git('-C', worktree('a'), 'symbolic-ref', 'HEAD')).toBe('refs/heads/topic');
  });
});

describe('refusals that make nothing', () => {
  const bad = [
    'a..b',
    '-x',
    '--force',
    'HEAD',
    'FETCH_HEAD',
    'x.lock',
    ' x',
    'a//b',
    '@{',
    'x@{1}',
    '@',
    'refs/heads/x',
    'a b',
    'x~1',
    'x:y',
    '.x',
    'x/',
    'a\u001b[31m',
    'gatefs/other',
    'x'.repeat(201),
    '',
  ];
  it.each(bad)('BAD_BRANCH_NAME for %j', async (name) => {
    const { host, branches } = await world();
    const before = branches();
    await expect(host.prepare({ conversation: 'a', branch: name })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BAD_BRANCH_NAME' },
    });
    expect(branches()).toEqual(before);
    expect(host.status()).toEqual([]);
  });

  it("BRANCH_IN_USE for the source checkout's branch, another conversation's, and any worktree's", async () => {
    const { repo, host, branches } = await world();
    await host.prepare({ conversation: 'a', branch: 'topic' });
    repo.git('worktree', 'add', '--quiet', '-b', 'elsewhere', join(repo.dir, '..', 'side'));
    const before = branches();
    await expect(host.prepare({ conversation: 'b', branch: 'main' })).rejects.toMatchObject({
      data: { reason: 'BRANCH_IN_USE', branch: 'main', holder: 'canonical' },
    });
    await expect(host.prepare({ conversation: 'b', branch: 'topic' })).rejects.toMatchObject({
      data: { reason: 'BRANCH_IN_USE', holder: 'a' },
    });
    await expect(host.prepare({ conversation: 'b', branch: 'elsewhere' })).rejects.toMatchObject({
      data: { reason: 'BRANCH_IN_USE', holder: 'another worktree' },
    });
    expect(branches()).toEqual(before);
    expect(host.status().map((s) => s.conversation)).toEqual(['a']);
  });

  it('a branch for a backend other than worktree is BAD_REF', async () => {
    const { host } = await world();
    await expect(host.prepare({ conversation: 'c', role: 'copier', branch: 'topic' })).rejects.toMatchObject({
      code: 'BAD_REF',
      data: { backend: 'copy', branch: 'topic' },
    });
    await host.prepare({ conversation: 'c', role: 'copier' });
    await expect(host.prepare({ conversation: 'c', branch: 'topic' })).rejects.toMatchObject({ code: 'BAD_REF' });
  });
});

describe('release and rollback', () => {
  it('--delete-branch deletes a merged explicit branch gatefs made, never one that existed before', async () => {
    const { repo, host, first } = await world();
    await host.prepare({ conversation: 'a', branch: 'made' });
    expect(await host.release('a', { deleteBranch: true })).toMatchObject({ branchDeleted: true });
    expect(repo.git('branch', '--list', 'made')).toBe('');

    repo.git('branch', 'theirs', first);
    await host.prepare({ conversation: 'b', branch: 'theirs' });
    const kept = await host.release('b', { deleteBranch: true });
    expect(kept).toMatchObject({ branchDeleted: false });
    expect(kept.branchKeptReason).toContain('not made by gatefs');
    expect(repo.git('rev-parse', 'theirs')).toBe(first);
  });

  it('a released conversation prepared again continues its branch, which stays gatefs-made', async () => {
    const { repo, host } = await world();
    await host.prepare({ conversation: 'a', branch: 'made' });
    await host.gate.call('a', 'write', { path: 'work.md', content: 'work\n' });
    await host.gate.call('a', 'commit', { message: 'work' });
    await host.release('a');
    expect(await host.prepare({ conversation: 'a' })).toMatchObject({ branch: 'made' });
    expect(await host.gate.call('a', 'read', { path: 'work.md' })).toMatchObject({ ok: true, value: { content: 'work\n' } });
    await host.gate.call('a', 'submit', { divergence: 'None' });
    expect((await host.lander.run()).landed).toHaveLength(1);
    expect(await host.release('a', { deleteBranch: true })).toMatchObject({ branchDeleted: true });
    expect(repo.git('branch', '--list', 'made')).toBe('');
  });

  it('a failed preparation on an existing branch leaves that branch alone', async () => {
    const { repo, host, first, worktree } = await world();
    repo.git('branch', 'theirs', first);
    // The worktree's place is taken: the preparation fails after recording, and rolls back.
    repo.write({ '.gatefs/worktrees/a/stray.txt': 'x' });
    await expect(host.prepare({ conversation: 'a', branch: 'theirs' })).rejects.toMatchObject({ code: 'PREPARATION_FAILED' });
    expect(repo.git('rev-parse', 'theirs')).toBe(first);
    expect(readFileSync(join(worktree('a'), 'stray.txt'), 'utf8')).toBe('x');
  });
});

describe('rollback of an interrupted preparation', () => {
  /** Plants a `preparing` record of `z`, as a crash between its steps leaves one. */
  function plantPreparing(dir: string, branch: string, pinnedSha: string, created: Record<string, boolean>) {
    const store = StateStore.open(join(dir, '.gatefs/gatefs.db'), { clock: systemClock });
    store.workspaces.put({
      conversation: 'z',
      role: 'agent',
      backend: 'worktree',
      guarantee: 'confined',
      state: 'preparing',
      branch,
      pinnedSha,
      data: { tools: ['read'], mounts: [], created },
    });
    store.close();
  }

  it('leaves a branch it did not make alone', async () => {
    const { repo, host, first } = await world();
    repo.git('branch', 'theirs', first);
    plantPreparing(repo.dir, 'theirs', first, { worktree: true });
    expect(await host.prepare({ conversation: 'z' })).toMatchObject({ state: 'ready', branch: 'gatefs/z' });
    expect(repo.git('rev-parse', 'theirs')).toBe(first);
    expect(host.events().find((e) => e.type === 'prepare.rolled_back')?.data).toMatchObject({ deletedBranch: false });
  });

  it('never deletes a checked-out branch, even when the record claims to have made it', async () => {
    const { repo, host, second } = await world();
    plantPreparing(repo.dir, 'main', second, { worktree: true, branch: true });
    await host.prepare({ conversation: 'z' });
    expect(repo.git('rev-parse', 'main')).toBe(second);
    const rolled = host.events().find((e) => e.type === 'prepare.rolled_back')?.data;
    expect(rolled).toMatchObject({ deletedBranch: false, problems: ['branch main is checked out in a worktree: kept'] });
  });
});

describe('work on an explicit branch', () => {
  it('submits and lands from it; a subagent starts from it and lands onto it', async () => {
    const { repo, host } = await world();
    await host.prepare({ conversation: 'p', branch: 'feature' });
    await host.gate.call('p', 'write', { path: 'parent.txt', content: 'parent\n' });
    await host.gate.call('p', 'commit', { message: 'parent work' });
    const child = await host.subagents.start({ parent: 'p', child: 'k' });
    expect(child).toMatchObject({ branch: 'gatefs/k', pinnedSha: repo.git('rev-parse', 'feature') });
    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child\n' });
    await host.gate.call('k', 'commit', { message: 'child work' });
    expect(await host.subagents.land('k')).toMatchObject({ commits: 1 });
    expect(repo.git('log', '-1', '--format=%s', 'feature')).toBe('child work');
    expect(repo.git('branch', '--list', 'gatefs/k')).toBe('');
    expect(await host.gate.call('p', 'submit', { divergence: 'None' })).toMatchObject({ ok: true });
    expect((await host.lander.run()).landed).toHaveLength(1);
    expect(repo.git('show', 'main:child.txt')).toBe('child');
  });
});

describe('a forged record', () => {
  const forged = ['main', '-x', 'HEAD', '../x', '--delete', 'refs/heads/main', 'gatefs/other'];
  it.each(forged)('naming %j never reaches git as a branch to delete', async (name) => {
    const { repo, host, branches, worktree } = await world();
    await host.prepare({ conversation: 'a' });
    const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock });
    store.workspaces.update('a', { branch: name, data: { ...store.workspaces.get('a')!.data, branchMade: true } });
    store.close();
    const before = branches();
    const mainHead = repo.git('rev-parse', 'main');
    const outcome = await host.release('a', { deleteBranch: true }).catch((e: unknown) => e);
    expect(branches()).toEqual(before);
    expect(repo.git('rev-parse', 'main')).toBe(mainHead);
    if (name === 'main') {
      // A name prepare could take: the worktree's HEAD is not on it, so release refuses; nothing is deleted.
      expect(outcome).toMatchObject({ code: 'DIRTY_WORKTREE' });
    } else {
      expect(outcome).toMatchObject({ code: 'STATE_UNTRUSTED', data: { reason: 'FORGED_BRANCH' } });
    }
    expect(existsSync(worktree('a'))).toBe(true);
  });

  it("claiming gatefs made the source checkout's branch, on a released record: release keeps it", async () => {
    const { repo, host } = await world();
    await host.prepare({ conversation: 'a' });
    await host.release('a');
    const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock });
    store.workspaces.update('a', { branch: 'main', data: { ...store.workspaces.get('a')!.data, branchMade: true } });
    store.close();
    const kept = await host.release('a', { deleteBranch: true });
    expect(kept).toMatchObject({ branchDeleted: false, branchKeptReason: 'branch main is checked out in a worktree' });
    expect(repo.git('rev-parse', '--verify', '--quiet', 'refs/heads/main')).toMatch(/^[0-9a-f]{40}$/);
  });
});
