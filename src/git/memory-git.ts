/**
 * `MemoryGit`: the git port on isomorphic-git over a memfs volume, for the memory host; the
 * git contract (test/git/contract/) holds it to what `CliGit` does with the git program.
 *
 * isomorphic-git cannot operate linked worktrees, so a worktree is emulated the way git lays
 * one out (memory-checkouts.ts): a working folder filled from the branch's commit, a `.git` file
 * pointing at `<gitdir>/worktrees/<name>`, whose `gitdir` and `HEAD` files name the folder and
 * branch. Status compares the folder with its HEAD commit (content hashes; untracked files count
 * unless `.gitignore` ignores them). Refs are read and moved synchronously (memory-refs.ts).
 * This writes refs, so it is only ever given a memory volume.
 */
import git from 'isomorphic-git';
import type { Volume } from 'memfs';
import type { IsoObjectReader } from './iso-object-reader.js';
import { GitError, type AddWorktreeOptions, type GitContext, type GitPort, type WorktreeInfo } from './git-port.js';
import { MemoryCheckouts } from './memory-checkouts.js';
import { readRefSync, swapRefSync, writeRefSync } from './memory-refs.js';
import { checkoutPaths, writeSparsePaths } from './memory-sparse.js';
import { checkoutTree, removeEntry } from './memory-worktree.js';

type Vol = InstanceType<typeof Volume>;

interface MemoryGitOptions {
  volume: Vol;
  /** The integration checkout inside the volume; its git dir is `<dir>/.git`. */
  dir: string;
}

/** The git port on isomorphic-git over memfs, worktrees emulated (see the file comment). */
export class MemoryGit implements GitPort {
  readonly objects: IsoObjectReader;
  private readonly repo: MemoryCheckouts;

  constructor(options: MemoryGitOptions) {
    this.repo = new MemoryCheckouts(options.volume, options.dir);
    this.objects = this.repo.objects;
  }

  async isRepository(_context: GitContext): Promise<boolean> {
    return this.repo.exists(`${this.repo.gitdir}/HEAD`);
  }

  async resolveCommit(ref: string, _context: GitContext): Promise<string> {
    const { fs, gitdir } = this.repo;
    try {
      const oid = await git.resolveRef({ fs, gitdir, ref }).catch((e: unknown) => {
        if (/^[0-9a-f]{4,40}$/.test(ref)) return git.expandOid({ fs, gitdir, oid: ref });
        throw e;
      });
      return (await git.readCommit({ fs, gitdir, oid })).oid;
    } catch (e) {
      throw new GitError('BAD_REF', 'resolve', `'${ref}' names no commit`, { cause: e });
    }
  }

  async branchHead(branch: string, _context: GitContext): Promise<string | null> {
    this.repo.assertRepository('rev-parse');
    return readRefSync(this.repo.volume, this.repo.gitdir, `refs/heads/${branch}`);
  }

  async addWorktree(options: AddWorktreeOptions, context: GitContext): Promise<void> {
    const existing = await this.branchHead(options.branch, context);
    if (existing !== null && !options.existingBranch) {
      throw new GitError('COMMAND_FAILED', 'worktree add', `a branch named '${options.branch}' already exists`);
    }
    if (existing === null && options.existingBranch) {
      throw new GitError('COMMAND_FAILED', 'worktree add', `invalid reference: ${options.branch}`);
    }
    // As git: a branch is checked out in one worktree at a time.
    const holder = (await this.listWorktrees(context)).find((w) => w.branch === `refs/heads/${options.branch}`);
    if (holder) throw new GitError('COMMAND_FAILED', 'worktree add', `'${options.branch}' is already checked out at '${holder.path}'`);
    const { volume } = this.repo;
    if (this.repo.exists(options.path) && (volume.readdirSync(options.path) as unknown[]).length > 0) {
      throw new GitError('COMMAND_FAILED', 'worktree add', `'${options.path}' already exists`);
    }
    const start = existing ?? (await this.resolveCommit(options.base, context));
    const tree = await this.objects.commitTree(start);
    if (existing === null) writeRefSync(volume, this.repo.gitdir, `refs/heads/${options.branch}`, start);
    const checkout = this.repo.link(options.path, `ref: refs/heads/${options.branch}`);
    if (options.sparsePaths) {
      writeSparsePaths(volume, checkout.meta, options.sparsePaths);
      await checkoutPaths(volume, this.objects, tree, options.path, options.sparsePaths);
    } else await checkoutTree(volume, this.objects, tree, options.path);
  }

  async listWorktrees(_context: GitContext): Promise<WorktreeInfo[]> {
    return this.repo.all().map((checkout) => {
      const { branch, commit } = this.repo.head(checkout);
      return { path: checkout.dir, branch, head: commit };
    });
  }

  async removeWorktree(path: string, context: GitContext, options: { force?: boolean } = {}): Promise<void> {
    const checkout = this.repo.at(path);
    if (checkout.main) throw new GitError('COMMAND_FAILED', 'worktree remove', `'${path}' is a main working tree`);
    const dirty = options.force ? [] : await this.dirtyFiles(path, context);
    if (dirty.length > 0) throw new GitError('COMMAND_FAILED', 'worktree remove', `'${path}' contains modified or untracked files`);
    removeEntry(this.repo.volume, path);
    removeEntry(this.repo.volume, checkout.meta);
  }

  async pruneWorktrees(_context: GitContext): Promise<void> {
    for (const checkout of this.repo.all()) {
      if (!checkout.main && !this.repo.exists(checkout.dir)) removeEntry(this.repo.volume, checkout.meta);
    }
  }

  async dirtyFiles(path: string, _context: GitContext, options: { includeIgnored?: boolean } = {}): Promise<string[]> {
    const checkout = this.repo.at(path);
    const { commit } = this.repo.head(checkout);
    const tree = commit === null ? null : await this.objects.commitTree(commit);
    return (await this.repo.changes(checkout, tree, options)).map((c) => c.path);
  }

  /** The gitlinks of the worktree's HEAD tree (a memory worktree keeps no index of its own). */
  async gitlinks(path: string, _context: GitContext): Promise<string[]> {
    const { commit } = this.repo.head(this.repo.at(path));
    if (commit === null) return [];
    const out: string[] = [];
    const pending: { prefix: string; tree: string }[] = [{ prefix: '', tree: await this.objects.commitTree(commit) }];
    for (let next = pending.pop(); next; next = pending.pop()) {
      for (const e of await this.objects.readTree(next.tree)) {
        if (e.mode === '160000') out.push(next.prefix + e.name);
        else if (e.type === 'tree') pending.push({ prefix: `${next.prefix}${e.name}/`, tree: e.oid });
      }
    }
    return out.sort();
  }

  async addSparsePatterns(path: string, paths: readonly string[], _context: GitContext): Promise<void> {
    const checkout = this.repo.at(path);
    if (!this.repo.sparse(checkout)) throw new GitError('COMMAND_FAILED', 'sparse-checkout add', `'${path}' is not a sparse worktree`);
    writeSparsePaths(this.repo.volume, checkout.meta, paths);
  }

  async isAncestor(ancestor: string, commit: string, _context: GitContext): Promise<boolean> {
    if (ancestor === commit) return true;
    return git.isDescendent({ fs: this.repo.fs, gitdir: this.repo.gitdir, oid: commit, ancestor, depth: -1 });
  }

  async mergeBase(a: string, b: string, _context: GitContext): Promise<string | null> {
    const [base] = await git.findMergeBase({ fs: this.repo.fs, gitdir: this.repo.gitdir, oids: [a, b] });
    return base ?? null;
  }

  async deleteBranch(branch: string, expected: string, _context: GitContext): Promise<void> {
    const moved = swapRefSync(this.repo.volume, this.repo.gitdir, `refs/heads/${branch}`, expected, null);
    if (moved) throw new GitError('COMMAND_FAILED', 'update-ref', `'${branch}' is at ${moved.head ?? 'nothing'}, not ${expected}`);
  }
}
