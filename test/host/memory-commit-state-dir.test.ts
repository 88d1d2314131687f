/**
 * `commit` and a file or folder named like the state directory, on the memory host (the twin of
 * commit-state-dir.test.ts): one planted at the workspace root, from outside gatefs, is refused
 * with `PROTECTED_PATH` naming it, nothing committed and the branch unchanged; an ignored one,
 * one left out by `paths`, and one deeper down are not the state directory's name.
 */
import git, { type FsClient } from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { createMemoryHost } from '../../src/host/memory/create-memory-host.js';

const manifest = { roles: [{ name: 'agent', tools: ['read', 'write', 'commit'], workspace: { backend: 'worktree' } }] };
const WT = '/state/worktrees/a';

/** A memory host with conversation `a` prepared and `work.txt` written through the tools. */
async function world(files: Record<string, string> = { 'README.md': '# r\n' }) {
  const h = await createMemoryHost({ files, manifest });
  await h.prepare({ conversation: 'a' });
  expect(await h.gate.call('a', 'write', { path: 'work.txt', content: 'work\n' })).toMatchObject({ ok: true });
  const fs = h.volume as unknown as FsClient;
  const plant = (path: string, content = 'planted\n') => {
    h.volume.mkdirSync(`${WT}/${path}`.replace(/\/[^/]*$/, ''), { recursive: true });
    h.volume.writeFileSync(`${WT}/${path}`, content);
  };
  const branchHead = () => git.resolveRef({ fs, gitdir: '/repo/.git', ref: 'refs/heads/gatefs/a' });
  const branchFiles = async () => git.listFiles({ fs, gitdir: '/repo/.git', ref: await branchHead() });
  return { h, plant, branchHead, branchFiles };
}

describe('commit refuses a state directory name planted at the workspace root (memory host)', () => {
  it.each([
    ['a file .gatefs', '.gatefs', '.gatefs'],
    ['a file .GATEFS', '.GATEFS', '.GATEFS'],
    ["a file '.gatefs.' (NTFS drops the dot)", '.gatefs.', '.gatefs.'],
    ['a folder .gatefs/ with files inside', '.gatefs/worktrees/b/notes.txt', '.gatefs'],
  ])('%s: PROTECTED_PATH naming it, nothing committed, branch unchanged', async (_, planted, named) => {
    const { h, plant, branchHead, branchFiles } = await world();
    plant(planted);
    const before = await branchHead();
    expect(await h.gate.call('a', 'commit', { message: 'planted' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH', path: named },
    });
    await expect(h.work('a').commit({ message: 'planted' })).rejects.toMatchObject({ code: 'PROTECTED_PATH' });
    expect(await branchHead()).toBe(before);
    expect(String(h.volume.readFileSync(`${WT}/${planted}`, 'utf8'))).toBe('planted\n');
    h.volume.rmSync(`${WT}/${named}`, { recursive: true });
    expect(await h.gate.call('a', 'commit', { message: 'work' })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'work.txt', status: 'added' }] },
    });
    expect(await branchFiles()).toEqual(['README.md', 'work.txt']);
    await h.close();
  });

  it('an ignored .gatefs/ folder is not taken, so the commit goes through without it', async () => {
    const { h, plant, branchFiles } = await world({ 'README.md': '# r\n', '.gitignore': '/.gatefs/\n' });
    plant('.gatefs/notes.txt');
    expect(await h.gate.call('a', 'commit', { message: 'work' })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'work.txt', status: 'added' }] },
    });
    expect(await branchFiles()).toEqual(['.gitignore', 'README.md', 'work.txt']);
    await h.close();
  });

  it('with paths: naming the planted name is PROTECTED_PATH; paths that leave it out commit only those', async () => {
    const { h, plant, branchHead, branchFiles } = await world();
    plant('.GATEFS');
    const before = await branchHead();
    for (const paths of [['.GATEFS'], ['work.txt', '.gatefs'], ['.GATEFS/inner.txt'], ['.']]) {
      expect(await h.gate.call('a', 'commit', { message: 'planted', paths })).toMatchObject({
        ok: false,
        error: { code: 'PROTECTED_PATH' },
      });
    }
    expect(await branchHead()).toBe(before);
    expect(await h.gate.call('a', 'commit', { message: 'work', paths: ['work.txt'] })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'work.txt', status: 'added' }] },
    });
    expect(await branchFiles()).toEqual(['README.md', 'work.txt']);
    await h.close();
  });

  it('deeper down .gatefs is an ordinary name, committed like any file', async () => {
    const { h, plant, branchFiles } = await world();
    plant('docs/.gatefs', 'a doc\n');
    expect(await h.gate.call('a', 'commit', { message: 'work' })).toMatchObject({ ok: true });
    expect(await branchFiles()).toEqual(['README.md', 'docs/.gatefs', 'work.txt']);
    await h.close();
  });
});
