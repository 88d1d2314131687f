/**
 * The git contract, `diff` and `commit` of the landing port: what changed in a checkout against
 * a commit (tracked edits, deletions, type and mode changes, untracked files but not ignored
 * ones), the patch and its cap, and commits made of every change or of named paths only.
 */
import { describe, expect, it } from 'vitest';
import { ALICE, CTX, T0, by, mainHead, parseCommit, type GitWorld, type OpenWorld } from './world.js';

/** A worktree of a new branch `gatefs/x` at `main`; result: its folder and main's head. */
async function worktree(w: GitWorld): Promise<{ path: string; head: string }> {
  const head = await mainHead(w);
  const path = w.place('wt');
  await w.git.addWorktree({ path, branch: 'gatefs/x', base: head }, CTX);
  return { path, head };
}

/** Registers the diff and commit checks. */
export function diffAndCommitChecks(open: OpenWorld): void {
  describe('diff', () => {
    it('lists modified, deleted, added, mode- and type-changed files, skips ignored ones, and changes nothing', async () => {
      const w = await open();
      const { path, head } = await worktree(w);
      w.files.write(`${path}/a.txt`, 'A2\n');
      w.files.remove(`${path}/b.txt`);
      w.files.write(`${path}/new.txt`, 'N\n');
      w.files.write(`${path}/deep/bin2.dat`, new Uint8Array([0, 9, 0]));
      w.files.remove(`${path}/run.sh`);
      w.files.symlink('a.txt', `${path}/run.sh`);
      w.files.chmod(`${path}/src/c.ts`, 0o755);
      w.files.write(`${path}/x.log`, 'ignored\n');
      const before = { dirty: await w.git.dirtyFiles(path, CTX), files: w.files.snapshot(path) };
      const d = await w.landing.diff(path, { base: head, maxPatchBytes: 100_000 }, CTX);
      expect(d.files).toEqual([
        { path: 'a.txt', status: 'modified' },
        { path: 'b.txt', status: 'deleted' },
        { path: 'deep/bin2.dat', status: 'added' },
        { path: 'new.txt', status: 'added' },
        { path: 'run.sh', status: 'typechange' },
        { path: 'src/c.ts', status: 'modified' },
      ]);
      expect(d.truncated).toBe(false);
      expect(d.patch).toContain('diff --git a/a.txt b/a.txt\n');
      expect(d.patch).toContain('-A\n+A2\n');
      expect(d.patch).toContain('Binary files /dev/null and b/deep/bin2.dat differ\n');
      expect(d.patch).toContain('diff --git a/src/c.ts b/src/c.ts\nold mode 100644\nnew mode 100755\n');
      expect(d.patch).toContain('new file mode 120000\n');
      expect(d.patch).not.toContain('x.log');
      expect({ dirty: await w.git.dirtyFiles(path, CTX), files: w.files.snapshot(path) }).toEqual(before);
    });

    it('keeps to the paths asked for (files or folders, taken literally) and cuts a big patch at a line end within the cap', async () => {
      const w = await open({ 'a.txt': 'A\n', 'src/c.ts': 'C\n', '*.txt': 'star\n' });
      const { path, head } = await worktree(w);
      w.files.write(`${path}/a.txt`, `${Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n')}\n`);
      w.files.write(`${path}/src/c.ts`, 'C2\n');
      w.files.write(`${path}/src/d.ts`, 'D\n');
      w.files.write(`${path}/*.txt`, 'star2\n');
      const some = await w.landing.diff(path, { base: head, paths: ['src', '*.txt'], maxPatchBytes: 100_000 }, CTX);
      expect(some.files).toEqual([
        { path: '*.txt', status: 'modified' },
        { path: 'src/c.ts', status: 'modified' },
        { path: 'src/d.ts', status: 'added' },
      ]);
      expect(some.patch).not.toContain('a/a.txt');
      expect(await w.landing.diff(path, { base: head, paths: [], maxPatchBytes: 100_000 }, CTX)).toEqual({
        files: [],
        patch: '',
        truncated: false,
      });
      const cut = await w.landing.diff(path, { base: head, maxPatchBytes: 1000 }, CTX);
      expect(cut.truncated).toBe(true);
      expect(Buffer.byteLength(cut.patch)).toBeLessThanOrEqual(1000);
      expect(Buffer.byteLength(cut.patch)).toBeGreaterThan(900);
      expect(cut.patch.endsWith('\n')).toBe(true);
      expect(cut.files.map((f) => f.path)).toEqual(['*.txt', 'a.txt', 'src/c.ts', 'src/d.ts']);
    });

    it('does not count the absent files of a sparse worktree as deleted', async () => {
      const w = await open();
      const head = await mainHead(w);
      const path = w.place('sparse');
      await w.git.addWorktree({ path, branch: 'gatefs/s', base: head, sparsePaths: ['a.txt'] }, CTX);
      w.files.write(`${path}/a.txt`, 'A2\n');
      const d = await w.landing.diff(path, { base: head, maxPatchBytes: 10_000 }, CTX);
      expect(d.files).toEqual([{ path: 'a.txt', status: 'modified' }]);
    });
  });

  describe('commit', () => {
    it("commits every change (untracked files, not ignored ones) on the worktree's branch as given; then nothing is left", async () => {
      const w = await open();
      const { path, head } = await worktree(w);
      w.files.write(`${path}/a.txt`, 'A2\n');
      w.files.remove(`${path}/b.txt`);
      w.files.write(`${path}/n/n.txt`, 'N\n');
      w.files.write(`${path}/x.log`, 'ignored\n');
      const r = await w.landing.commit(path, by('agent work\n\nbody'), CTX);
      expect(r.files).toEqual([
        { path: 'a.txt', status: 'modified' },
        { path: 'b.txt', status: 'deleted' },
        { path: 'n/n.txt', status: 'added' },
      ]);
      expect(await w.landing.readRef('refs/heads/gatefs/x', CTX)).toBe(r.sha);
      expect(await w.landing.readRef('refs/heads/main', CTX)).toBe(head);
      const seconds = (T0 + 60_000) / 1000;
      expect(parseCommit(await w.commitText(r.sha!))).toMatchObject({
        parents: [head],
        author: `${ALICE.name} <${ALICE.email}> ${seconds} +0000`,
        committer: `gatefs <gatefs@gatefs.invalid> ${seconds} +0000`,
        message: 'agent work\n\nbody\n',
      });
      expect(await w.git.dirtyFiles(path, CTX)).toEqual([]);
      expect(await w.landing.commit(path, by('nothing'), CTX)).toEqual({ sha: null, files: [] });
      expect(await w.landing.readRef('refs/heads/gatefs/x', CTX)).toBe(r.sha);
    });

    it('cleans the message as git does: blank lines at the ends dropped, runs of them made one, trailing spaces gone', async () => {
      const w = await open();
      const { path } = await worktree(w);
      w.files.write(`${path}/a.txt`, 'A2\n');
      const r = await w.landing.commit(path, by('\n\n  Subject line  \n\n\n\nbody\t\n\n'), CTX);
      expect(parseCommit(await w.commitText(r.sha!)).message).toBe('  Subject line\n\nbody\n');
    });

    it('with paths commits only those (files or folders, literal), leaving every other change as it was; a path naming nothing is refused', async () => {
      const w = await open();
      const { path, head } = await worktree(w);
      w.files.write(`${path}/a.txt`, 'A2\n');
      w.files.write(`${path}/src/c.ts`, 'C2\n');
      w.files.write(`${path}/src/new.ts`, 'new\n');
      w.files.remove(`${path}/run.sh`);
      const r = await w.landing.commit(path, { ...by('only src'), paths: ['src', 'run.sh'] }, CTX);
      expect(r.files).toEqual([
        { path: 'run.sh', status: 'deleted' },
        { path: 'src/c.ts', status: 'modified' },
        { path: 'src/new.ts', status: 'added' },
      ]);
      expect(parseCommit(await w.commitText(r.sha!)).parents).toEqual([head]);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual(['a.txt']);
      expect(w.files.read(`${path}/a.txt`)).toBe('A2\n');
      expect(await w.landing.commit(path, { ...by('x'), paths: ['src'] }, CTX)).toEqual({ sha: null, files: [] });
      expect(await w.landing.commit(path, { ...by('x'), paths: [] }, CTX)).toEqual({ sha: null, files: [] });
      // A path that names nothing, tracked or on disk, is git's "pathspec did not match any files".
      await expect(w.landing.commit(path, { ...by('x'), paths: ['docs'] }, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      expect(await w.git.dirtyFiles(path, CTX)).toEqual(['a.txt']);
    });

    it('refuses an empty message and a name git would rewrite (COMMAND_FAILED), committing nothing', async () => {
      const w = await open();
      const { path, head } = await worktree(w);
      w.files.write(`${path}/a.txt`, 'A2\n');
      await expect(w.landing.commit(path, by('  \n\t\n'), CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      const bad = { ...by('fine'), author: { name: 'Mallory <m@x>', email: 'm@x' } };
      await expect(w.landing.commit(path, bad, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      expect(await w.landing.readRef('refs/heads/gatefs/x', CTX)).toBe(head);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual(['a.txt']);
    });

    it('makes the first commit of an empty repository', async () => {
      const w = await open(null);
      expect(await w.landing.readRef('refs/heads/main', CTX)).toBeNull();
      w.files.write(`${w.repo}/first.txt`, 'F\n');
      const r = await w.landing.commit(w.repo, by('first'), CTX);
      expect(r.files).toEqual([{ path: 'first.txt', status: 'added' }]);
      expect(await w.landing.readRef('refs/heads/main', CTX)).toBe(r.sha);
      expect(parseCommit(await w.commitText(r.sha!)).parents).toEqual([]);
    });

    it('commits in the main checkout, which is clean afterwards', async () => {
      const w = await open();
      const head = await mainHead(w);
      w.files.write(`${w.repo}/a.txt`, 'changed\n');
      w.files.write(`${w.repo}/new.txt`, 'new\n');
      w.files.remove(`${w.repo}/run.sh`);
      const r = await w.landing.commit(w.repo, by('main work'), CTX);
      expect(r.files).toEqual([
        { path: 'a.txt', status: 'modified' },
        { path: 'new.txt', status: 'added' },
        { path: 'run.sh', status: 'deleted' },
      ]);
      expect(await w.landing.readRef('refs/heads/main', CTX)).toBe(r.sha);
      expect(await w.landing.isAncestor(head, r.sha!, CTX)).toBe(true);
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual([]);
      expect(await w.landing.diff(w.repo, { base: r.sha!, maxPatchBytes: 1000 }, CTX)).toEqual({ files: [], patch: '', truncated: false });
    });
  });
}
