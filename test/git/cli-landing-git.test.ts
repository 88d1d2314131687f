import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliLandingGit } from '../../src/git/cli-landing-git.js';
import type { ExecRequest, HostExec } from '../../src/ports/host-exec.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const ctx = { tag: 'land', chain: ['c1'] };
const who = { name: 'Agent One', email: 'a1@gatefs.invalid' };
const gatefs = { name: 'gatefs', email: 'gatefs@gatefs.invalid' };
const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.cleanup()));

function setup(files: Record<string, string> = { 'a.txt': 'A\n', 'b.txt': 'B\n', 'src/c.ts': 'C\n' }) {
  const repo = makeTempRepo(files);
  repos.push(repo);
  const seen: ExecRequest[] = [];
  const real = new NodeHostExec();
  const exec: HostExec = { run: (r) => (seen.push(r), real.run(r)) };
  return { repo, git: new CliLandingGit({ repo: repo.dir, exec }), seen };
}

/** `git` in another folder (a worktree, a bare remote). */
function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** `git status --porcelain` entries, untrimmed (`XY path`). */
function status(dir: string, ...more: string[]): string[] {
  const out = execFileSync('git', ['status', '--porcelain', '-z', ...more], { cwd: dir, encoding: 'utf8' });
  return out.split('\0').filter(Boolean);
}

/** A commit on branch `side` (made from `main` and left behind), with `files` changed. */
function sideCommit(repo: TempRepo, files: Record<string, string>, from = 'main'): string {
  repo.git(
    'checkout',
    '-q',
    '-b',
    `side-${Object.keys(files)
      .join('-')
      .replace(/[^a-z]/g, '')}`,
    from,
  );
  repo.write(files);
  const sha = repo.commit('side');
  repo.git('checkout', '-q', 'main');
  return sha;
}

describe('CliLandingGit.diff', () => {
  it('lists modified, added (untracked), deleted and typechanged files, skips ignored ones, and leaves the real index alone', async () => {
    const { repo, git } = setup({ 'a.txt': 'A\n', 'b.txt': 'B\n', 't.txt': 'T\n', '.gitignore': '*.log\n' });
    const base = repo.git('rev-parse', 'HEAD');
    writeFileSync(join(repo.dir, 'a.txt'), 'A2\n');
    rmSync(join(repo.dir, 'b.txt'));
    writeFileSync(join(repo.dir, 'new.txt'), 'N\n');
    writeFileSync(join(repo.dir, 'bin.dat'), Buffer.from([0, 1, 2, 0]));
    rmSync(join(repo.dir, 't.txt'));
    symlinkSync('a.txt', join(repo.dir, 't.txt'));
    writeFileSync(join(repo.dir, 'x.log'), 'ignored\n');
    const index = readFileSync(join(repo.dir, '.git/index'));
    const d = await git.diff(repo.dir, { base, maxPatchBytes: 100_000 }, ctx);
    expect(d.files).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'b.txt', status: 'deleted' },
      { path: 'bin.dat', status: 'added' },
      { path: 'new.txt', status: 'added' },
      { path: 't.txt', status: 'typechange' },
    ]);
    expect(d.truncated).toBe(false);
    expect(d.patch).toContain('diff --git a/a.txt b/a.txt\n');
    expect(d.patch).toContain('-A\n+A2\n');
    expect(d.patch).toContain('Binary files /dev/null and b/bin.dat differ');
    expect(d.patch).not.toContain('x.log');
    expect(readFileSync(join(repo.dir, '.git/index'))).toEqual(index);
    expect(status(repo.dir)).toEqual([' M a.txt', ' D b.txt', ' T t.txt', '?? bin.dat', '?? new.txt']);
  });

  it('keeps to the paths asked for (files or folders, literal) and cuts a big patch at a line end', async () => {
    const { repo, git } = setup({ 'a.txt': 'A\n', 'src/c.ts': 'C\n', '*.txt': 'star\n' });
    const base = repo.git('rev-parse', 'HEAD');
    writeFileSync(join(repo.dir, 'a.txt'), `${Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n')}\n`);
    writeFileSync(join(repo.dir, 'src/c.ts'), 'C2\n');
    writeFileSync(join(repo.dir, 'src/d.ts'), 'D\n');
    writeFileSync(join(repo.dir, '*.txt'), 'star2\n');
    const some = await git.diff(repo.dir, { base, paths: ['src', '*.txt'], maxPatchBytes: 100_000 }, ctx);
    expect(some.files).toEqual([
      { path: '*.txt', status: 'modified' },
      { path: 'src/c.ts', status: 'modified' },
      { path: 'src/d.ts', status: 'added' },
    ]);
    expect(some.patch).not.toContain('a.txt');
    const cut = await git.diff(repo.dir, { base, maxPatchBytes: 1000 }, ctx);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.patch)).toBeLessThanOrEqual(1000);
    expect(Buffer.byteLength(cut.patch)).toBeGreaterThan(900);
    expect(cut.patch.endsWith('\n')).toBe(true);
    expect(cut.files.map((f) => f.path)).toEqual(['*.txt', 'a.txt', 'src/c.ts', 'src/d.ts']);
  });

  it('does not count the absent files of a sparse worktree as deleted', async () => {
    const { repo, git } = setup({ 'a.txt': 'A\n', 'hidden/h.txt': 'H\n' });
    const base = repo.git('rev-parse', 'HEAD');
    repo.git('sparse-checkout', 'set', '--no-cone', '/a.txt');
    expect(existsSync(join(repo.dir, 'hidden/h.txt'))).toBe(false);
    writeFileSync(join(repo.dir, 'a.txt'), 'A2\n');
    const d = await git.diff(repo.dir, { base, maxPatchBytes: 10_000 }, ctx);
    expect(d.files).toEqual([{ path: 'a.txt', status: 'modified' }]);
  });
});

describe('CliLandingGit.commit', () => {
  it('commits every change with the author, committer and time given, and says when there is nothing to commit', async () => {
    const { repo, git } = setup({ 'a.txt': 'A\n', 'b.txt': 'B\n', '.gitignore': '*.log\n' });
    writeFileSync(join(repo.dir, 'a.txt'), 'A2\n');
    rmSync(join(repo.dir, 'b.txt'));
    writeFileSync(join(repo.dir, 'n.txt'), 'N\n');
    writeFileSync(join(repo.dir, 'x.log'), 'ignored\n');
    const r = await git.commit(repo.dir, { message: 'agent work\n\nbody', author: who, committer: gatefs, timeMs: 1_700_000_000_999 }, ctx);
    expect(r.sha).toBe(repo.git('rev-parse', 'HEAD'));
    expect(r.files).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'b.txt', status: 'deleted' },
      { path: 'n.txt', status: 'added' },
    ]);
    expect(repo.git('log', '-1', '--format=%an|%ae|%at|%cn|%ce|%ct|%B')).toBe(
      'Agent One|a1@gatefs.invalid|1700000000|gatefs|gatefs@gatefs.invalid|1700000000|agent work\n\nbody',
    );
    expect(status(repo.dir, '--ignored')).toEqual(['!! x.log']);
    const again = await git.commit(repo.dir, { message: 'nothing', author: who, committer: gatefs, timeMs: 1 }, ctx);
    expect(again).toEqual({ sha: null, files: [] });
    expect(repo.git('rev-parse', 'HEAD')).toBe(r.sha);
  });

  it('with paths commits only those and leaves other changes, staged or not, as they were', async () => {
    const { repo, git } = setup({ 'a.txt': 'A\n', 'b.txt': 'B\n', 'src/c.ts': 'C\n', 'gone.txt': 'G\n' });
    writeFileSync(join(repo.dir, 'a.txt'), 'A2\n');
    writeFileSync(join(repo.dir, 'b.txt'), 'B2\n');
    repo.git('add', 'b.txt'); // staged by someone else: must not be swept in
    writeFileSync(join(repo.dir, 'src/c.ts'), 'C2\n');
    writeFileSync(join(repo.dir, 'src/new.ts'), 'new\n');
    rmSync(join(repo.dir, 'gone.txt'));
    const before = repo.git('rev-parse', 'HEAD');
    const r = await git.commit(repo.dir, { message: 'only src', paths: ['src', 'gone.txt'], author: who, committer: who, timeMs: 0 }, ctx);
    expect(r.files).toEqual([
      { path: 'gone.txt', status: 'deleted' },
      { path: 'src/c.ts', status: 'modified' },
      { path: 'src/new.ts', status: 'added' },
    ]);
    expect(repo.git('rev-parse', 'HEAD^')).toBe(before);
    expect(repo.git('show', 'HEAD:b.txt')).toBe('B');
    expect(status(repo.dir)).toEqual([' M a.txt', 'M  b.txt']);
    const none = await git.commit(repo.dir, { message: 'x', paths: ['src'], author: who, committer: who, timeMs: 0 }, ctx);
    expect(none).toEqual({ sha: null, files: [] });
  });

  it('makes the first commit of an empty repository', async () => {
    const { repo, git } = setup({});
    writeFileSync(join(repo.dir, 'first.txt'), 'F\n');
    const r = await git.commit(repo.dir, { message: 'first', author: who, committer: who, timeMs: 0 }, ctx);
    expect(r.files).toEqual([{ path: 'first.txt', status: 'added' }]);
    expect(repo.git('rev-parse', 'HEAD')).toBe(r.sha);
  });
});

describe('CliLandingGit checkouts and merges', () => {
  it('makes and then resets a detached checkout, removing untracked and ignored files', async () => {
    const { repo, git } = setup({ 'a.txt': 'A\n', '.gitignore': '*.log\n' });
    const first = repo.git('rev-parse', 'HEAD');
    repo.write({ 'a.txt': 'A2\n' });
    const second = repo.commit('second');
    const path = join(repo.dir, '..', 'lander', 'merge');
    await git.checkoutDetached(path, first, ctx);
    expect(readFileSync(join(path, 'a.txt'), 'utf8')).toBe('A\n');
    expect(await git.checkedOutBranch(path, ctx)).toBeNull();
    writeFileSync(join(path, 'a.txt'), 'dirty');
    writeFileSync(join(path, 'junk.txt'), 'junk');
    writeFileSync(join(path, 'x.log'), 'ignored');
    await git.checkoutDetached(path, second, ctx);
    expect(readFileSync(join(path, 'a.txt'), 'utf8')).toBe('A2\n');
    expect(existsSync(join(path, 'junk.txt'))).toBe(false);
    expect(existsSync(join(path, 'x.log'))).toBe(false);
    expect(gitIn(path, 'rev-parse', 'HEAD')).toBe(second);
    expect(await git.checkedOutBranch(repo.dir, ctx)).toBe('refs/heads/main');
  });

  it('refuses a folder that is not a worktree instead of cleaning the repository around it', async () => {
    const { repo, git } = setup();
    const path = join(repo.dir, '.gatefs', 'lander');
    mkdirSync(path, { recursive: true });
    writeFileSync(join(repo.dir, 'a.txt'), 'user edit');
    writeFileSync(join(path, 'precious.txt'), 'user work');
    await expect(git.checkoutDetached(path, repo.git('rev-parse', 'HEAD'), ctx)).rejects.toMatchObject({ code: 'NOT_A_GIT_REPOSITORY' });
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('user edit');
    expect(readFileSync(join(path, 'precious.txt'), 'utf8')).toBe('user work');
    expect(await git.checkedOutBranch(repo.dir, ctx)).toBe('refs/heads/main');
  });

  it('fast-forwards, makes a merge commit, and knows an already contained commit', async () => {
    const { repo, git } = setup();
    const base = repo.git('rev-parse', 'HEAD');
    const ahead = sideCommit(repo, { 'a.txt': 'A2\n' });
    const other = sideCommit(repo, { 'b.txt': 'B2\n' });
    const path = join(repo.dir, '..', 'merge');
    await git.checkoutDetached(path, base, ctx);
    const opts = { message: 'land it', committer: gatefs, timeMs: 1_700_000_000_000 };
    expect(await git.merge(path, ahead, opts, ctx)).toEqual({ ok: true, sha: ahead, fastForward: true });
    const m = await git.merge(path, other, opts, ctx);
    expect(m).toMatchObject({ ok: true, fastForward: false });
    if (!m.ok) throw new Error('unreachable');
    expect(gitIn(path, 'rev-parse', 'HEAD^1', 'HEAD^2')).toBe(`${ahead}\n${other}`);
    expect(gitIn(path, 'log', '-1', '--format=%cn|%ct|%s')).toBe('gatefs|1700000000|land it');
    expect(readFileSync(join(path, 'a.txt'), 'utf8') + readFileSync(join(path, 'b.txt'), 'utf8')).toBe('A2\nB2\n');
    expect(await git.merge(path, other, opts, ctx)).toEqual({ ok: true, sha: m.sha, fastForward: false });
  });

  it('reports a conflict and leaves the checkout clean at its old HEAD', async () => {
    const { repo, git } = setup();
    const one = sideCommit(repo, { 'a.txt': 'one\n' });
    const two = sideCommit(repo, { 'a.txt': 'two\n', 'b.txt': 'B2\n' });
    const path = join(repo.dir, '..', 'merge');
    await git.checkoutDetached(path, one, ctx);
    const r = await git.merge(path, two, { message: 'm', committer: gatefs, timeMs: 0 }, ctx);
    expect(r).toEqual({ ok: false, conflicts: ['a.txt'] });
    expect(gitIn(path, 'rev-parse', 'HEAD')).toBe(one);
    expect(gitIn(path, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});

describe('CliLandingGit.fastForward', () => {
  function checkedOut() {
    const s = setup();
    const expected = s.repo.git('rev-parse', 'HEAD');
    const next = sideCommit(s.repo, { 'a.txt': 'A2\n', 'src/c.ts': 'C2\n' });
    return { ...s, expected, next };
  }

  it('moves a checked-out branch and its files, keeping an unrelated local edit', async () => {
    const { repo, git, expected, next } = checkedOut();
    writeFileSync(join(repo.dir, 'b.txt'), 'local edit\n');
    expect(await git.fastForward('refs/heads/main', expected, next, ctx)).toEqual({ outcome: 'moved' });
    expect(repo.git('rev-parse', 'main')).toBe(next);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('A2\n');
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe('local edit\n');
    expect(status(repo.dir)).toEqual([' M b.txt']);
    expect(await git.fastForward('refs/heads/main', expected, next, ctx)).toEqual({ outcome: 'moved' });
  });

  it('is stale when the branch moved meanwhile, and changes nothing', async () => {
    const { repo, git, expected, next } = checkedOut();
    repo.write({ 'b.txt': 'person\n' });
    const person = repo.commit('a person commits mid-check');
    expect(await git.fastForward('refs/heads/main', expected, next, ctx)).toEqual({ outcome: 'stale', head: person });
    expect(repo.git('rev-parse', 'main')).toBe(person);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('A\n');
    expect(repo.git('status', '--porcelain')).toBe('');
    repo.git('branch', 'elsewhere', expected);
    repo.git('branch', '-f', 'elsewhere', person);
    expect(await git.fastForward('refs/heads/elsewhere', expected, next, ctx)).toEqual({ outcome: 'stale', head: person });
    expect(await git.fastForward('refs/heads/nobody', expected, next, ctx)).toEqual({ outcome: 'stale', head: null });
  });

  it('is blocked by an uncommitted edit to a file the move changes, and changes nothing', async () => {
    const { repo, git, expected, next } = checkedOut();
    writeFileSync(join(repo.dir, 'a.txt'), 'mine\n');
    expect(await git.fastForward('refs/heads/main', expected, next, ctx)).toEqual({
      outcome: 'blocked',
      reason: 'UNCOMMITTED_CHANGES',
      files: ['a.txt'],
    });
    expect(repo.git('rev-parse', 'main')).toBe(expected);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(repo.dir, 'src/c.ts'), 'utf8')).toBe('C\n');
  });

  it('is blocked by an untracked file the move would overwrite, and not by a file only touched', async () => {
    const { repo, git, expected, next } = checkedOut();
    const later = sideCommit(repo, { 'fresh.txt': 'from the branch\n' }, next);
    writeFileSync(join(repo.dir, 'fresh.txt'), 'mine, untracked\n');
    expect(await git.fastForward('refs/heads/main', expected, later, ctx)).toEqual({
      outcome: 'blocked',
      reason: 'UNTRACKED_FILES',
      files: ['fresh.txt'],
    });
    rmSync(join(repo.dir, 'fresh.txt'));
    writeFileSync(join(repo.dir, 'a.txt'), 'A\n'); // same bytes, new mtime: stale stat data in the index
    utimesSync(join(repo.dir, 'a.txt'), new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expect(await git.fastForward('refs/heads/main', expected, later, ctx)).toEqual({ outcome: 'moved' });
    expect(readFileSync(join(repo.dir, 'fresh.txt'), 'utf8')).toBe('from the branch\n');
    expect(status(repo.dir)).toEqual([]);
  });

  it('puts the files back when the branch moves between its files and its ref', async () => {
    const { repo, expected, next } = checkedOut();
    const person = sideCommit(repo, { 'b.txt': 'person\n' });
    const real = new NodeHostExec();
    const racing: HostExec = {
      run: async (r) => {
        // Someone else moves the branch right before the compare-and-swap.
        if (r.argv.includes('update-ref')) repo.git('update-ref', 'refs/heads/main', person, expected);
        return real.run(r);
      },
    };
    const git = new CliLandingGit({ repo: repo.dir, exec: racing });
    expect(await git.fastForward('refs/heads/main', expected, next, ctx)).toEqual({ outcome: 'stale', head: person });
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('A\n');
    expect(readFileSync(join(repo.dir, 'src/c.ts'), 'utf8')).toBe('C\n');
  });

  it('finishes after a crash between moving the files and moving the ref', async () => {
    const { repo, git, expected, next } = checkedOut();
    repo.git('read-tree', '-m', '-u', expected, next); // the first step only, as if killed after it
    expect(repo.git('rev-parse', 'main')).toBe(expected);
    expect(await git.fastForward('refs/heads/main', expected, next, ctx)).toEqual({ outcome: 'moved' });
    expect(repo.git('rev-parse', 'main')).toBe(next);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('moves a branch no worktree has checked out, and pins refs', async () => {
    const { repo, git, expected, next } = checkedOut();
    repo.git('branch', 'target', expected);
    expect(await git.fastForward('refs/heads/target', expected, next, ctx)).toEqual({ outcome: 'moved' });
    expect(await git.readRef('refs/heads/target', ctx)).toBe(next);
    await git.pinRef('refs/gatefs/submissions/s1', next, ctx);
    expect(await git.readRef('refs/gatefs/submissions/s1', ctx)).toBe(next);
    expect(await git.readRef('refs/heads/none', ctx)).toBeNull();
    expect(await git.isAncestor(expected, next, ctx)).toBe(true);
    expect(await git.isAncestor(next, expected, ctx)).toBe(false);
    expect(await git.countAhead(expected, next, ctx)).toBe(1);
    expect(await git.countAhead(next, expected, ctx)).toBe(0);
  });
});

describe('CliLandingGit names and remotes', () => {
  it('refuses refs, SHAs and remote names git could read as something else, before running anything', async () => {
    const { repo, git, seen } = setup();
    const head = repo.git('rev-parse', 'HEAD');
    for (const ref of [
      'main',
      'refs/heads/a..b',
      'refs/heads/x.lock',
      'refs/heads/@{-1}',
      'refs/heads/a b',
      '--output=x',
      'refs/heads/',
      'refs/heads/.x',
    ]) {
      await expect(git.readRef(ref, ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
    }
    for (const sha of ['HEAD', head.slice(0, 12), '--all', `${head}~1`]) {
      await expect(git.isAncestor(sha, head, ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
    }
    for (const remote of ['-uupload-pack=touch x', '/tmp/bare', 'ext::sh -c x', '']) {
      await expect(git.fetch(remote, 'main', ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
      await expect(git.push(remote, head, 'main', ctx)).rejects.toMatchObject({ code: 'BAD_REF' });
    }
    expect(seen).toEqual([]);
  });

  it('pushes to a bare remote, reports a refusal by its pre-receive hook, and fetches (a missing branch is null)', async () => {
    const { repo, git } = setup();
    const bare = join(repo.dir, '..', 'remote.git');
    gitIn(join(repo.dir, '..'), 'init', '--bare', '--quiet', bare);
    repo.git('remote', 'add', 'origin', bare);
    const head = repo.git('rev-parse', 'HEAD');
    expect(await git.push('origin', head, 'main', ctx)).toEqual({ ok: true });
    expect(gitIn(bare, 'rev-parse', 'refs/heads/main')).toBe(head);
    expect(await git.fetch('origin', 'main', ctx)).toBe(head);
    expect(await git.fetch('origin', 'no-such-branch', ctx)).toBeNull();
    writeFileSync(join(bare, 'hooks/pre-receive'), '#!/bin/sh\necho "the remote says no" >&2\nexit 1\n');
    chmodSync(join(bare, 'hooks/pre-receive'), 0o755);
    repo.write({ 'a.txt': 'A2\n' });
    const next = repo.commit('next');
    const r = await git.push('origin', next, 'main', ctx);
    expect(r).toMatchObject({ ok: false });
    if (r.ok) throw new Error('unreachable');
    expect(r.detail).toContain('the remote says no');
    expect(gitIn(bare, 'rev-parse', 'refs/heads/main')).toBe(head);
    await expect(git.fetch('nowhere', 'main', ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
  });
});
