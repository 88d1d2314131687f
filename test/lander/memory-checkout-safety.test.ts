/**
 * Checkouts gatefs updates, on the memory host (the twin of checkout-safety.test.ts): a landing
 * or `subagent land` that would overwrite, delete or write into a file or folder the checkout
 * does not track is blocked, naming the paths, with the branch and every byte unchanged; a
 * candidate whose tree holds the state directory's name is refused.
 */
import git, { type FsClient } from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { createMemoryHost, type MemoryHost } from '../../src/host/memory/create-memory-host.js';

const manifest = {
  roles: [{ name: 'agent', tools: ['read', 'write', 'delete', 'commit', 'submit'], workspace: { backend: 'worktree' } }],
};

async function host(files: Record<string, string> = { 'README.md': '# r\n' }): Promise<MemoryHost> {
  return createMemoryHost({ files, manifest, settings: { lander: { checks: [] } } });
}

async function head(h: MemoryHost, ref: string): Promise<string> {
  return git.resolveRef({ fs: h.volume as unknown as FsClient, dir: '/repo', ref });
}

/** Every file and folder under `dir` (but `.git`) with its bytes: what a person would notice changing. */
function snapshot(h: MemoryHost, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = rel === '' ? dir : `${dir}/${rel}`;
    if (h.volume.lstatSync(abs).isDirectory()) {
      for (const name of (h.volume.readdirSync(abs) as unknown[]).map(String).sort()) {
        if (rel === '' && name === '.git') continue;
        walk(rel === '' ? name : `${rel}/${name}`);
      }
      if (rel !== '') out[`${rel}/`] = 'dir';
    } else out[rel] = String(h.volume.readFileSync(abs, 'utf8'));
  };
  walk('');
  return out;
}

async function submit(h: MemoryHost, conversation: string, write: Record<string, string>): Promise<string> {
  if (!h.status().some((s) => s.conversation === conversation)) await h.prepare({ conversation });
  for (const [path, content] of Object.entries(write)) {
    expect(await h.gate.call(conversation, 'write', { path, content })).toMatchObject({ ok: true });
  }
  expect(await h.gate.call(conversation, 'commit', { message: `work of ${conversation}` })).toMatchObject({ ok: true });
  const submitted = await h.gate.call(conversation, 'submit', { divergence: 'None' });
  expect(submitted).toMatchObject({ ok: true });
  return (submitted as { value: { submissionId: string } }).value.submissionId;
}

/** Commits `path` onto branch `ref` with isomorphic-git, as a person could by hand (what no tool lets an agent do). */
async function commitByHand(h: MemoryHost, ref: string, path: string, content: string): Promise<void> {
  const fs = h.volume as unknown as FsClient;
  const gitdir = '/repo/.git';
  const parent = await git.resolveRef({ fs, gitdir, ref });
  const { commit } = await git.readCommit({ fs, gitdir, oid: parent });
  const { tree: entries } = await git.readTree({ fs, gitdir, oid: commit.tree });
  const blob = await git.writeBlob({ fs, gitdir, blob: Buffer.from(content) });
  const tree = await git.writeTree({ fs, gitdir, tree: [...entries, { mode: '100644', path, oid: blob, type: 'blob' }] });
  const who = { name: 'agent', email: 'a@example.invalid', timestamp: 1_800_000_000, timezoneOffset: 0 };
  const oid = await git.writeCommit({ fs, gitdir, commit: { message: 'by hand\n', tree, parent: [parent], author: who, committer: who } });
  await git.writeRef({ fs, gitdir, ref, value: oid, force: true });
}

async function expectBlocked(h: MemoryHost, id: string, files: string[]): Promise<void> {
  const main = await head(h, 'refs/heads/main');
  const before = snapshot(h, '/repo');
  expect(await h.lander.run()).toMatchObject({ landed: [], failed: [], blocked: [{ submission: id, reason: 'UNTRACKED_FILES', files }] });
  expect(await head(h, 'refs/heads/main')).toBe(main);
  expect(snapshot(h, '/repo')).toEqual(before);
  expect(h.lander.status().find((s) => s.id === id)).toMatchObject({ state: 'checked' });
}

describe('checkout safety on the memory host', () => {
  it("does not replace the person's untracked local.env; lands once it is moved away", async () => {
    const h = await host({ 'README.md': '# r\n', '.gitignore': 'local.env\n' });
    h.volume.writeFileSync('/repo/local.env', 'SECRET=mine\n');
    const id = await submit(h, 'a', { '.gitignore': '', 'local.env': 'SECRET=agent\n' });
    await expectBlocked(h, id, ['local.env']);
    h.volume.unlinkSync('/repo/local.env');
    expect((await h.lander.run()).landed).toEqual([id]);
    expect(String(h.volume.readFileSync('/repo/local.env', 'utf8'))).toBe('SECRET=agent\n');
    await h.close();
  });

  it('blocks a file where an untracked folder is, a folder where an untracked file is, and a file inside an untracked folder', async () => {
    const h = await host();
    h.volume.mkdirSync('/repo/scratch');
    h.volume.writeFileSync('/repo/scratch/idea.md', 'idea\n');
    h.volume.writeFileSync('/repo/tools', 'a file of mine\n');
    h.volume.mkdirSync('/repo/build');
    h.volume.writeFileSync('/repo/build/out.bin', 'compiled\n');
    const id = await submit(h, 'a', { scratch: 'a file now\n', 'tools/run.sh': 'echo\n', 'build/new.txt': 'agent\n' });
    await expectBlocked(h, id, ['build/', 'scratch/', 'tools']);
    await h.close();
  });

  it('lands over untracked files that are out of the way', async () => {
    const h = await host({ 'README.md': '# r\n', 'src/a.ts': 'a\n' });
    h.volume.writeFileSync('/repo/notes.md', 'mine\n');
    h.volume.writeFileSync('/repo/src/scratch.ts', 'mine\n');
    const id = await submit(h, 'a', { 'src/a.ts': 'A\n', 'src/b.ts': 'b\n' });
    expect((await h.lander.run()).landed).toEqual([id]);
    expect(String(h.volume.readFileSync('/repo/src/b.ts', 'utf8'))).toBe('b\n');
    expect(String(h.volume.readFileSync('/repo/notes.md', 'utf8'))).toBe('mine\n');
    expect(String(h.volume.readFileSync('/repo/src/scratch.ts', 'utf8'))).toBe('mine\n');
    await h.close();
  });

  it("refuses a candidate holding the state directory's name, with a message to the submitter", async () => {
    const h = await host();
    await h.prepare({ conversation: 'a' });
    expect(await h.gate.call('a', 'write', { path: '.gatefs', content: 'x\n' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
    // No tool writes it and `commit` refuses to take it: the file is planted in the worktree and committed by hand.
    h.volume.writeFileSync('/state/worktrees/a/.GATEFS', 'not a folder\n');
    expect(await h.gate.call('a', 'commit', { message: 'planted' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH', path: '.GATEFS' },
    });
    await commitByHand(h, 'refs/heads/gatefs/a', '.GATEFS', 'not a folder\n');
    const submitted = await h.gate.call('a', 'submit', { divergence: 'None' });
    expect(submitted).toMatchObject({ ok: true });
    const main = await head(h, 'refs/heads/main');
    const report = await h.lander.run();
    expect(report.failed).toHaveLength(1);
    expect(await head(h, 'refs/heads/main')).toBe(main);
    expect(h.messages('a')).toMatchObject([{ kind: 'input', body: { reason: 'PROTECTED_PATH', paths: ['.GATEFS'] } }]);
    await h.close();
  });
});

describe('subagent land on the memory host', () => {
  it("refuses to replace the parent's untracked build/ folder by a file, changing nothing", async () => {
    const h = await host();
    await h.prepare({ conversation: 'p' });
    h.volume.mkdirSync('/state/worktrees/p/build');
    h.volume.writeFileSync('/state/worktrees/p/build/out.bin', 'compiled\n');
    await h.subagents.start({ parent: 'p', child: 'k' });
    expect(await h.gate.call('k', 'write', { path: 'build', content: 'a file now\n' })).toMatchObject({ ok: true });
    await h.gate.call('k', 'commit', { message: 'child build file' });
    const before = await head(h, 'refs/heads/gatefs/p');
    await expect(h.subagents.land('k')).rejects.toMatchObject({
      code: 'DIRTY_WORKTREE',
      data: { conversation: 'p', reason: 'UNTRACKED_FILES', files: ['build/'] },
    });
    expect(await head(h, 'refs/heads/gatefs/p')).toBe(before);
    expect(String(h.volume.readFileSync('/state/worktrees/p/build/out.bin', 'utf8'))).toBe('compiled\n');
    expect(h.status().find((s) => s.conversation === 'k')).toMatchObject({ state: 'ready' });
    await h.close();
  });
});
