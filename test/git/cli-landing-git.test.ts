import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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
});

describe('CliLandingGit.fastForward', () => {
  function checkedOut() {
    const s = setup();
    const expected = s.repo.git('rev-parse', 'HEAD');
    const next = sideCommit(s.repo, { 'a.txt': 'A2\n', 'src/c.ts': 'C2\n' });
    return { ...s, expected, next };
  }

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
