/**
 * The git contract, the lander's checkouts: a detached checkout made and reset clean, a folder
 * that is not a worktree refused untouched, and merges (fast-forward, merge commit, a commit
 * already contained, a conflict that leaves the checkout as it was).
 */
import { describe, expect, it } from 'vitest';
import { CTX, commitOnBranch, landing, mainHead, parseCommit, type OpenWorld } from './world.js';

/** Registers the checkout and merge checks. */
export function mergeChecks(open: OpenWorld): void {
  describe('detached checkouts', () => {
    it('makes a detached checkout, then resets it to another commit with every untracked and ignored file removed', async () => {
      const w = await open();
      const first = await mainHead(w);
      const second = await commitOnBranch(w, 'side', first, { write: { 'a.txt': 'A2\n' } });
      const path = w.place('lander/merge');
      await w.landing.checkoutDetached(path, first, CTX);
      expect(w.files.read(`${path}/a.txt`)).toBe('A\n');
      expect(await w.landing.checkedOutBranch(path, CTX)).toBeNull();
      expect(await w.landing.checkedOutBranch(w.repo, CTX)).toBe('refs/heads/main');
      expect(await w.landing.checkedOutBranch(w.place('side'), CTX)).toBe('refs/heads/side');
      w.files.write(`${path}/a.txt`, 'dirty\n');
      w.files.write(`${path}/junk/junk.txt`, 'junk\n');
      w.files.write(`${path}/x.log`, 'ignored\n');
      await w.landing.checkoutDetached(path, second, CTX);
      expect(w.files.snapshot(path)).toEqual(w.files.snapshot(w.place('side')));
      expect((await w.git.listWorktrees(CTX)).find((t) => t.path === path)).toEqual({ path, branch: null, head: second });
      expect(await w.git.dirtyFiles(path, CTX, { includeIgnored: true })).toEqual([]);
    });

    it('refuses a folder that is not a worktree of the repository (NOT_A_GIT_REPOSITORY) and touches nothing in or around it', async () => {
      const w = await open();
      const head = await mainHead(w);
      for (const path of [w.place('stray'), `${w.repo}/.gatefs/lander`]) {
        w.files.write(`${path}/precious.txt`, 'user work\n');
        w.files.write(`${w.repo}/a.txt`, 'user edit\n');
        const before = w.files.snapshot(w.repo);
        await expect(w.landing.checkoutDetached(path, head, CTX)).rejects.toMatchObject({ code: 'NOT_A_GIT_REPOSITORY' });
        expect(w.files.snapshot(path)).toEqual({ 'precious.txt': 'user work\n' });
        expect(w.files.snapshot(w.repo)).toEqual(before);
      }
      expect(await w.landing.checkedOutBranch(w.repo, CTX)).toBe('refs/heads/main');
    });
  });

  describe('merge', () => {
    it('fast-forwards, makes a merge commit [HEAD, commit] by the committer, and knows a commit already contained', async () => {
      const w = await open();
      const base = await mainHead(w);
      const ahead = await commitOnBranch(w, 'ahead', base, { write: { 'a.txt': 'A2\n' } });
      const other = await commitOnBranch(w, 'other', base, { write: { 'b.txt': 'B2\n' } });
      const path = w.place('lander/merge');
      await w.landing.checkoutDetached(path, base, CTX);
      expect(await w.landing.merge(path, ahead, landing('land it'), CTX)).toEqual({ ok: true, sha: ahead, fastForward: true });
      expect(w.files.read(`${path}/a.txt`)).toBe('A2\n');
      const m = await w.landing.merge(path, other, landing('land it'), CTX);
      if (!m.ok) throw new Error(`conflicts: ${m.conflicts.join(', ')}`);
      expect(m.fastForward).toBe(false);
      const seconds = landing('').timeMs / 1000;
      expect(parseCommit(await w.commitText(m.sha))).toMatchObject({
        parents: [ahead, other],
        author: `gatefs <gatefs@gatefs.invalid> ${seconds} +0000`,
        committer: `gatefs <gatefs@gatefs.invalid> ${seconds} +0000`,
        message: 'land it\n',
      });
      expect(w.files.read(`${path}/a.txt`) + w.files.read(`${path}/b.txt`)).toBe('A2\nB2\n');
      expect(await w.git.dirtyFiles(path, CTX)).toEqual([]);
      expect(await w.landing.merge(path, other, landing('again'), CTX)).toEqual({ ok: true, sha: m.sha, fastForward: false });
      expect(await w.landing.merge(path, base, landing('again'), CTX)).toEqual({ ok: true, sha: m.sha, fastForward: false });
      expect(await w.landing.readRef('refs/heads/main', CTX)).toBe(base);
    });

    it('reports the conflicted files and leaves the checkout clean at its HEAD', async () => {
      const w = await open();
      const base = await mainHead(w);
      const one = await commitOnBranch(w, 'one', base, { write: { 'a.txt': 'one\n' } });
      const two = await commitOnBranch(w, 'two', base, { write: { 'a.txt': 'two\n', 'b.txt': 'B2\n' } });
      const path = w.place('lander/merge');
      await w.landing.checkoutDetached(path, one, CTX);
      const before = w.files.snapshot(path);
      expect(await w.landing.merge(path, two, landing('m'), CTX)).toEqual({ ok: false, conflicts: ['a.txt'] });
      expect((await w.git.listWorktrees(CTX)).find((t) => t.path === path)).toEqual({ path, branch: null, head: one });
      expect(w.files.snapshot(path)).toEqual(before);
      expect(await w.git.dirtyFiles(path, CTX, { includeIgnored: true })).toEqual([]);
    });
  });
}
