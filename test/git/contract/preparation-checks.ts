/**
 * The git contract, preparation side (`GitPort`): refs resolved, branch heads, worktrees added,
 * listed, reported dirty, removed and pruned (sparse ones included), ancestry, compare-and-delete
 * of a branch, and the object reader.
 */
import { describe, expect, it } from 'vitest';
import { CTX, commitOnBranch, mainHead, type GitWorld, type OpenWorld } from './world.js';

/** A worktree of a new branch `gatefs/x` at `main`, at `place('wt')`. */
async function worktree(w: GitWorld, name = 'wt', branch = 'gatefs/x'): Promise<string> {
  const path = w.place(name);
  await w.git.addWorktree({ path, branch, base: await mainHead(w) }, CTX);
  return path;
}

/** Registers the preparation-side checks. */
export function preparationChecks(open: OpenWorld): void {
  describe('refs', () => {
    it('resolves HEAD, a branch, a short and a full SHA to the full SHA; a ref naming no commit, or read as an option, is BAD_REF', async () => {
      const w = await open();
      expect(await w.git.isRepository(CTX)).toBe(true);
      const head = await mainHead(w);
      for (const ref of ['HEAD', 'main', head.slice(0, 8), head]) expect(await w.git.resolveCommit(ref, CTX)).toBe(head);
      for (const ref of ['no-such-branch', '--output=/tmp/x', '', 'f'.repeat(40)]) {
        await expect(w.git.resolveCommit(ref, CTX)).rejects.toMatchObject({ name: 'GitError', code: 'BAD_REF' });
      }
    });

    it('branchHead: the commit of a branch, null for a missing one, and a GitError (never null) in a broken repository', async () => {
      const w = await open();
      const head = await mainHead(w);
      expect(await w.git.branchHead('main', CTX)).toBe(head);
      expect(await w.git.branchHead('no/such/branch', CTX)).toBeNull();
      w.breakRepository();
      for (const branch of ['main', 'no/such/branch']) {
        await expect(w.git.branchHead(branch, CTX)).rejects.toMatchObject({ name: 'GitError', code: 'NOT_A_GIT_REPOSITORY' });
        await expect(w.landing.readRef(`refs/heads/${branch}`, CTX)).rejects.toMatchObject({
          name: 'GitError',
          code: 'NOT_A_GIT_REPOSITORY',
        });
      }
    });
  });

  describe('worktrees', () => {
    it('adds a worktree on a new branch, lists it after the main checkout, and reports its changes (ignored files only when asked)', async () => {
      const w = await open();
      const head = await mainHead(w);
      const path = await worktree(w);
      expect(w.files.read(`${path}/src/c.ts`)).toBe('C\n');
      expect(await w.git.listWorktrees(CTX)).toEqual([
        { path: w.repo, branch: 'refs/heads/main', head },
        { path, branch: 'refs/heads/gatefs/x', head },
      ]);
      expect(await w.git.branchHead('gatefs/x', CTX)).toBe(head);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual([]);
      w.files.write(`${path}/a.txt`, 'changed\n');
      w.files.remove(`${path}/b.txt`);
      w.files.write(`${path}/new file.txt`, 'n\n');
      w.files.write(`${path}/deep/er/n.txt`, 'n\n');
      w.files.write(`${path}/noise.log`, 'ignored\n');
      w.files.chmod(`${path}/run.sh`, 0o755);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual(['a.txt', 'b.txt', 'deep/er/n.txt', 'new file.txt', 'run.sh']);
      expect(await w.git.dirtyFiles(path, CTX, { includeIgnored: true })).toEqual([
        'a.txt',
        'b.txt',
        'deep/er/n.txt',
        'new file.txt',
        'noise.log',
        'run.sh',
      ]);
    });

    it('reports a tracked file replaced by a folder (with what the folder holds) and a file turned into a link', async () => {
      const w = await open();
      const path = await worktree(w);
      w.files.remove(`${path}/b.txt`);
      w.files.write(`${path}/b.txt/inner.txt`, 'inner\n');
      w.files.remove(`${path}/a.txt`);
      w.files.symlink('run.sh', `${path}/a.txt`);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual(['a.txt', 'b.txt', 'b.txt/inner.txt']);
    });

    it('reports the changes of the main checkout too', async () => {
      const w = await open();
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual([]);
      w.files.write(`${w.repo}/a.txt`, 'changed\n');
      w.files.write(`${w.repo}/new.txt`, 'new\n');
      expect(await w.git.dirtyFiles(w.repo, CTX)).toEqual(['a.txt', 'new.txt']);
    });

    it('refuses a branch that exists, an existing branch that does not, and a folder that holds something (COMMAND_FAILED)', async () => {
      const w = await open();
      const head = await mainHead(w);
      await worktree(w);
      await expect(w.git.addWorktree({ path: w.place('again'), branch: 'gatefs/x', base: head }, CTX)).rejects.toMatchObject({
        code: 'COMMAND_FAILED',
      });
      await expect(
        w.git.addWorktree({ path: w.place('missing'), branch: 'gatefs/none', base: head, existingBranch: true }, CTX),
      ).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      w.files.write(`${w.place('taken')}/mine.txt`, 'mine\n');
      await expect(w.git.addWorktree({ path: w.place('taken'), branch: 'gatefs/y', base: head }, CTX)).rejects.toMatchObject({
        code: 'COMMAND_FAILED',
      });
      expect(w.files.snapshot(w.place('taken'))).toEqual({ 'mine.txt': 'mine\n' });
      expect((await w.git.listWorktrees(CTX)).map((t) => t.branch)).toEqual(['refs/heads/main', 'refs/heads/gatefs/x']);
    });

    it('checks out an existing branch at its own commit, and two worktree folders of one name in different places', async () => {
      const w = await open();
      const head = await mainHead(w);
      const side = await commitOnBranch(w, 'side', head, { write: { 'side.txt': 'side\n' } });
      const first = w.place('one/wt');
      const second = w.place('two/wt');
      await w.git.addWorktree({ path: first, branch: 'gatefs/one', base: side }, CTX);
      await w.git.removeWorktree(w.place('side'), CTX);
      await w.git.addWorktree({ path: second, branch: 'side', base: head, existingBranch: true }, CTX);
      expect(w.files.read(`${second}/side.txt`)).toBe('side\n');
      expect((await w.git.listWorktrees(CTX)).slice(1)).toEqual([
        { path: first, branch: 'refs/heads/gatefs/one', head: side },
        { path: second, branch: 'refs/heads/side', head: side },
      ]);
      expect(await w.git.dirtyFiles(first, CTX)).toEqual([]);
      expect(await w.git.dirtyFiles(second, CTX)).toEqual([]);
    });

    it('removes a clean worktree (its branch stays), refuses a dirty one unless forced, and prunes one whose folder is gone', async () => {
      const w = await open();
      const head = await mainHead(w);
      const path = await worktree(w);
      w.files.write(`${path}/untracked.txt`, 'work\n');
      await expect(w.git.removeWorktree(path, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      expect(w.files.read(`${path}/untracked.txt`)).toBe('work\n');
      w.files.remove(`${path}/untracked.txt`);
      await w.git.removeWorktree(path, CTX);
      expect(w.files.exists(path)).toBe(false);
      expect(await w.git.branchHead('gatefs/x', CTX)).toBe(head);
      const dirty = await worktree(w, 'dirty', 'gatefs/dirty');
      w.files.write(`${dirty}/a.txt`, 'edited\n');
      await w.git.removeWorktree(dirty, CTX, { force: true });
      expect(w.files.exists(dirty)).toBe(false);
      const gone = await worktree(w, 'gone', 'gatefs/gone');
      w.files.remove(gone);
      expect((await w.git.listWorktrees(CTX)).map((t) => t.path)).toEqual([w.repo, gone]);
      await w.git.pruneWorktrees(CTX);
      expect(await w.git.listWorktrees(CTX)).toEqual([{ path: w.repo, branch: 'refs/heads/main', head }]);
    });

    it('a sparse worktree holds only its paths, the rest absent and not dirty; a path added later is tracked as usual', async () => {
      const w = await open();
      const head = await mainHead(w);
      const path = w.place('sparse');
      await w.git.addWorktree({ path, branch: 'gatefs/s', base: head, sparsePaths: ['a.txt'] }, CTX);
      expect(w.files.snapshot(path)).toEqual({ 'a.txt': 'A\n' });
      expect(await w.git.dirtyFiles(path, CTX)).toEqual([]);
      w.files.write(`${path}/src/c.ts`, 'C\n');
      await w.git.addSparsePatterns(path, ['src/c.ts'], CTX);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual([]);
      w.files.write(`${path}/src/c.ts`, 'C2\n');
      w.files.write(`${path}/fresh.txt`, 'untracked\n');
      expect(await w.git.dirtyFiles(path, CTX)).toEqual(['fresh.txt', 'src/c.ts']);
    });
  });

  describe('submodules', () => {
    it('lists the submodule paths (gitlinks) of a worktree; an empty submodule folder is no change', async () => {
      const w = await open();
      const head = await mainHead(w);
      const linked = await w.commitGitlink('vendor', head);
      const path = w.place('wt');
      await w.git.addWorktree({ path, branch: 'gatefs/x', base: linked }, CTX);
      expect(await w.git.gitlinks(path, CTX)).toEqual(['vendor']);
      expect(await w.git.gitlinks(w.repo, CTX)).toEqual([]);
      expect(await w.git.dirtyFiles(path, CTX)).toEqual([]);
    });
  });

  describe('history', () => {
    it('proves ancestry, finds merge bases, and deletes a branch only while it is at the expected commit', async () => {
      const w = await open();
      const head = await mainHead(w);
      const one = await commitOnBranch(w, 'one', head, { write: { 'one.txt': '1\n' } });
      const two = await commitOnBranch(w, 'two', head, { write: { 'two.txt': '2\n' } });
      expect(await w.git.isAncestor(head, one, CTX)).toBe(true);
      expect(await w.git.isAncestor(one, head, CTX)).toBe(false);
      expect(await w.git.isAncestor(one, one, CTX)).toBe(true);
      expect(await w.git.isAncestor(one, two, CTX)).toBe(false);
      expect(await w.git.mergeBase(one, two, CTX)).toBe(head);
      expect(await w.git.mergeBase(head, one, CTX)).toBe(head);
      await w.git.removeWorktree(w.place('one'), CTX);
      await expect(w.git.deleteBranch('one', two, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      expect(await w.git.branchHead('one', CTX)).toBe(one);
      await w.git.deleteBranch('one', one, CTX);
      expect(await w.git.branchHead('one', CTX)).toBeNull();
    });

    it('reads commit trees, trees and blobs; a missing blob is OBJECT_MISSING, a missing commit BAD_REF', async () => {
      const w = await open();
      const head = await mainHead(w);
      const top = await w.git.objects.readTree(await w.git.objects.commitTree(head));
      expect(top.map((e) => [e.name, e.type, e.mode])).toEqual([
        ['.gitignore', 'blob', '100644'],
        ['a.txt', 'blob', '100644'],
        ['b.txt', 'blob', '100644'],
        ['bin.dat', 'blob', '100644'],
        ['run.sh', 'blob', '100644'],
        ['src', 'tree', '040000'],
      ]);
      const src = await w.git.objects.readTree(top[5]!.oid);
      expect(Buffer.from(await w.git.objects.readBlob(src[0]!.oid)).toString()).toBe('C\n');
      await expect(w.git.objects.readBlob('0'.repeat(40))).rejects.toMatchObject({ code: 'OBJECT_MISSING' });
      await expect(w.git.objects.commitTree('0'.repeat(40))).rejects.toMatchObject({ code: 'BAD_REF' });
    });
  });
}
