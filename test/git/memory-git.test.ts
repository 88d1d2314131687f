/**
 * What only the memory twin of the git ports has, beside the git contract it shares with the git
 * program (test/git/contract/): its patch text against git's own, the main checkout's
 * isomorphic-git index kept in line, a fast-forward repeated after a crash, sparse worktrees
 * through a landing, memory remotes and their push-refusal seam, and determinism (the same
 * scenario gives the same SHAs).
 */
import git, { type FsClient } from 'isomorphic-git';
import { Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { MemoryGit } from '../../src/git/memory-git.js';
import { MemoryLandingGit } from '../../src/git/memory-landing-git.js';
import { createMemoryRemote, rejectNextPushes } from '../../src/git/memory-remote.js';
import { seedMemoryRepository } from '../../src/host/memory/memory-repository.js';
import { ManualClock } from '../../src/ports/clock.js';
import { makeTempRepo } from '../host/temp-repo.js';

const ctx = { tag: 't', chain: [] };
const T0 = Date.UTC(2026, 0, 1);
const alice = { name: 'alice', email: 'alice@example.invalid' };
const gatefs = { name: 'gatefs', email: 'gatefs@example.invalid' };
const numbers = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('');

async function setup() {
  const volume = new Volume();
  const head = (await seedMemoryRepository({
    volume,
    dir: '/repo',
    files: {
      'a.txt': numbers(12),
      'src/b.ts': 'B\n',
      'run.sh': 'echo\n',
      'bin.dat': new Uint8Array([1, 0, 2]),
      '.gitignore': 'ignored.log\n',
    },
    clock: new ManualClock(),
  })) as string;
  const port = new MemoryGit({ volume, dir: '/repo' });
  await port.addWorktree({ path: '/state/worktrees/x', branch: 'gatefs/x', base: head }, ctx);
  const landing = new MemoryLandingGit({ volume, dir: '/repo' });
  const read = (path: string) => String(volume.readFileSync(path, 'utf8'));
  return { volume, head, port, landing, read, fs: volume as unknown as FsClient };
}

const WT = '/state/worktrees/x';
const commitOpts = (message: string, timeMs = T0 + 60_000) => ({ message, author: alice, committer: gatefs, timeMs });

describe('MemoryLandingGit: diff', () => {
  it('lists tracked edits, deletions and untracked files (not ignored ones) with a unified patch', async () => {
    const { volume, head, port, landing } = await setup();
    volume.writeFileSync(`${WT}/a.txt`, numbers(12).replace('6\n', 'six\n'));
    volume.unlinkSync(`${WT}/src/b.ts`);
    volume.mkdirSync(`${WT}/new`);
    volume.writeFileSync(`${WT}/new/n.txt`, 'n');
    volume.writeFileSync(`${WT}/ignored.log`, 'noise');
    volume.writeFileSync(`${WT}/bin.dat`, new Uint8Array([1, 0, 3]));
    volume.chmodSync(`${WT}/run.sh`, 0o755);
    volume.unlinkSync(`${WT}/.gitignore`);
    volume.symlinkSync('a.txt', `${WT}/.gitignore`);
    const before = await port.dirtyFiles(WT, ctx);
    const d = await landing.diff(WT, { base: head, maxPatchBytes: 1 << 20 }, ctx);
    expect(d.files).toEqual([
      { path: '.gitignore', status: 'typechange' },
      { path: 'a.txt', status: 'modified' },
      { path: 'bin.dat', status: 'modified' },
      { path: 'ignored.log', status: 'added' },
      { path: 'new/n.txt', status: 'added' },
      { path: 'run.sh', status: 'modified' },
      { path: 'src/b.ts', status: 'deleted' },
    ]);
    expect(d.truncated).toBe(false);
    expect(d.patch).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n');
    expect(d.patch).toContain('diff --git a/bin.dat b/bin.dat\n');
    expect(d.patch).toContain('Binary files a/bin.dat and b/bin.dat differ\n');
    expect(d.patch).toContain('diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n');
    expect(d.patch).toContain('deleted file mode 100644\n');
    expect(d.patch).toContain('--- a/src/b.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-B\n');
    expect(d.patch).toContain('--- /dev/null\n+++ b/new/n.txt\n@@ -0,0 +1 @@\n+n\n\\ No newline at end of file\n');
    expect(d.patch).toContain('new file mode 120000\n');
    // The diff changed nothing: the worktree's status is the same.
    expect(await port.dirtyFiles(WT, ctx)).toEqual(before);
  });

  it('prints the same patch as the git program for the same change', async () => {
    const files = { 'a.txt': numbers(40), 'b.txt': '1\n2\n3', 'gone.txt': '1\n' };
    const repo = makeTempRepo(files);
    try {
      const edited = numbers(40).replace('5\n', '').replace('20\n', '20\n20.5\n').replace('38\n', '-38\n');
      repo.write({ 'a.txt': edited, 'b.txt': '1\n2\n3\n4', 'c.txt': '1\n2\n' });
      repo.git('rm', '--quiet', 'gone.txt');
      repo.git('add', '-A');
      const expected = repo.git('-c', 'core.abbrev=7', 'diff', '--cached', '--no-renames', '--no-ext-diff', '--no-color', 'HEAD');
      const volume = new Volume();
      const head = (await seedMemoryRepository({ volume, dir: '/repo', files, clock: new ManualClock() })) as string;
      volume.writeFileSync('/repo/a.txt', edited);
      volume.writeFileSync('/repo/b.txt', '1\n2\n3\n4');
      volume.writeFileSync('/repo/c.txt', '1\n2\n');
      volume.unlinkSync('/repo/gone.txt');
      const landing = new MemoryLandingGit({ volume, dir: '/repo' });
      const d = await landing.diff('/repo', { base: head, maxPatchBytes: 1 << 20 }, ctx);
      expect(d.patch.trimEnd()).toBe(expected);
    } finally {
      repo.cleanup();
    }
  });
});

describe('MemoryLandingGit: commit', () => {
  it('commits in the main checkout and keeps its index in line', async () => {
    const { volume, head, landing, fs } = await setup();
    volume.writeFileSync('/repo/a.txt', 'changed\n');
    volume.writeFileSync('/repo/new.txt', 'new\n');
    volume.unlinkSync('/repo/run.sh');
    const result = await landing.commit('/repo', commitOpts('main work'), ctx);
    expect(result.files.map((f) => f.status)).toEqual(['modified', 'added', 'deleted']);
    expect(await landing.readRef('refs/heads/main', ctx)).toBe(result.sha);
    expect(await landing.isAncestor(head, result.sha as string, ctx)).toBe(true);
    const matrix = await git.statusMatrix({ fs, dir: '/repo' });
    expect(matrix.filter(([, h, w, s]) => !(h === 1 && w === 1 && s === 1))).toEqual([]);
  });
});

describe('MemoryLandingGit: fastForward', () => {
  it('moves a branch checked out in a worktree and the main checkout, keeping their other local edits', async () => {
    const { volume, head, landing, read, fs } = await setup();
    volume.writeFileSync(`${WT}/src/b.ts`, 'B2\n');
    volume.writeFileSync(`${WT}/added.txt`, 'added\n');
    const next = (await landing.commit(WT, commitOpts('x'), ctx)).sha as string;
    volume.writeFileSync('/repo/a.txt', 'local edit\n');
    expect(await landing.fastForward('refs/heads/main', head, next, ctx)).toEqual({ outcome: 'moved' });
    expect(await landing.readRef('refs/heads/main', ctx)).toBe(next);
    expect(read('/repo/src/b.ts')).toBe('B2\n');
    expect(read('/repo/added.txt')).toBe('added\n');
    expect(read('/repo/a.txt')).toBe('local edit\n');
    const matrix = await git.statusMatrix({ fs, dir: '/repo' });
    expect(matrix.filter(([, h, w, s]) => !(h === 1 && w === 1 && s === 1))).toEqual([['a.txt', 1, 2, 1]]);
    // A linked worktree on the branch moves too.
    const port = new MemoryGit({ volume, dir: '/repo' });
    await port.addWorktree({ path: '/state/worktrees/p', branch: 'gatefs/p', base: head }, ctx);
    expect(await landing.fastForward('refs/heads/gatefs/p', head, next, ctx)).toEqual({ outcome: 'moved' });
    expect(read('/state/worktrees/p/src/b.ts')).toBe('B2\n');
    expect(await port.dirtyFiles('/state/worktrees/p', ctx)).toEqual([]);
  });

  it('is safe to repeat after the files moved but the ref did not (a crash in between)', async () => {
    const { volume, head, landing, read } = await setup();
    volume.writeFileSync(`${WT}/src/b.ts`, 'B2\n');
    const next = (await landing.commit(WT, commitOpts('x'), ctx)).sha as string;
    volume.writeFileSync('/repo/src/b.ts', 'B2\n');
    expect(await landing.fastForward('refs/heads/main', head, next, ctx)).toEqual({ outcome: 'moved' });
    expect(read('/repo/src/b.ts')).toBe('B2\n');
  });
});

describe('MemoryLandingGit: sparse worktrees', () => {
  it('does not take skip-worktree files for deletions, and a fast-forward leaves them absent', async () => {
    const { volume, head, port, landing, read } = await setup();
    await port.addWorktree({ path: '/state/worktrees/s', branch: 'gatefs/s', base: head, sparsePaths: ['a.txt'] }, ctx);
    volume.writeFileSync('/state/worktrees/s/a.txt', 'sparse edit\n');
    const result = await landing.commit('/state/worktrees/s', commitOpts('sparse'), ctx);
    expect(result.files).toEqual([{ path: 'a.txt', status: 'modified' }]);
    expect(await port.dirtyFiles('/state/worktrees/s', ctx)).toEqual([]);
    volume.writeFileSync(`${WT}/src/b.ts`, 'B2\n');
    const next = (await landing.commit(WT, commitOpts('x'), ctx)).sha as string;
    await landing.checkoutDetached('/state/land/s', result.sha as string, ctx);
    const merged = await landing.merge('/state/land/s', next, { message: 'Land', committer: gatefs, timeMs: T0 }, ctx);
    if (!merged.ok) throw new Error('conflict');
    const sha = merged.sha;
    expect(await landing.fastForward('refs/heads/gatefs/s', result.sha as string, sha, ctx)).toEqual({ outcome: 'moved' });
    expect(volume.existsSync('/state/worktrees/s/src/b.ts')).toBe(false);
    expect(read('/state/worktrees/s/a.txt')).toBe('sparse edit\n');
    expect(await port.dirtyFiles('/state/worktrees/s', ctx)).toEqual([]);
  });
});

describe('MemoryLandingGit: memory remotes', () => {
  it('pushes fast-forwards only, copies the objects, honours the rejection seam, and fetches back', async () => {
    const { volume, head, landing, fs } = await setup();
    await createMemoryRemote(volume, 'origin');
    expect(await landing.push('nowhere', head, 'main', ctx)).toMatchObject({ ok: false });
    expect(await landing.fetch('origin', 'main', ctx)).toBeNull();
    expect(await landing.push('origin', head, 'main', ctx)).toEqual({ ok: true });
    volume.writeFileSync(`${WT}/a.txt`, 'x\n');
    const x = (await landing.commit(WT, commitOpts('x'), ctx)).sha as string;
    rejectNextPushes(volume, 'origin', 2);
    expect(await landing.push('origin', x, 'main', ctx)).toMatchObject({ ok: false });
    expect(await landing.push('origin', x, 'main', ctx)).toMatchObject({ ok: false });
    expect(await landing.push('origin', x, 'main', ctx)).toEqual({ ok: true });
    const remote = await git.readCommit({ fs, gitdir: '/remotes/origin.git', oid: x });
    expect(remote.commit.parent).toEqual([head]);
    expect(
      String(await git.readBlob({ fs, gitdir: '/remotes/origin.git', oid: x, filepath: 'a.txt' }).then((b) => Buffer.from(b.blob))),
    ).toBe('x\n');
    expect(await landing.push('origin', head, 'main', ctx)).toEqual({ ok: false, detail: 'non-fast-forward' });
    expect(await landing.fetch('origin', 'main', ctx)).toBe(x);
    expect(await landing.readRef('refs/remotes/origin/main', ctx)).toBe(x);
    await expect(landing.fetch('nowhere', 'main', ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
  });

  it('fetches objects the local repository lacks', async () => {
    const a = await setup();
    const b = await setup();
    a.volume.writeFileSync(`${WT}/a.txt`, 'from a\n');
    const sha = (await a.landing.commit(WT, commitOpts('a'), ctx)).sha as string;
    await createMemoryRemote(a.volume, 'shared');
    expect(await a.landing.push('shared', sha, 'x', ctx)).toEqual({ ok: true });
    copyFolder(a.volume, b.volume, '/remotes/shared.git');
    await expect(b.landing.isAncestor(b.head, sha, ctx)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    expect(await b.landing.fetch('shared', 'x', ctx)).toBe(sha);
    expect(await b.landing.isAncestor(b.head, sha, ctx)).toBe(true);
  });
});

function copyFolder(from: InstanceType<typeof Volume>, to: InstanceType<typeof Volume>, dir: string): void {
  to.mkdirSync(dir, { recursive: true });
  for (const name of (from.readdirSync(dir) as unknown[]).map(String)) {
    const path = `${dir}/${name}`;
    if (from.statSync(path).isDirectory()) copyFolder(from, to, path);
    else to.writeFileSync(path, from.readFileSync(path) as Buffer);
  }
}

describe('MemoryLandingGit: determinism', () => {
  it('makes the same seed commit from the same files and clock', async () => {
    expect((await setup()).head).toBe((await setup()).head);
  });

  it('gives the same SHAs for the same scenario', async () => {
    const run = async () => {
      const { volume, head, landing } = await setup();
      await createMemoryRemote(volume, 'origin');
      volume.writeFileSync(`${WT}/src/b.ts`, 'B2\n');
      const x = (await landing.commit(WT, commitOpts('x'), ctx)).sha as string;
      volume.writeFileSync('/repo/a.txt', 'main\n');
      const m = (await landing.commit('/repo', commitOpts('m', T0 + 90_000), ctx)).sha as string;
      await landing.checkoutDetached('/state/land/main', m, ctx);
      const merged = await landing.merge('/state/land/main', x, { message: 'Land x', committer: gatefs, timeMs: T0 + 120_000 }, ctx);
      if (!merged.ok) throw new Error('conflict');
      const ff = await landing.fastForward('refs/heads/main', m, merged.sha, ctx);
      const pushed = await landing.push('origin', merged.sha, 'main', ctx);
      return {
        head,
        x,
        m,
        merged: merged.sha,
        ff,
        pushed,
        remote: await git.resolveRef({ fs: volume as unknown as FsClient, gitdir: '/remotes/origin.git', ref: 'refs/heads/main' }),
      };
    };
    const first = await run();
    expect(first.ff).toEqual({ outcome: 'moved' });
    expect(first.remote).toBe(first.merged);
    expect(await run()).toEqual(first);
  });
});
