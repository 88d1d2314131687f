/**
 * `subagents.start({ from: 'working' })`: the child starts from its parent's working state — its
 * uncommitted, untracked and ignored files — not only its branch head, through a snapshot of the
 * parent (reason `fork`). The parent's files are untouched; the child's work comes home through
 * commits as any subagent's does.
 */
import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';
import { makeTempRepo } from './temp-repo.js';

const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'edit', 'commit', 'list'], workspace: { backend: 'worktree' } }],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a subagent started from working state', () => {
  it("holds the parent's uncommitted, untracked and ignored files; the parent is untouched; its commits land back", async () => {
    const repo = makeTempRepo({ 'README.md': '# r\n', 'notes.txt': 'one\ntwo\n', '.gitignore': 'cache/\n' });
    cleanups.push(() => repo.cleanup());
    const host = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'p' });
    const wt = (id: string) => join(repo.dir, '.gatefs/worktrees', id);
    await host.gate.call('p', 'edit', { path: 'notes.txt', oldString: 'two', newString: 'TWO (uncommitted)' });
    await host.gate.call('p', 'write', { path: 'draft.md', content: 'untracked draft\n' });
    mkdirSync(join(wt('p'), 'cache'));
    writeFileSync(join(wt('p'), 'cache/built.bin'), 'ignored\n');
    const parentHead = repo.git('rev-parse', 'gatefs/p');

    const child = await host.subagents.start({ parent: 'p', child: 'k', from: 'working' });
    expect(child).toMatchObject({ conversation: 'k', parent: 'p', pinnedSha: parentHead });
    expect(readFileSync(join(wt('k'), 'notes.txt'), 'utf8')).toBe('one\nTWO (uncommitted)\n');
    expect(readFileSync(join(wt('k'), 'draft.md'), 'utf8')).toBe('untracked draft\n');
    expect(readFileSync(join(wt('k'), 'cache/built.bin'), 'utf8')).toBe('ignored\n');
    // The parent keeps its files, and its snapshot records the fork.
    expect(readFileSync(join(wt('p'), 'notes.txt'), 'utf8')).toBe('one\nTWO (uncommitted)\n');
    expect(host.snapshots('p')).toMatchObject([{ snapshotId: '1', reason: 'fork', label: 'fork to k' }]);
    expect(host.events().find((e) => e.type === 'subagent.start' && e.data.from === 'working')?.data).toMatchObject({
      parent: 'p',
      snapshot: 1,
    });

    await host.gate.call('k', 'write', { path: 'child.txt', content: 'child work\n' });
    const committed = await host.gate.call('k', 'commit', { message: 'child: carry on from the draft' });
    expect(committed).toMatchObject({ ok: true });
    const landed = await host.subagents.land('k');
    expect(landed).toMatchObject({ child: 'k', parent: 'p', commits: 1 });
    expect(repo.git('show', 'gatefs/p:draft.md')).toBe('untracked draft');
    expect(readFileSync(join(wt('p'), 'child.txt'), 'utf8')).toBe('child work\n');
    expect(existsSync(wt('k'))).toBe(false);
  });

  it("lands back over the parent's own untracked link and file as they are; a file the parent changed since is still a refusal, and nothing moves", async () => {
    const repo = makeTempRepo({ 'README.md': '# r\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
    cleanups.push(() => repo.cleanup());
    const host = await createHost({ repo: repo.dir, manifest });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'p' });
    const wt = (id: string) => join(repo.dir, '.gatefs/worktrees', id);
    symlinkSync('a.txt', join(wt('p'), 'plink'));
    writeFileSync(join(wt('p'), 'draft.md'), 'draft\n');
    await host.subagents.start({ parent: 'p', child: 'k', from: 'working' });
    expect(readlinkSync(join(wt('k'), 'plink'))).toBe('a.txt');
    expect(await host.gate.call('k', 'commit', { message: 'carry the draft and the link' })).toMatchObject({ ok: true });
    // The parent changes its draft meanwhile: that is its own work, and the landing refuses to overwrite it.
    writeFileSync(join(wt('p'), 'draft.md'), 'draft, edited after the fork\n');
    await expect(host.subagents.land('k')).rejects.toMatchObject({
      code: 'DIRTY_WORKTREE',
      data: { files: expect.arrayContaining(['draft.md']) },
    });
    expect(readlinkSync(join(wt('p'), 'plink'))).toBe('a.txt');
    expect(readFileSync(join(wt('p'), 'draft.md'), 'utf8')).toBe('draft, edited after the fork\n');
    // Put back as the child has it: the landing goes through.
    writeFileSync(join(wt('p'), 'draft.md'), 'draft\n');
    expect(await host.subagents.land('k')).toMatchObject({ commits: 1 });
    expect(readlinkSync(join(wt('p'), 'plink'))).toBe('a.txt');
    expect(repo.git('show', 'gatefs/p:draft.md')).toBe('draft');
  });

  it('works the same on the memory host', async () => {
    const host = await createMemoryHost({ files: { 'README.md': '# r\n' }, manifest });
    await host.prepare({ conversation: 'p' });
    await host.gate.call('p', 'write', { path: 'draft.md', content: 'draft\n' });
    await host.subagents.start({ parent: 'p', child: 'k', from: 'working' });
    expect(await host.gate.call('k', 'read', { path: 'draft.md' })).toMatchObject({
      ok: true,
      value: { content: expect.stringContaining('draft') },
    });
    await host.close();
  });
});
