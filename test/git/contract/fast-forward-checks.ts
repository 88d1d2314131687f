/**
 * The git contract, `fastForward`: a compare-and-swap of a branch that brings every checkout of
 * it along, keeping their own changes; `stale` when the branch is elsewhere; `blocked` — with
 * its reason and the paths, and nothing changed — when the move would overwrite an uncommitted
 * change (`UNCOMMITTED_CHANGES`) or a file or folder the checkout does not track, ignored ones
 * included (`UNTRACKED_FILES`: src/git/checkout-safety.ts).
 */
import { describe, expect, it } from 'vitest';
import { CTX, apply, by, commitOnBranch, mainHead, type Change, type GitWorld, type OpenWorld } from './world.js';

const MAIN = 'refs/heads/main';

/** Main's head and a commit on branch `side` made from it with `change`. */
async function ahead(w: GitWorld, change: Change): Promise<{ expected: string; next: string }> {
  const expected = await mainHead(w);
  return { expected, next: await commitOnBranch(w, 'side', expected, change) };
}

/** Expects moving main to `next` blocked for `reason` on exactly `files`, with main and every byte of the checkout unchanged. */
async function expectBlocked(w: GitWorld, next: string, reason: string, files: string[]): Promise<void> {
  const expected = await mainHead(w);
  const before = w.files.snapshot(w.repo);
  expect(await w.landing.fastForward(MAIN, expected, next, CTX)).toEqual({ outcome: 'blocked', reason, files });
  expect(await mainHead(w)).toBe(expected);
  expect(w.files.snapshot(w.repo)).toEqual(before);
}

/** Registers the fast-forward checks. */
export function fastForwardChecks(open: OpenWorld): void {
  describe('fastForward', () => {
    it('moves a checked-out branch and its files, keeping an unrelated local edit; repeating it answers moved', async () => {
      const w = await open();
      const { expected, next } = await ahead(w, { write: { 'a.txt': 'A2\n', 'src/c.ts': 'C2\n', 'src/d/new.ts': 'new\n' } });
      w.files.write(`${w.repo}/b.txt`, 'local edit\n');
      expect(await w.landing.fastForward(MAIN, expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(await mainHead(w)).toBe(next);
      expect(w.files.read(`${w.repo}/a.txt`)).toBe('A2\n');
      expect(w.files.read(`${w.repo}/src/d/new.ts`)).toBe('new\n');
      expect(w.files.read(`${w.repo}/b.txt`)).toBe('local edit\n');
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual(['b.txt']);
      expect(await w.landing.fastForward(MAIN, expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual(['b.txt']);
    });

    it('is stale when the branch is not at the expected commit (or does not exist), and changes nothing', async () => {
      const w = await open();
      const { expected, next } = await ahead(w, { write: { 'a.txt': 'A2\n' } });
      w.files.write(`${w.repo}/b.txt`, 'person\n');
      const person = (await w.landing.commit(w.repo, by('a person commits meanwhile'), CTX)).sha!;
      expect(await w.landing.fastForward(MAIN, expected, next, CTX)).toEqual({ outcome: 'stale', head: person });
      expect(await mainHead(w)).toBe(person);
      expect(w.files.read(`${w.repo}/a.txt`)).toBe('A\n');
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual([]);
      await w.landing.pinRef('refs/heads/elsewhere', person, CTX);
      expect(await w.landing.fastForward('refs/heads/elsewhere', expected, next, CTX)).toEqual({ outcome: 'stale', head: person });
      expect(await w.landing.fastForward('refs/heads/nobody', expected, next, CTX)).toEqual({ outcome: 'stale', head: null });
      expect(await w.landing.readRef('refs/heads/nobody', CTX)).toBeNull();
    });

    it('moves a branch no checkout holds, and a linked worktree on the branch with its files', async () => {
      const w = await open();
      const { expected, next } = await ahead(w, { write: { 'src/c.ts': 'C2\n', 'added.txt': 'added\n' } });
      await w.landing.pinRef('refs/heads/target', expected, CTX);
      expect(await w.landing.fastForward('refs/heads/target', expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(await w.landing.readRef('refs/heads/target', CTX)).toBe(next);
      const parent = w.place('parent');
      await w.git.addWorktree({ path: parent, branch: 'gatefs/p', base: expected }, CTX);
      w.files.write(`${parent}/b.txt`, 'parent edit\n');
      expect(await w.landing.fastForward('refs/heads/gatefs/p', expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(w.files.read(`${parent}/src/c.ts`)).toBe('C2\n');
      expect(w.files.read(`${parent}/added.txt`)).toBe('added\n');
      expect(await w.git.dirtyFiles(parent, CTX)).toEqual(['b.txt']);
    });

    it('leaves the absent files of a sparse worktree absent', async () => {
      const w = await open();
      const { expected, next } = await ahead(w, { write: { 'a.txt': 'A2\n', 'src/c.ts': 'C2\n' } });
      const sparse = w.place('sparse');
      await w.git.addWorktree({ path: sparse, branch: 'gatefs/s', base: expected, sparsePaths: ['a.txt'] }, CTX);
      expect(await w.landing.fastForward('refs/heads/gatefs/s', expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(w.files.snapshot(sparse)).toEqual({ 'a.txt': 'A2\n' });
      expect(await w.git.dirtyFiles(sparse, CTX)).toEqual([]);
    });

    it('is blocked by an uncommitted edit to a file the move changes (UNCOMMITTED_CHANGES)', async () => {
      const w = await open();
      const { next } = await ahead(w, { write: { 'a.txt': 'A2\n', 'src/c.ts': 'C2\n' } });
      w.files.write(`${w.repo}/a.txt`, 'mine\n');
      await expectBlocked(w, next, 'UNCOMMITTED_CHANGES', ['a.txt']);
    });

    it('is blocked by a tracked file the person replaced by a folder, when the move deletes it', async () => {
      const w = await open();
      const { next } = await ahead(w, { remove: ['b.txt'], write: { 'new.txt': 'n\n' } });
      w.files.remove(`${w.repo}/b.txt`);
      w.files.write(`${w.repo}/b.txt/mine.txt`, 'mine\n');
      await expectBlocked(w, next, 'UNCOMMITTED_CHANGES', ['b.txt']);
    });
  });

  describe('fastForward: checkout safety (untracked and ignored files are work)', () => {
    it('an untracked file the move would write is blocked; once moved away the move goes, and a file only rewritten never blocks', async () => {
      const w = await open();
      const { expected, next } = await ahead(w, { write: { 'fresh.txt': 'from the branch\n' } });
      w.files.write(`${w.repo}/fresh.txt`, 'mine, untracked\n');
      await expectBlocked(w, next, 'UNTRACKED_FILES', ['fresh.txt']);
      w.files.remove(`${w.repo}/fresh.txt`);
      w.files.write(`${w.repo}/a.txt`, 'A\n');
      expect(await w.landing.fastForward(MAIN, expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(w.files.read(`${w.repo}/fresh.txt`)).toBe('from the branch\n');
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual([]);
    });

    it('an ignored file is not replaced by a committed one (the commit un-ignores it)', async () => {
      const w = await open();
      const { next } = await ahead(w, { write: { '.gitignore': '', 'keep.log': 'agent\n' } });
      w.files.write(`${w.repo}/keep.log`, 'mine\n');
      await expectBlocked(w, next, 'UNTRACKED_FILES', ['keep.log']);
    });

    it('a new file inside an untracked folder is blocked, naming the folder', async () => {
      const w = await open();
      const { next } = await ahead(w, { write: { 'build/new.txt': 'agent\n' } });
      w.files.write(`${w.repo}/build/out.bin`, 'compiled\n');
      await expectBlocked(w, next, 'UNTRACKED_FILES', ['build/']);
    });

    it('a file where an untracked folder is, and a folder where an untracked file is, are blocked', async () => {
      const w = await open();
      const { next } = await ahead(w, { write: { scratch: 'a file now\n', 'tools/run.sh': 'echo\n' } });
      w.files.write(`${w.repo}/scratch/idea.md`, 'idea\n');
      w.files.write(`${w.repo}/tools`, 'a file of mine\n');
      await expectBlocked(w, next, 'UNTRACKED_FILES', ['scratch/', 'tools']);
    });

    it('an untracked symbolic link in the way is blocked, and nothing is written through it', async () => {
      const w = await open();
      const { next } = await ahead(w, { write: { 'docs/new.md': 'doc\n', 'link.txt': 'replaced\n' } });
      const outside = w.place('outside');
      w.files.write(`${outside}/keep.txt`, 'outside\n');
      w.files.symlink(outside, `${w.repo}/docs`);
      w.files.symlink(`${outside}/keep.txt`, `${w.repo}/link.txt`);
      await expectBlocked(w, next, 'UNTRACKED_FILES', ['docs', 'link.txt']);
      expect(w.files.snapshot(outside)).toEqual({ 'keep.txt': 'outside\n' });
    });

    it('moves over untracked and ignored files out of its way, and replaces a tracked folder by a file', async () => {
      const w = await open({ '.gitignore': 'gen/\n', 'README.md': '# r\n', 'lib/x.ts': 'x\n', 'src/a.ts': 'a\n' });
      const { expected, next } = await ahead(w, { remove: ['lib'], write: { lib: 'now a file\n', 'src/a.ts': 'A\n', 'src/b.ts': 'b\n' } });
      const mine: Change = { write: { 'gen/out.ts': 'generated\n', 'notes.md': 'mine\n', 'src/gen/x.ts': 'generated\n' } };
      apply(w, w.repo, mine);
      expect(await w.landing.fastForward(MAIN, expected, next, CTX)).toEqual({ outcome: 'moved' });
      expect(w.files.snapshot(w.repo)).toEqual({
        '.gitignore': 'gen/\n',
        'README.md': '# r\n',
        'gen/': 'dir',
        'gen/out.ts': 'generated\n',
        lib: 'now a file\n',
        'notes.md': 'mine\n',
        'src/': 'dir',
        'src/a.ts': 'A\n',
        'src/b.ts': 'b\n',
        'src/gen/': 'dir',
        'src/gen/x.ts': 'generated\n',
      });
    });
  });
}
