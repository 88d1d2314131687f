/**
 * Checkouts gatefs updates (attack class Q), on real git: a landing brings the person's checkout
 * to the landed commit only when that never overwrites nor deletes a file or folder that is
 * untracked or ignored there, never reaches into the state directory and never writes into
 * another workspace. Otherwise the submission is blocked, naming the paths, and nothing moved:
 * neither the branch nor a byte of the checkout. A candidate whose tree holds the state
 * directory's name is refused with a message to the submitter.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const manifest = {
  roles: [
    { name: 'agent', tools: ['read', 'write', 'edit', 'delete', 'move', 'diff', 'commit', 'submit'], workspace: { backend: 'worktree' } },
  ],
};
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(files: Record<string, string> = { 'README.md': '# r\n' }) {
  const repo = makeTempRepo(files);
  cleanups.push(() => repo.cleanup());
  const host = await createHost({ repo: repo.dir, manifest, settings: { lander: { checks: [] } } });
  cleanups.push(() => host.close());
  const worktree = (id: string) => join(repo.dir, '.gatefs/worktrees', id);
  return { repo, host, worktree };
}

type Change = { write: Record<string, string>; remove?: string[] };

/** Removes, then writes, `change` in `conversation`'s workspace through its tools, commits and submits; result: the submission id. */
async function submit(host: Host, conversation: string, change: Change): Promise<string> {
  if (!host.status().some((s) => s.conversation === conversation)) await host.prepare({ conversation });
  for (const path of change.remove ?? []) expect(await host.gate.call(conversation, 'delete', { path })).toMatchObject({ ok: true });
  for (const [path, content] of Object.entries(change.write)) {
    expect(await host.gate.call(conversation, 'write', { path, content })).toMatchObject({ ok: true });
  }
  expect(await host.gate.call(conversation, 'commit', { message: `work of ${conversation}` })).toMatchObject({ ok: true });
  const submitted = await host.gate.call(conversation, 'submit', { divergence: 'None', summary: 'work' });
  expect(submitted).toMatchObject({ ok: true });
  return (submitted as { value: { submissionId: string } }).value.submissionId;
}

/** Commits the worktree's current files with plain git (what no tool lets an agent do), then submits. */
async function submitByHand(host: Host, dir: string, conversation: string): Promise<string> {
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  git('add', '-A', '-f');
  git('-c', 'user.name=agent', '-c', 'user.email=a@example.invalid', 'commit', '-q', '--no-verify', '-m', 'by hand');
  const submitted = await host.gate.call(conversation, 'submit', { divergence: 'None' });
  expect(submitted).toMatchObject({ ok: true });
  return (submitted as { value: { submissionId: string } }).value.submissionId;
}

/** Every file under `dir` (but `.git` and the state directory) with its bytes or link target: what a person would notice changing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = join(dir, rel);
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) out[rel] = `-> ${readlinkSync(abs)}`;
    else if (st.isDirectory()) {
      for (const name of execFileSync('ls', ['-A', abs], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
        // The state directory changes with every record; the state tests look at it themselves.
        if (rel === '' && (name === '.git' || name === '.gatefs')) continue;
        walk(rel === '' ? name : `${rel}/${name}`);
      }
      if (rel !== '') out[`${rel}/`] = 'dir';
    } else out[rel] = readFileSync(abs, 'utf8');
  };
  walk('');
  return out;
}

/** Runs the lander and expects `id` blocked on exactly `files`, with main and every byte of the checkout unchanged. */
async function expectBlocked(repo: TempRepo, host: Host, id: string, files: string[]): Promise<void> {
  const head = repo.git('rev-parse', 'main');
  const before = snapshot(repo.dir);
  const report = await host.lander.run();
  expect(report).toMatchObject({ landed: [], failed: [], blocked: [{ submission: id, files }] });
  expect(repo.git('rev-parse', 'main')).toBe(head);
  expect(snapshot(repo.dir)).toEqual(before);
  expect(host.lander.status().find((s) => s.id === id)).toMatchObject({ state: 'checked' });
}

describe('the state directory', () => {
  it('a committed file named like the state directory is refused with a message to the submitter; the state dir stays', async () => {
    const { repo, host, worktree } = await world();
    await host.prepare({ conversation: 'a' });
    await host.prepare({ conversation: 'b' });
    await host.gate.call('b', 'write', { path: 'draft.txt', content: 'uncommitted work of b\n' });
    writeFileSync(join(worktree('a'), '.gatefs'), 'not a folder\n');
    const id = await submitByHand(host, worktree('a'), 'a');
    const head = repo.git('rev-parse', 'main');
    const report = await host.lander.run();
    expect(report).toMatchObject({ landed: [], failed: [id] });
    expect(repo.git('rev-parse', 'main')).toBe(head);
    expect(lstatSync(join(repo.dir, '.gatefs')).isDirectory()).toBe(true);
    expect(existsSync(join(repo.dir, '.gatefs/gatefs.db'))).toBe(true);
    expect(readFileSync(join(worktree('b'), 'draft.txt'), 'utf8')).toBe('uncommitted work of b\n');
    const [input] = host.messages('a');
    expect(input).toMatchObject({ kind: 'input', body: { reason: 'PROTECTED_PATH', paths: ['.gatefs'] } });
    expect(String(input!.body.message)).toContain('.gatefs');
    expect(host.lander.status()).toMatchObject([{ id, state: 'failed', reason: 'PROTECTED_PATH' }]);
    // Every command still works.
    expect(host.status().map((s) => s.conversation)).toEqual(['a', 'b']);
  });

  it("a .gitignore that un-ignores the state dir cannot plant files in another conversation's worktree", async () => {
    const { repo, host, worktree } = await world();
    await host.prepare({ conversation: 'b' });
    await host.gate.call('b', 'write', { path: 'notes.txt', content: 'b was here\n' });
    await host.prepare({ conversation: 'a' });
    writeFileSync(join(worktree('a'), '.gitignore'), '!/.gatefs/\n');
    mkdirSync(join(worktree('a'), '.gatefs/worktrees/b'), { recursive: true });
    writeFileSync(join(worktree('a'), '.gatefs/worktrees/b/notes.txt'), 'overwritten by a\n');
    writeFileSync(join(worktree('a'), '.gatefs/worktrees/b/planted.txt'), 'planted by a\n');
    const id = await submitByHand(host, worktree('a'), 'a');
    const report = await host.lander.run();
    expect(report.failed).toEqual([id]);
    expect(readFileSync(join(worktree('b'), 'notes.txt'), 'utf8')).toBe('b was here\n');
    expect(existsSync(join(worktree('b'), 'planted.txt'))).toBe(false);
    expect(repo.git('show', 'main:README.md')).toBe('# r');
    expect(host.messages('a')).toMatchObject([{ kind: 'input', body: { reason: 'PROTECTED_PATH' } }]);
  });

  it('agent tools cannot create the state directory name at the workspace root, as a file or a folder', async () => {
    const { host, worktree } = await world();
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'x.txt', content: 'x\n' });
    for (const [tool, args] of [
      ['write', { path: '.gatefs', content: 'x\n' }],
      ['write', { path: '.gatefs/worktrees/b/f.txt', content: 'x\n' }],
      ['write', { path: '.GATEFS', content: 'x\n' }],
      ['move', { from: 'x.txt', to: '.gatefs' }],
    ] as const) {
      expect(await host.gate.call('a', tool, args)).toMatchObject({ ok: false, error: { code: 'PROTECTED_PATH' } });
    }
    expect(existsSync(join(worktree('a'), '.gatefs'))).toBe(false);
    expect(existsSync(join(worktree('a'), '.GATEFS'))).toBe(false);
    expect(readFileSync(join(worktree('a'), 'x.txt'), 'utf8')).toBe('x\n');
    // Deeper down the name is an ordinary one.
    expect(await host.gate.call('a', 'write', { path: 'docs/.gatefs', content: 'fine\n' })).toMatchObject({ ok: true });
  });
});

describe("the person's untracked and ignored files", () => {
  it('an ignored local.env is not replaced by a submitted one (the submission un-ignores it)', async () => {
    const { repo, host } = await world({ 'README.md': '# r\n', '.gitignore': 'local.env\n' });
    writeFileSync(join(repo.dir, 'local.env'), 'SECRET=mine\n');
    const id = await submit(host, 'a', { write: { '.gitignore': '', 'local.env': 'SECRET=agent\n' } });
    await expectBlocked(repo, host, id, ['local.env']);
    expect(readFileSync(join(repo.dir, 'local.env'), 'utf8')).toBe('SECRET=mine\n');
    // Once the person moves their file away, the same submission lands.
    rmSync(join(repo.dir, 'local.env'));
    expect((await host.lander.run()).landed).toEqual([id]);
    expect(readFileSync(join(repo.dir, 'local.env'), 'utf8')).toBe('SECRET=agent\n');
  });

  it('two landings in a row (a .gitignore line, then the file) do not overwrite an untracked file', async () => {
    const { repo, host } = await world();
    await host.prepare({ conversation: 'b' });
    writeFileSync(join(repo.dir, 'todo.txt'), 'my list\n');
    const first = await submit(host, 'a', { write: { '.gitignore': 'todo.txt\n' } });
    expect((await host.lander.run()).landed).toEqual([first]);
    const second = await submit(host, 'b', { write: { 'todo.txt': 'the agent list\n' } });
    await expectBlocked(repo, host, second, ['todo.txt']);
    expect(readFileSync(join(repo.dir, 'todo.txt'), 'utf8')).toBe('my list\n');
  });

  it('a new file inside an ignored folder is blocked, naming the folder', async () => {
    const { repo, host } = await world({ 'README.md': '# r\n', '.gitignore': 'build/\n' });
    mkdirSync(join(repo.dir, 'build'));
    writeFileSync(join(repo.dir, 'build/out.bin'), 'compiled\n');
    await host.prepare({ conversation: 'a' });
    // The agent's own ignore rules differ: it commits into build/.
    const id = await submit(host, 'a', { write: { '.gitignore': '', 'build/new.txt': 'agent\n' } });
    await expectBlocked(repo, host, id, ['build/']);
  });

  it('a file where an untracked folder is, and a folder where an untracked file is, are blocked', async () => {
    const { repo, host } = await world();
    mkdirSync(join(repo.dir, 'scratch'));
    writeFileSync(join(repo.dir, 'scratch/idea.md'), 'idea\n');
    writeFileSync(join(repo.dir, 'tools'), 'a file of mine\n');
    const id = await submit(host, 'a', { write: { scratch: 'a file now\n', 'tools/run.sh': 'echo\n' } });
    await expectBlocked(repo, host, id, ['scratch/', 'tools']);
  });

  it('an untracked symbolic link in the way is blocked; nothing is written through it', async () => {
    const { repo, host } = await world();
    const outside = join(repo.dir, '..', 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'outside\n');
    symlinkSync(outside, join(repo.dir, 'docs'));
    symlinkSync(join(outside, 'keep.txt'), join(repo.dir, 'link.txt'));
    const id = await submit(host, 'a', { write: { 'docs/new.md': 'doc\n', 'link.txt': 'replaced\n' } });
    await expectBlocked(repo, host, id, ['docs', 'link.txt']);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('outside\n');
    expect(existsSync(join(outside, 'new.md'))).toBe(false);
  });

  it('deleting a tracked file that the person replaced by an untracked folder is blocked', async () => {
    const { repo, host } = await world({ 'README.md': '# r\n', 'old.txt': 'old\n' });
    await host.prepare({ conversation: 'a' });
    rmSync(join(repo.dir, 'old.txt'));
    mkdirSync(join(repo.dir, 'old.txt'));
    writeFileSync(join(repo.dir, 'old.txt/mine.txt'), 'mine\n');
    const id = await submit(host, 'a', { write: { 'new.txt': 'n\n' }, remove: ['old.txt'] });
    // The person's own change to a tracked path: git's uncommitted-change refusal names it.
    await expectBlocked(repo, host, id, ['old.txt']);
    expect(readFileSync(join(repo.dir, 'old.txt/mine.txt'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(repo.dir, 'new.txt'))).toBe(false);
  });

  it('lands over untracked and ignored files that are out of the way, and replaces a tracked folder by a file', async () => {
    const files = { 'README.md': '# r\n', '.gitignore': 'node_modules/\nsrc/gen/\n', 'src/a.ts': 'a\n', 'lib/x.ts': 'x\n' };
    const { repo, host } = await world(files);
    mkdirSync(join(repo.dir, 'node_modules/dep'), { recursive: true });
    writeFileSync(join(repo.dir, 'node_modules/dep/index.js'), 'dep\n');
    mkdirSync(join(repo.dir, 'src/gen'));
    writeFileSync(join(repo.dir, 'src/gen/out.ts'), 'gen\n');
    writeFileSync(join(repo.dir, 'notes.md'), 'mine\n');
    await host.prepare({ conversation: 'a' });
    // A tracked folder becoming a file (no tool removes a folder): made by hand in the worktree.
    const wt = join(repo.dir, '.gatefs/worktrees/a');
    rmSync(join(wt, 'lib'), { recursive: true });
    writeFileSync(join(wt, 'lib'), 'now a file\n');
    writeFileSync(join(wt, 'src/a.ts'), 'A\n');
    writeFileSync(join(wt, 'src/b.ts'), 'b\n');
    const id = await submitByHand(host, wt, 'a');
    expect((await host.lander.run()).landed).toEqual([id]);
    expect(readFileSync(join(repo.dir, 'src/b.ts'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(repo.dir, 'lib'), 'utf8')).toBe('now a file\n');
    expect(readFileSync(join(repo.dir, 'node_modules/dep/index.js'), 'utf8')).toBe('dep\n');
    expect(readFileSync(join(repo.dir, 'src/gen/out.ts'), 'utf8')).toBe('gen\n');
    expect(readFileSync(join(repo.dir, 'notes.md'), 'utf8')).toBe('mine\n');
  });
});
