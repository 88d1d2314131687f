/**
 * `MemoryGit`: the git port on isomorphic-git over a memfs volume, for the memory host.
 *
 * isomorphic-git cannot operate linked worktrees, so a worktree is emulated the way git lays
 * one out: a working folder filled from the branch's commit, a `.git` file pointing at
 * `<gitdir>/worktrees/<name>`, whose `gitdir` and `HEAD` files name the folder and branch.
 * Status compares the folder with the branch's commit (content hashes; untracked files count
 * unless `.gitignore` ignores them). This writes refs, so it is only ever given a memory volume.
 */
import git, { type FsClient } from 'isomorphic-git';
import type { Volume } from 'memfs';
import { IsoObjectReader } from './iso-object-reader.js';
import { GitError, type AddWorktreeOptions, type GitContext, type GitPort, type WorktreeInfo } from './git-port.js';
import { checkoutTree, dirtyAgainstTree } from './memory-worktree.js';
import { checkoutPaths, readSparsePaths, withoutSkipWorktree, writeSparsePaths } from './memory-sparse.js';

type Vol = InstanceType<typeof Volume>;

export interface MemoryGitOptions {
  volume: Vol;
  /** The integration checkout inside the volume; its git dir is `<dir>/.git`. */
  dir: string;
}

/** The git port on isomorphic-git over memfs, worktrees emulated (see the file comment). */
export class MemoryGit implements GitPort {
  readonly objects: IsoObjectReader;
  private readonly volume: Vol;
  private readonly fs: FsClient;
  private readonly dir: string;
  private readonly gitdir: string;

  constructor(options: MemoryGitOptions) {
    this.volume = options.volume;
    this.fs = options.volume as unknown as FsClient;
    this.dir = options.dir;
    this.gitdir = `${options.dir}/.git`;
    this.objects = new IsoObjectReader({ fs: this.fs, gitdir: this.gitdir });
  }

  async isRepository(_context: GitContext): Promise<boolean> {
    return this.volume.existsSync(`${this.gitdir}/HEAD`);
  }

  async resolveCommit(ref: string, _context: GitContext): Promise<string> {
    let oid: string | undefined;
    try {
      oid = await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref });
    } catch {
      if (/^[0-9a-f]{4,40}$/.test(ref)) oid = await git.expandOid({ fs: this.fs, gitdir: this.gitdir, oid: ref }).catch(() => undefined);
    }
    if (!oid) throw new GitError('BAD_REF', 'resolve', `'${ref}' names no commit`);
    try {
      return (await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid })).oid;
    } catch (e) {
      throw new GitError('BAD_REF', 'resolve', `'${ref}' names no commit`, { cause: e });
    }
  }

  async branchHead(branch: string, _context: GitContext): Promise<string | null> {
    try {
      return await git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/heads/${branch}` });
    } catch {
      return null;
    }
  }

  async addWorktree(options: AddWorktreeOptions, context: GitContext): Promise<void> {
    const existing = await this.branchHead(options.branch, context);
    if (existing !== null && !options.existingBranch) {
      throw new GitError('COMMAND_FAILED', 'worktree add', `a branch named '${options.branch}' already exists`);
    }
    if (existing === null && options.existingBranch) {
      throw new GitError('BAD_REF', 'worktree add', `there is no branch named '${options.branch}'`);
    }
    const start = existing ?? options.base;
    if (this.volume.existsSync(options.path)) {
      throw new GitError('COMMAND_FAILED', 'worktree add', `'${options.path}' already exists`);
    }
    const name = options.path.slice(options.path.lastIndexOf('/') + 1);
    const meta = `${this.gitdir}/worktrees/${name}`;
    if (existing === null) await git.writeRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/heads/${options.branch}`, value: start });
    this.volume.mkdirSync(options.path, { recursive: true });
    const tree = await this.objects.commitTree(start);
    if (options.sparsePaths) await checkoutPaths(this.volume, this.objects, tree, options.path, options.sparsePaths);
    else await checkoutTree(this.volume, this.objects, tree, options.path);
    this.volume.mkdirSync(meta, { recursive: true });
    if (options.sparsePaths) writeSparsePaths(this.volume, meta, options.sparsePaths);
    this.volume.writeFileSync(`${meta}/gitdir`, `${options.path}/.git\n`);
    this.volume.writeFileSync(`${meta}/HEAD`, `ref: refs/heads/${options.branch}\n`);
    this.volume.writeFileSync(`${options.path}/.git`, `gitdir: ${meta}\n`);
  }

  async listWorktrees(context: GitContext): Promise<WorktreeInfo[]> {
    const main: WorktreeInfo = {
      path: this.dir,
      branch: await this.currentBranch(),
      head: await this.resolveCommit('HEAD', context).catch(() => null),
    };
    const root = `${this.gitdir}/worktrees`;
    if (!this.volume.existsSync(root)) return [main];
    const linked: WorktreeInfo[] = [];
    for (const name of (this.volume.readdirSync(root) as string[]).map(String).sort()) {
      const path = String(this.volume.readFileSync(`${root}/${name}/gitdir`, 'utf8'))
        .trim()
        .replace(/\/\.git$/, '');
      const head = String(this.volume.readFileSync(`${root}/${name}/HEAD`, 'utf8')).trim();
      const branch = head.startsWith('ref: ') ? head.slice(5) : null;
      const sha = branch ? await this.branchHead(branch.replace(/^refs\/heads\//, ''), context) : head;
      linked.push({ path, branch, head: sha });
    }
    return [main, ...linked];
  }

  async removeWorktree(path: string, context: GitContext, options: { force?: boolean } = {}): Promise<void> {
    const dirty = options.force ? [] : await this.dirtyFiles(path, context);
    if (dirty.length > 0) throw new GitError('COMMAND_FAILED', 'worktree remove', `'${path}' contains modified or untracked files`);
    const meta = this.metaOf(path);
    this.volume.rmSync(path, { recursive: true, force: true });
    this.volume.rmSync(meta, { recursive: true, force: true });
  }

  async pruneWorktrees(_context: GitContext): Promise<void> {
    const root = `${this.gitdir}/worktrees`;
    if (!this.volume.existsSync(root)) return;
    for (const name of (this.volume.readdirSync(root) as unknown[]).map(String)) {
      const pointer = String(this.volume.readFileSync(`${root}/${name}/gitdir`, 'utf8')).trim();
      if (!this.volume.existsSync(pointer)) this.volume.rmSync(`${root}/${name}`, { recursive: true, force: true });
    }
  }

  async dirtyFiles(path: string, context: GitContext, options: { includeIgnored?: boolean } = {}): Promise<string[]> {
    const head = String(this.volume.readFileSync(`${this.metaOf(path)}/HEAD`, 'utf8')).trim();
    const commit = head.startsWith('ref: ') ? await this.resolveCommit(head.slice(5), context) : head;
    const ignored = options.includeIgnored
      ? async () => false
      : (filepath: string) => git.isIgnored({ fs: this.fs, dir: path, gitdir: this.gitdir, filepath });
    const tree = await this.objects.commitTree(commit);
    const dirty = await dirtyAgainstTree(this.volume, this.objects, tree, path, ignored);
    const sparse = readSparsePaths(this.volume, this.metaOf(path));
    return sparse ? withoutSkipWorktree(this.volume, this.objects, tree, path, sparse, dirty) : dirty;
  }

  /** The gitlinks of the worktree's HEAD tree (a memory worktree keeps no index of its own). */
  async gitlinks(path: string, context: GitContext): Promise<string[]> {
    const head = String(this.volume.readFileSync(`${this.metaOf(path)}/HEAD`, 'utf8')).trim();
    const commit = head.startsWith('ref: ') ? await this.resolveCommit(head.slice(5), context) : head;
    const out: string[] = [];
    const pending: { prefix: string; tree: string }[] = [{ prefix: '', tree: await this.objects.commitTree(commit) }];
    while (pending.length > 0) {
      const { prefix, tree } = pending.pop()!;
      for (const e of await this.objects.readTree(tree)) {
        if (e.mode === '160000') out.push(prefix + e.name);
        else if (e.type === 'tree') pending.push({ prefix: `${prefix}${e.name}/`, tree: e.oid });
      }
    }
    return out.sort();
  }

  async addSparsePatterns(path: string, paths: readonly string[], _context: GitContext): Promise<void> {
    const meta = this.metaOf(path);
    if (!readSparsePaths(this.volume, meta))
      throw new GitError('COMMAND_FAILED', 'sparse-checkout add', `'${path}' is not a sparse worktree`);
    writeSparsePaths(this.volume, meta, paths);
  }

  async isAncestor(ancestor: string, commit: string, _context: GitContext): Promise<boolean> {
    if (ancestor === commit) return true;
    return git.isDescendent({ fs: this.fs, gitdir: this.gitdir, oid: commit, ancestor, depth: -1 });
  }

  async mergeBase(a: string, b: string, _context: GitContext): Promise<string | null> {
    const [base] = await git.findMergeBase({ fs: this.fs, gitdir: this.gitdir, oids: [a, b] });
    return base ?? null;
  }

  async deleteBranch(branch: string, expected: string, context: GitContext): Promise<void> {
    const head = await this.branchHead(branch, context);
    if (head !== expected) throw new GitError('COMMAND_FAILED', 'update-ref', `'${branch}' no longer points at ${expected}`);
    await git.deleteRef({ fs: this.fs, gitdir: this.gitdir, ref: `refs/heads/${branch}` });
  }

  private async currentBranch(): Promise<string | null> {
    const name = await git.currentBranch({ fs: this.fs, gitdir: this.gitdir, fullname: true }).catch(() => undefined);
    return name ?? null;
  }

  private metaOf(path: string): string {
    let pointer: string;
    try {
      pointer = String(this.volume.readFileSync(`${path}/.git`, 'utf8')).trim();
    } catch (e) {
      throw new GitError('COMMAND_FAILED', 'worktree', `'${path}' is not a worktree`, { cause: e });
    }
    if (!pointer.startsWith('gitdir: ')) throw new GitError('COMMAND_FAILED', 'worktree', `'${path}' is not a linked worktree`);
    return pointer.slice('gitdir: '.length);
  }
}
