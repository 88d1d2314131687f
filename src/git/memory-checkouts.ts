/**
 * `MemoryCheckouts`: the checkouts of a memfs repository and what they hold, laid out as git
 * lays out linked worktrees — the main checkout `dir` with its git dir `<dir>/.git`, and linked
 * ones: a folder whose `.git` file says `gitdir: <gitdir>/worktrees/<name>`, that folder holding
 * `gitdir` (back to the `.git` file) and `HEAD` (`ref: refs/heads/x`, or a SHA when detached).
 * Both memory ports (`MemoryGit`, `MemoryLandingGit`) find checkouts and compare them with
 * commits through it.
 *
 * A linked worktree has no index of its own: what it "tracks" is its HEAD commit's tree, and
 * its changes are its folder against that tree (memory-changes.ts). In a sparse worktree a
 * tracked file outside its sparse set that is absent from the folder is skip-worktree, not a
 * deletion (memory-sparse.ts).
 */
import git, { type FsClient } from 'isomorphic-git';
import type { Volume } from 'memfs';
import { isMissingPath } from '../ports/index.js';
import { GitError } from './git-port.js';
import { IsoObjectReader } from './iso-object-reader.js';
import { type FolderChange, folderChanges } from './memory-changes.js';
import { readRefSync, readText } from './memory-refs.js';
import { readSparsePaths } from './memory-sparse.js';
import { checkoutTree, removeEntry } from './memory-worktree.js';

type Vol = InstanceType<typeof Volume>;

/** One checkout: its folder, its own git dir (`HEAD` lives there), and whether it is the main one. */
export interface Checkout {
  dir: string;
  meta: string;
  main: boolean;
}

/** What a checkout's HEAD holds: the branch (full ref, null when detached) and its commit (null in an empty repository). */
interface CheckoutHead {
  branch: string | null;
  commit: string | null;
}

/** The checkouts of the repository whose main checkout is `dir` in `volume` (see the file comment). */
export class MemoryCheckouts {
  readonly gitdir: string;
  readonly fs: FsClient;
  readonly objects: IsoObjectReader;

  constructor(
    readonly volume: Vol,
    readonly dir: string,
  ) {
    this.gitdir = `${dir}/.git`;
    this.fs = volume as unknown as FsClient;
    this.objects = new IsoObjectReader({ fs: this.fs, gitdir: this.gitdir });
  }

  /** Throws `NOT_A_GIT_REPOSITORY` for `operation` unless the git dir holds a `HEAD` (as git finds a repository). */
  assertRepository(operation: string): void {
    if (readText(this.volume, `${this.gitdir}/HEAD`) === null) {
      throw new GitError('NOT_A_GIT_REPOSITORY', operation, `'${this.dir}' is not a git repository (its git dir has no HEAD)`);
    }
  }

  /** The checkout at `path`. `COMMAND_FAILED` when it is neither the main checkout nor a linked worktree of this repository. */
  at(path: string): Checkout {
    if (path === this.dir) return { dir: path, meta: this.gitdir, main: true };
    const linked = this.linkedAt(path);
    if (!linked) throw new GitError('COMMAND_FAILED', 'worktree', `'${path}' is not a worktree of this repository`);
    return linked;
  }

  /** The linked worktree of this repository at `path`, or null: its `.git` file must point into `<gitdir>/worktrees/`, and back. */
  linkedAt(path: string): Checkout | null {
    if (!this.isFile(`${path}/.git`)) return null;
    const pointer = readText(this.volume, `${path}/.git`) ?? '';
    const meta = pointer.startsWith('gitdir: ') ? pointer.slice('gitdir: '.length) : '';
    const inside = meta.startsWith(`${this.gitdir}/worktrees/`) && !meta.slice(this.gitdir.length).includes('/..');
    if (!inside || readText(this.volume, `${meta}/gitdir`) !== `${path}/.git`) return null;
    return { dir: path, meta, main: false };
  }

  /** Every checkout: the main one, then the linked ones by git dir name (their folders may be gone). */
  all(): Checkout[] {
    const found: Checkout[] = [{ dir: this.dir, meta: this.gitdir, main: true }];
    for (const name of this.list(`${this.gitdir}/worktrees`)) {
      const meta = `${this.gitdir}/worktrees/${name}`;
      const dir = (readText(this.volume, `${meta}/gitdir`) ?? '').replace(/\/\.git$/, '');
      found.push({ dir, meta, main: false });
    }
    return found;
  }

  /** Every checkout whose HEAD is `ref: <ref>` and whose folder exists. */
  ofBranch(ref: string): Checkout[] {
    return this.all().filter((c) => readText(this.volume, `${c.meta}/HEAD`) === `ref: ${ref}` && this.exists(c.dir));
  }

  /** What the checkout's HEAD holds. `COMMAND_FAILED` when it has no HEAD. */
  head(checkout: Checkout): CheckoutHead {
    const head = readText(this.volume, `${checkout.meta}/HEAD`);
    if (head === null) throw new GitError('COMMAND_FAILED', 'rev-parse', `'${checkout.dir}' has no HEAD`);
    if (head.startsWith('ref: ')) return { branch: head.slice(5), commit: readRefSync(this.volume, this.gitdir, head.slice(5)) };
    return { branch: null, commit: head };
  }

  /**
   * A git dir for a new linked worktree at `path`: its folder's name, or that name with the
   * first free number appended when another worktree already uses it (as `git worktree add` does).
   */
  freeMeta(path: string): string {
    const base = path.slice(path.lastIndexOf('/') + 1);
    for (let n = 0; ; n++) {
      const meta = `${this.gitdir}/worktrees/${n === 0 ? base : `${base}${n}`}`;
      const owner = readText(this.volume, `${meta}/gitdir`);
      if (owner === null || owner === `${path}/.git`) return meta;
    }
  }

  /** Makes `path` a linked worktree whose HEAD file holds `head` (creating the folder). Result: the checkout. */
  link(path: string, head: string): Checkout {
    const meta = this.freeMeta(path);
    this.volume.mkdirSync(path, { recursive: true });
    this.volume.mkdirSync(meta, { recursive: true });
    this.volume.writeFileSync(`${meta}/gitdir`, `${path}/.git\n`);
    this.volume.writeFileSync(`${meta}/HEAD`, `${head}\n`);
    this.volume.writeFileSync(`${path}/.git`, `gitdir: ${meta}\n`);
    return { dir: path, meta, main: false };
  }

  /** The sparse paths of a checkout, or null for a full one (the main checkout is always full). */
  sparse(checkout: Checkout): Set<string> | null {
    return checkout.main ? null : readSparsePaths(this.volume, checkout.meta);
  }

  /**
   * The checkout's changes against `tree` (null: an empty tree): untracked files not ignored
   * unless `includeIgnored`; in a sparse worktree, absent files outside its sparse set are not
   * deletions.
   */
  async changes(checkout: Checkout, tree: string | null, options: { includeIgnored?: boolean } = {}): Promise<FolderChange[]> {
    const ignored = options.includeIgnored
      ? async () => false
      : (filepath: string) => git.isIgnored({ fs: this.fs, dir: checkout.dir, gitdir: this.gitdir, filepath });
    const changes = await folderChanges(this.volume, this.objects, tree, checkout.dir, ignored);
    const sparse = this.sparse(checkout);
    return sparse ? changes.filter((c) => c.status !== 'deleted' || sparse.has(c.path)) : changes;
  }

  /** Empties the folder `dir` but its top-level `.git`, and fills it from `tree`. */
  async refill(dir: string, tree: string): Promise<void> {
    for (const name of this.list(dir)) if (name !== '.git') removeEntry(this.volume, `${dir}/${name}`);
    await checkoutTree(this.volume, this.objects, tree, dir);
  }

  /**
   * Brings the main checkout's index (isomorphic-git's, the one index a memory repository has)
   * in line with its folder for `files`: present ones added, absent ones removed.
   */
  async syncIndex(files: ReadonlyArray<{ path: string; present: boolean }>): Promise<void> {
    const where = { fs: this.fs, dir: this.dir, gitdir: this.gitdir };
    for (const file of files) {
      if (file.present) await git.add({ ...where, filepath: file.path, force: true });
      else await git.remove({ ...where, filepath: file.path });
    }
  }

  /** True when something (a link included) is at `path`. */
  exists(path: string): boolean {
    try {
      this.volume.lstatSync(path);
      return true;
    } catch (e) {
      if (isMissingPath(e)) return false;
      throw e;
    }
  }

  private isFile(path: string): boolean {
    return this.exists(path) && this.volume.lstatSync(path).isFile();
  }

  /** The names in a folder, sorted; none when it does not exist. */
  private list(dir: string): string[] {
    return this.exists(dir) ? (this.volume.readdirSync(dir) as unknown[]).map(String).sort() : [];
  }
}
