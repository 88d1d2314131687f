/**
 * `prepare({ branch, baseRef })` on the memory host (isomorphic-git over memfs): the same rules as
 * on disk (test/host/prepare-branch.test.ts) — made at the base, an existing branch taken as it
 * is or refused when the base is outside its history, BAD_BRANCH_NAME, BRANCH_IN_USE, a branch
 * gatefs did not make kept by release — and a byte-identical run log for the same scenario.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryHost, type MemoryHost } from '../../src/host/memory/create-memory-host.js';

const files = { 'README.md': '# demo\n' };
const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'commit', 'submit'], workspace: { backend: 'worktree' } }],
};

/** The commit a branch points at in the memory repository, or null. */
function headOf(host: MemoryHost, branch: string): string | null {
  const path = `/repo/.git/refs/heads/${branch}`;
  return host.volume.existsSync(path) ? String(host.volume.readFileSync(path, 'utf8')).trim() : null;
}

/** A scenario: `topic` made by `x` with one commit, released; `y` takes it; `b` commits on its own branch. */
async function scenario(host: MemoryHost) {
  const made = await host.prepare({ conversation: 'x', branch: 'topic' });
  await host.gate.call('x', 'write', { path: 'topic.md', content: 'topic\n' });
  const commit = await host.gate.call('x', 'commit', { message: 'topic work' });
  await host.release('x');
  const taken = await host.prepare({ conversation: 'y', branch: 'topic' });
  await host.prepare({ conversation: 'b' });
  await host.gate.call('b', 'write', { path: 'b.md', content: 'b\n' });
  await host.gate.call('b', 'commit', { message: 'b work' });
  return { made, commit, taken };
}

describe('memory host: an explicit branch', () => {
  it('is made at HEAD, then taken as it is by another conversation, pinned at its merge base', async () => {
    const host = await createMemoryHost({ files, manifest });
    const { made, commit, taken } = await scenario(host);
    expect(made).toMatchObject({ branch: 'topic', pinnedSha: headOf(host, 'main') });
    expect(commit).toMatchObject({ ok: true, value: { branch: 'topic' } });
    expect(taken).toMatchObject({ branch: 'topic', pinnedSha: headOf(host, 'main') });
    expect(headOf(host, 'topic')).not.toBe(headOf(host, 'main'));
    expect(await host.gate.call('y', 'read', { path: 'topic.md' })).toMatchObject({ ok: true, value: { content: 'topic\n' } });
    await host.close();
  });

  it('refuses a base outside the branch, another branch for a ready conversation, bad names and branches in use', async () => {
    const host = await createMemoryHost({ files, manifest });
    await scenario(host);
    await host.release('y');
    await expect(host.prepare({ conversation: 'z', branch: 'topic', baseRef: 'gatefs/b' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BASE_MISMATCH', branch: 'topic' },
    });
    expect(await host.prepare({ conversation: 'z', branch: 'topic', baseRef: 'main' })).toMatchObject({ pinnedSha: headOf(host, 'main') });
    await expect(host.prepare({ conversation: 'z', branch: 'other' })).rejects.toMatchObject({ data: { reason: 'BASE_MISMATCH' } });
    await expect(host.prepare({ conversation: 'w', branch: 'topic' })).rejects.toMatchObject({
      data: { reason: 'BRANCH_IN_USE', holder: 'z' },
    });
    await expect(host.prepare({ conversation: 'w', branch: 'main' })).rejects.toMatchObject({
      data: { reason: 'BRANCH_IN_USE', holder: 'canonical' },
    });
    for (const name of ['a..b', '-x', 'HEAD', 'x.lock', ' x', 'a//b', '@{', 'refs/heads/x']) {
      await expect(host.prepare({ conversation: 'w', branch: name })).rejects.toMatchObject({ data: { reason: 'BAD_BRANCH_NAME' } });
    }
    expect(host.status().find((s) => s.conversation === 'w')).toBeUndefined();
    await host.close();
  });

  it('release --delete-branch keeps a branch gatefs did not make for this conversation', async () => {
    const host = await createMemoryHost({ files, manifest });
    await scenario(host);
    const topic = headOf(host, 'topic');
    const kept = await host.release('y', { deleteBranch: true });
    expect(kept).toMatchObject({ branchDeleted: false });
    expect(headOf(host, 'topic')).toBe(topic);
    await host.prepare({ conversation: 'm', branch: 'merged' });
    expect(await host.release('m', { deleteBranch: true })).toMatchObject({ branchDeleted: true });
    expect(headOf(host, 'merged')).toBeNull();
    await host.close();
  });

  it('two conversations racing for one new branch: one gets it, the other is refused and deletes nothing', async () => {
    const host = await createMemoryHost({ files, manifest });
    const outcomes = await Promise.allSettled([
      host.prepare({ conversation: 'r1', branch: 'race' }),
      host.prepare({ conversation: 'r2', branch: 'race' }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'PREPARATION_FAILED' });
    expect(headOf(host, 'race')).toBe(headOf(host, 'main'));
    expect(
      host
        .status()
        .filter((s) => s.state === 'ready')
        .map((s) => s.branch),
    ).toEqual(['race']);
    await host.close();
  });

  it('gives a byte-identical run log for the same scenario', async () => {
    const logs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const host = await createMemoryHost({ files, manifest });
      await scenario(host);
      await host.prepare({ conversation: 'w', branch: 'topic' }).catch(() => undefined);
      logs.push(JSON.stringify(host.events()));
      await host.close();
    }
    expect(logs[1]).toBe(logs[0]);
    expect(logs[0]).toContain('"branch":"topic"');
  });
});
