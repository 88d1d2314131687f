/**
 * `prepare` with a base (`--base REF`) on a conversation that already has a workspace or a
 * branch: it never silently serves something other than what was asked for. Found in the
 * new-user trial: `gatefs prepare alice --base HEAD~1` on a ready workspace printed the old pin
 * and went on; after a release, `--base main` checked out the old branch gatefs/alice (without
 * main's commits) while status showed main's commit as PINNED.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const repo = makeTempRepo({ 'README.md': 'one\n' });
  cleanups.push(() => repo.cleanup());
  const first = repo.git('rev-parse', 'HEAD');
  repo.write({ 'README.md': 'two\n', 'added.md': 'in the second commit\n' });
  const second = repo.commit('second');
  const host = await createHost({ repo: repo.dir });
  cleanups.push(() => host.close());
  return { repo, host, first, second };
}

describe('prepare on a ready workspace', () => {
  it('with the same base, or none, reuses it; with another base, refuses (BASE_MISMATCH) and changes nothing', async () => {
    const { host, first, second, repo } = await setup();
    const ready = await host.prepare({ conversation: 'a', baseRef: first });
    expect(ready.pinnedSha).toBe(first);
    await host.gate.call('a', 'write', { path: 'work.md', content: 'mine\n' });
    expect(await host.prepare({ conversation: 'a', baseRef: first })).toEqual(ready);
    expect(await host.prepare({ conversation: 'a' })).toEqual(ready);
    const refused = host.prepare({ conversation: 'a', baseRef: 'main' });
    await expect(refused).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BASE_MISMATCH', pinnedSha: first, baseSha: second },
    });
    await expect(refused).rejects.toThrow(
      `conversation 'a' is already prepared from ${first.slice(0, 12)}, not from main (${second.slice(0, 12)})`,
    );
    expect(host.status()).toEqual([ready]);
    expect(readFileSync(join(repo.dir, '.gatefs/worktrees/a/work.md'), 'utf8')).toBe('mine\n');
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: true, value: { content: 'one\n' } });
  });

  it('a base that names no commit is BAD_REF, as for a new workspace', async () => {
    const { host } = await setup();
    await host.prepare({ conversation: 'a' });
    await expect(host.prepare({ conversation: 'a', baseRef: 'no-such-ref' })).rejects.toMatchObject({ code: 'BAD_REF' });
  });
});

describe('prepare again after a release, while the branch gatefs/<id> still exists', () => {
  it('without a base, continues the branch with its commits (pinned where it started)', async () => {
    const { host, repo, first } = await setup();
    await host.prepare({ conversation: 'a', baseRef: first });
    await host.gate.call('a', 'write', { path: 'work.md', content: 'committed work\n' });
    const wt = join(repo.dir, '.gatefs/worktrees/a');
    repo.git('-C', wt, 'add', '-A');
    repo.git('-C', wt, 'commit', '--quiet', '-m', 'agent work');
    await host.release('a');
    const again = await host.prepare({ conversation: 'a' });
    expect(again.pinnedSha).toBe(first);
    expect(await host.gate.call('a', 'read', { path: 'work.md' })).toMatchObject({ ok: true, value: { content: 'committed work\n' } });
  });

  it('with a base the branch is not at, refuses (BRANCH_EXISTS) before creating anything; the branch and the released record stay', async () => {
    const { host, repo, first, second } = await setup();
    await host.prepare({ conversation: 'a', baseRef: first });
    await host.release('a');
    const head = repo.git('rev-parse', 'gatefs/a');
    expect(head).toBe(first);
    const refused = host.prepare({ conversation: 'a', baseRef: 'main' });
    await expect(refused).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BRANCH_EXISTS', branch: 'gatefs/a', head: first },
    });
    await expect(refused).rejects.toThrow(
      `the branch gatefs/a already exists at ${first.slice(0, 12)} (from an earlier preparation of 'a'), not at main (${second.slice(0, 12)})`,
    );
    await expect(refused).rejects.toMatchObject({
      data: { hint: expect.stringMatching(/^prepare without --base to continue that branch, or delete it \(git branch -D gatefs\/a/) },
    });
    expect(existsSync(join(repo.dir, '.gatefs/worktrees/a'))).toBe(false);
    expect(repo.git('rev-parse', 'gatefs/a')).toBe(first);
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'released', pinnedSha: first }]);
    expect(host.events().at(-1)).toMatchObject({
      type: 'prepare.failed',
      conversation: 'a',
      data: { code: 'PREPARATION_FAILED', reason: 'BRANCH_EXISTS' },
    });
    // The base the branch is at is accepted; so is the same request after the branch is deleted.
    expect((await host.prepare({ conversation: 'a', baseRef: first })).pinnedSha).toBe(first);
    await host.release('a');
    repo.git('branch', '-D', 'gatefs/a');
    const fresh = await host.prepare({ conversation: 'a', baseRef: 'main' });
    expect(fresh.pinnedSha).toBe(second);
    expect(await host.gate.call('a', 'read', { path: 'added.md' })).toMatchObject({ ok: true });
  });
});
