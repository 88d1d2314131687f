/**
 * Submodules and nested repositories inside a workspace (attack class N: work reported saved,
 * then lost). The workspace's git sees neither one's files, so a write there is refused with
 * PROTECTED_PATH before anything is written, and release counts files found there as work.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** A repository with `libs/sub` a submodule (a local repository, committed) beside `libs/readme.txt`. */
function repoWithSubmodule(): TempRepo {
  const lib = makeTempRepo({ 'lib.txt': 'the library\n' });
  const repo = makeTempRepo({ 'README.md': '# outer\n', 'libs/readme.txt': 'libraries\n' });
  cleanups.push(
    () => repo.cleanup(),
    () => lib.cleanup(),
  );
  git(repo.dir, 'submodule', 'add', '--quiet', lib.dir, 'libs/sub');
  repo.commit('add the submodule');
  expect(repo.git('ls-files', '--stage', 'libs/sub')).toMatch(/^160000 /);
  return repo;
}

/** A folder `tool` holding a repository of its own with `tool/x.txt`, made inside `dir`. */
function nestedRepositoryIn(dir: string): void {
  mkdirSync(join(dir, 'tool'), { recursive: true });
  git(join(dir, 'tool'), 'init', '--quiet');
  writeFileSync(join(dir, 'tool/x.txt'), 'nested work\n');
}

async function hostFor(repo: string, backend: string, tools = TOOLS): Promise<Host> {
  const manifest = { roles: [{ name: 'r', tools, workspace: { backend } }] };
  const host = await createHost({ repo, manifest });
  cleanups.push(() => host.close());
  return host;
}

const refusedAs = (kind: string, path: string) => ({
  ok: false,
  error: { code: 'PROTECTED_PATH', message: expect.stringContaining(`'${path}' is a ${kind}`) },
});

describe('a submodule in a worktree (not checked out: an empty folder)', () => {
  it('refuses every change in it before anything is written, and the rest of the workspace works end to end', async () => {
    const repo = repoWithSubmodule();
    const host = await hostFor(repo.dir, 'worktree', [...TOOLS, 'diff', 'commit']);
    await host.prepare({ conversation: 'a' });
    const wt = join(repo.dir, '.gatefs/worktrees/a');
    const call = (tool: string, args: object) => host.gate.call('a', tool, args);

    expect(await call('list', { path: 'libs' })).toMatchObject({
      ok: true,
      value: { entries: [{ path: 'libs/readme.txt' }, { path: 'libs/sub' }] },
    });
    expect(await call('write', { path: 'libs/sub/work.txt', content: 'w\n' })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(await call('write', { path: 'libs/sub/deep/er/work.txt', content: 'w\n' })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(await call('move', { from: 'README.md', to: 'libs/sub/README.md' })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(await call('move', { from: 'libs/sub', to: 'elsewhere' })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(await call('move', { from: 'libs', to: 'vendor' })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(await call('commit', { message: 'm', paths: ['libs/sub/work.txt'] })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(existsSync(join(wt, 'libs/sub/work.txt'))).toBe(false);
    expect(existsSync(join(wt, 'libs/sub/deep'))).toBe(false);
    expect(readFileSync(join(wt, 'README.md'), 'utf8')).toBe('# outer\n');
    expect(existsSync(join(wt, 'libs/sub'))).toBe(true);
    expect(repo.git('-C', wt, 'status', '--porcelain')).toBe('');

    // Beside it, a write is seen by diff and commit.
    expect(await call('write', { path: 'libs/new.txt', content: 'mine\n' })).toMatchObject({ ok: true, value: { created: true } });
    expect(await call('diff', {})).toMatchObject({ ok: true, value: { files: [{ path: 'libs/new.txt', status: 'added' }] } });
    expect(await call('commit', { message: 'add', paths: ['libs/new.txt'] })).toMatchObject({
      ok: true,
      value: { files: [{ path: 'libs/new.txt' }] },
    });
    expect(repo.git('show', 'gatefs/a:libs/new.txt')).toBe('mine');
  });

  it('release counts files put in the submodule folder as work: refused naming them, bytes kept; --discard removes them', async () => {
    const repo = repoWithSubmodule();
    const host = await hostFor(repo.dir, 'worktree');
    await host.prepare({ conversation: 'a' });
    const wt = join(repo.dir, '.gatefs/worktrees/a');
    // Put there outside the tools (a command, the person): git status reports nothing.
    writeFileSync(join(wt, 'libs/sub/work.txt'), 'saved work\n');
    expect(repo.git('-C', wt, 'status', '--porcelain', '--ignored', '--untracked-files=all', '--ignore-submodules=none')).toBe('');

    await expect(host.release('a')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['libs/sub/work.txt'] } });
    expect(readFileSync(join(wt, 'libs/sub/work.txt'), 'utf8')).toBe('saved work\n');
    expect(await host.gate.call('a', 'read', { path: 'libs/sub/work.txt' })).toMatchObject({
      ok: true,
      value: { content: 'saved work\n' },
    });

    await expect(host.release('a', { discard: true })).resolves.toMatchObject({ removed: true, discarded: true });
    expect(existsSync(wt)).toBe(false);
  });

  it('release counts changes inside a submodule checked out in the worktree', async () => {
    const repo = repoWithSubmodule();
    const host = await hostFor(repo.dir, 'worktree');
    await host.prepare({ conversation: 'a' });
    const wt = join(repo.dir, '.gatefs/worktrees/a');
    git(wt, 'submodule', 'update', '--init', '--quiet');
    writeFileSync(join(wt, 'libs/sub/work.txt'), 'saved work\n');
    expect(await host.gate.call('a', 'write', { path: 'libs/sub/lib.txt', content: 'x\n' })).toMatchObject(
      refusedAs('submodule', 'libs/sub'),
    );
    expect(readFileSync(join(wt, 'libs/sub/lib.txt'), 'utf8')).toBe('the library\n');

    await expect(host.release('a')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['libs/sub'] } });
    expect(readFileSync(join(wt, 'libs/sub/work.txt'), 'utf8')).toBe('saved work\n');
  });
});

describe('a nested repository (a folder holding .git, untracked in the outer one)', () => {
  it('in a worktree: readable, never changed through tools, and counted as work at release', async () => {
    const repo = makeTempRepo({ 'README.md': '# outer\n' });
    cleanups.push(() => repo.cleanup());
    const host = await hostFor(repo.dir, 'worktree');
    await host.prepare({ conversation: 'a' });
    const wt = join(repo.dir, '.gatefs/worktrees/a');
    nestedRepositoryIn(wt);
    const call = (tool: string, args: object) => host.gate.call('a', tool, args);

    expect(await call('read', { path: 'tool/x.txt' })).toMatchObject({ ok: true, value: { content: 'nested work\n' } });
    expect(await call('write', { path: 'tool/y.txt', content: 'y\n' })).toMatchObject(refusedAs('nested repository', 'tool'));
    expect(await call('edit', { path: 'tool/x.txt', oldString: 'nested', newString: 'lost' })).toMatchObject(
      refusedAs('nested repository', 'tool'),
    );
    expect(await call('delete', { path: 'tool/x.txt' })).toMatchObject(refusedAs('nested repository', 'tool'));
    expect(await call('move', { from: 'tool/x.txt', to: 'x.txt' })).toMatchObject(refusedAs('nested repository', 'tool'));
    expect(await call('move', { from: 'tool', to: 'tools' })).toMatchObject({ ok: false, error: { code: 'PROTECTED_PATH' } });
    expect(readFileSync(join(wt, 'tool/x.txt'), 'utf8')).toBe('nested work\n');
    expect(existsSync(join(wt, 'tool/y.txt'))).toBe(false);
    expect(existsSync(join(wt, 'x.txt'))).toBe(false);

    await expect(host.release('a')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['tool/'] } });
    expect(readFileSync(join(wt, 'tool/x.txt'), 'utf8')).toBe('nested work\n');
  });

  it('in the shared checkout: the nested repository and an initialised submodule are read-only to tools', async () => {
    const repo = repoWithSubmodule();
    git(repo.dir, 'submodule', 'update', '--init', '--quiet');
    nestedRepositoryIn(repo.dir);
    const host = await hostFor(repo.dir, 'shared');
    await host.prepare({ conversation: 's' });
    const call = (tool: string, args: object) => host.gate.call('s', tool, args);
    expect(await call('read', { path: 'libs/sub/lib.txt' })).toMatchObject({ ok: true, value: { content: 'the library\n' } });
    expect(await call('edit', { path: 'libs/sub/lib.txt', oldString: 'the', newString: 'a' })).toMatchObject(
      refusedAs('submodule', 'libs/sub'),
    );
    expect(await call('write', { path: 'tool/x.txt', content: 'gone\n' })).toMatchObject(refusedAs('nested repository', 'tool'));
    expect(readFileSync(join(repo.dir, 'libs/sub/lib.txt'), 'utf8')).toBe('the library\n');
    expect(readFileSync(join(repo.dir, 'tool/x.txt'), 'utf8')).toBe('nested work\n');
    expect(await call('write', { path: 'libs/ok.txt', content: 'fine\n' })).toMatchObject({ ok: true });
  });
});

describe('copy workspaces', () => {
  it('over a commit with a submodule: a write there is refused and the copy holds nothing', async () => {
    const repo = repoWithSubmodule();
    const host = await hostFor(repo.dir, 'copy');
    await host.prepare({ conversation: 'c' });
    expect(await host.gate.call('c', 'write', { path: 'libs/sub/work.txt', content: 'w\n' })).toMatchObject(
      refusedAs('submodule', 'libs/sub'),
    );
    expect(await host.gate.call('c', 'move', { from: 'libs', to: 'vendor' })).toMatchObject(refusedAs('submodule', 'libs/sub'));
    expect(existsSync(join(repo.dir, '.gatefs/copies/c/libs'))).toBe(false);
    expect(await host.gate.call('c', 'write', { path: 'libs/new.txt', content: 'mine\n' })).toMatchObject({ ok: true });
    await expect(host.release('c')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['libs/new.txt'] } });
  });

  it('over a plain folder holding a nested repository: readable, a write there refused', async () => {
    const repo = makeTempRepo();
    cleanups.push(() => repo.cleanup());
    const folder = join(repo.dir, '..', 'plain');
    mkdirSync(folder);
    writeFileSync(join(folder, 'top.txt'), 'top\n');
    nestedRepositoryIn(folder);
    const host = await hostFor(folder, 'copy');
    await host.prepare({ conversation: 'c' });
    expect(await host.gate.call('c', 'read', { path: 'tool/x.txt' })).toMatchObject({ ok: true, value: { content: 'nested work\n' } });
    expect(await host.gate.call('c', 'write', { path: 'tool/x.txt', content: 'y\n' })).toMatchObject(
      refusedAs('nested repository', 'tool'),
    );
    expect(existsSync(join(folder, '.gatefs/copies/c/tool'))).toBe(false);
    expect(readFileSync(join(folder, 'tool/x.txt'), 'utf8')).toBe('nested work\n');
  });
});
