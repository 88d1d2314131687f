/**
 * `CliGit`: the git port on the git program, run through the host-exec port (so every command
 * lands in the run log with its task tag and conversation chain). Production implementation.
 *
 * Every command runs through `NeutralGitRunner` (./neutral-git-runner.ts): no hooks, no
 * fsmonitor, no global or system config, every filter, diff and merge driver the config of the
 * folder it runs in names emptied. A worktree is made empty (`worktree add --no-checkout`) and
 * filled by `read-tree` in a session read inside it, so a driver that only its git dir or
 * branch enables (`includeIf`) is emptied too; `worktree remove` also reads the worktree's
 * drivers (it runs `git status` there). What this changes for a repository that relies on a
 * filter: files are checked out and compared as stored (an LFS file is its pointer).
 *
 * Objects for the gate (pinned snapshots) are read by an `IsoObjectReader` over node:fs on the
 * repository's common git dir, which never writes: refs are changed only by git itself, which
 * locks them. Limits: `dirtyFiles` reports what `git status --porcelain` reports (untracked
 * files included; ignored files only when asked, a wholly ignored folder named once).
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { FsClient } from 'isomorphic-git';
import type { ExecResult, HostExec } from '../ports/index.js';
import { IsoObjectReader } from './iso-object-reader.js';
import type { GitObjectReader } from '../../vfs/index.js';
import { GitError, type AddWorktreeOptions, type GitContext, type GitPort, type WorktreeInfo } from './git-port.js';
import { NeutralGitRunner, commandFailure, refReadFailure, type GitSession } from './neutral-git-runner.js';
import { parseStatusZ, parseWorktreeListZ } from './porcelain.js';
import { sparseCheckoutFile } from './sparse-pattern.js';

interface CliGitOptions {
  /** The integration checkout (a host path). */
  repo: string;
  exec: HostExec;
  /** Filesystem for the object reader (node:fs in production). */
  fs: FsClient;
  /** Per-command timeout (default 10 minutes). */
  timeoutMs?: number;
}

/** Added to every session: `status` must not take the index lock to refresh it (another git may hold it). */
const OPTIONAL_LOCKS_OFF = { GIT_OPTIONAL_LOCKS: '0' };

/** The git port on the git program through host exec (see the file comment). */
export class CliGit implements GitPort {
  private readonly repo: string;
  private readonly runner: NeutralGitRunner;
  private readonly fs: FsClient;
  private reader?: IsoObjectReader;
  private dirs?: { common: string; top: string };
  private readonly sparseFiles = new Map<string, string>();

  constructor(options: CliGitOptions) {
    this.repo = options.repo;
    this.runner = new NeutralGitRunner(options.exec, options.timeoutMs ?? 600_000);
    this.fs = options.fs;
  }

  /** The object reader; available after `open` (or any successful `isRepository`). */
  get objects(): GitObjectReader {
    if (!this.reader) throw new GitError('NOT_A_GIT_REPOSITORY', 'objects', 'the repository has not been opened');
    return this.reader;
  }

  /** Finds the common git dir and sets up the object reader. `NOT_A_GIT_REPOSITORY`. */
  async open(context: GitContext): Promise<void> {
    if (this.reader) return;
    const probe = await this.probe(context);
    if (!probe.ok) throw new GitError('NOT_A_GIT_REPOSITORY', 'rev-parse', probe.why);
  }

  /** One `git rev-parse` answering "is this a work tree?" and, when it is, where its dirs are. */
  private async probe(context: GitContext): Promise<{ ok: true } | { ok: false; why: string }> {
    const r = await this.git(
      ['rev-parse', '--is-inside-work-tree', '--path-format=absolute', '--git-common-dir', '--show-toplevel'],
      context,
    );
    const [inside, common, top] = r.stdout.trim().split('\n');
    if (r.exitCode !== 0 || inside !== 'true' || !common || !top) return { ok: false, why: firstLines(r.stderr) || 'not a work tree' };
    this.dirs = { common, top };
    this.reader = new IsoObjectReader({ fs: this.fs, gitdir: common });
    return { ok: true };
  }

  /** The common git dir and the work tree's top folder (absolute); available after `open`. */
  get directories(): { common: string; top: string } {
    if (!this.dirs) throw new GitError('NOT_A_GIT_REPOSITORY', 'rev-parse', 'the repository has not been opened');
    return this.dirs;
  }

  async isRepository(context: GitContext): Promise<boolean> {
    return this.reader !== undefined || (await this.probe(context)).ok;
  }

  async resolveCommit(ref: string, context: GitContext): Promise<string> {
    if (ref === '' || ref.startsWith('-') || /[\0\s]/.test(ref)) throw new GitError('BAD_REF', 'rev-parse', `'${ref}' is not a valid ref`);
    if (this.reader && /^[0-9a-f]{40}$/.test(ref)) {
      // A full commit SHA is verified by reading the object: no process needed.
      const isCommit = await this.reader.commitTree(ref).then(
        () => true,
        () => false,
      );
      if (isCommit) return ref;
    }
    const r = await this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], context);
    if (r.exitCode !== 0) throw new GitError('BAD_REF', 'rev-parse', `'${ref}' names no commit`);
    return r.stdout.trim();
  }

  async branchHead(branch: string, context: GitContext): Promise<string | null> {
    const r = await this.git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], context);
    if (r.exitCode === 0) return r.stdout.trim();
    if (r.exitCode === 1) return null;
    throw refReadFailure('rev-parse', r);
  }

  async addWorktree(options: AddWorktreeOptions, context: GitContext): Promise<void> {
    const args = options.existingBranch
      ? ['worktree', 'add', '--quiet', '--no-checkout', options.path, options.branch]
      : ['worktree', 'add', '--quiet', '--no-checkout', '-b', options.branch, options.path, options.base];
    await this.check(args, context, 'worktree add');
    // Filled in a session read inside the new worktree (see the file comment).
    const s = await this.session(options.path, context, true);
    if (options.sparsePaths) {
      // Patterns go through stdin (no argv limit); read-tree then fills the index and checks
      // out only what the patterns match, leaving the rest skip-worktree.
      const input = sparseCheckoutFile(options.sparsePaths);
      await this.runner.check(s, ['sparse-checkout', 'set', '--no-cone', '--stdin'], 'sparse-checkout set', { input });
    }
    await this.runner.check(s, ['read-tree', '-mu', 'HEAD'], 'read-tree');
    if (options.sparsePaths) await this.sparseFileOf(options.path, context);
  }

  /**
   * Appends exact-path patterns to the worktree's `info/sparse-checkout` (see the port). The
   * file's place is asked of git once per worktree (`rev-parse --git-path`) and must lie in
   * the repository's `worktrees/` admin folder; after that no process runs. Cheaper than
   * `git sparse-checkout add`, which re-matches every index entry against every pattern.
   */
  async addSparsePatterns(path: string, paths: readonly string[], context: GitContext): Promise<void> {
    if (paths.length === 0) return;
    const file = await this.sparseFileOf(path, context);
    const before = await readFile(file, 'utf8');
    await writeFile(file, `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${sparseCheckoutFile(paths)}`);
  }

  /** Where a worktree's sparse patterns live (asked of git once, then cached). */
  private async sparseFileOf(path: string, context: GitContext): Promise<string> {
    const known = this.sparseFiles.get(path);
    if (known) return known;
    const r = await this.check(['rev-parse', '--path-format=absolute', '--git-path', 'info/sparse-checkout'], context, 'rev-parse', path);
    const file = r.stdout.trim();
    if (!file.startsWith(`${this.directories.common}/worktrees/`)) {
      throw new GitError('COMMAND_FAILED', 'sparse-checkout', 'the worktree does not point into the repository it was prepared from');
    }
    this.sparseFiles.set(path, file);
    return file;
  }

  async listWorktrees(context: GitContext): Promise<WorktreeInfo[]> {
    const r = await this.check(['worktree', 'list', '--porcelain', '-z'], context, 'worktree list');
    return parseWorktreeListZ(r.stdout);
  }

  async removeWorktree(path: string, context: GitContext, options: { force?: boolean } = {}): Promise<void> {
    // `worktree remove` runs `git status` inside the worktree: its drivers are overridden too.
    const s = await this.session(this.repo, context, false, [path]);
    await this.runner.check(s, ['worktree', 'remove', ...(options.force ? ['--force', '--force'] : []), path], 'worktree remove');
  }

  async pruneWorktrees(context: GitContext): Promise<void> {
    await this.check(['worktree', 'prune'], context, 'worktree prune');
  }

  async dirtyFiles(path: string, context: GitContext, options: { includeIgnored?: boolean } = {}): Promise<string[]> {
    const ignored = options.includeIgnored ? ['--ignored=matching'] : [];
    const args = ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...ignored, '--ignore-submodules=none'];
    const r = await this.runner.check(await this.session(path, context, true), args, 'status');
    return parseStatusZ(r.stdout);
  }

  async gitlinks(path: string, context: GitContext): Promise<string[]> {
    const r = await this.check(['-c', 'core.fsmonitor=false', 'ls-files', '--stage', '-z'], context, 'ls-files', path);
    const out: string[] = [];
    for (const line of r.stdout.split('\0')) {
      if (!line.startsWith('160000 ')) continue;
      const tab = line.indexOf('\t');
      if (tab > 0) out.push(line.slice(tab + 1));
    }
    return [...new Set(out)].sort();
  }

  /**
   * Files git tracks under `path` (a host path inside the work tree), as repository-relative
   * paths, at most `limit`. Used to refuse a state directory that came with the repository.
   * The path is taken literally (no glob magic). Reads the index only (no file content).
   */
  async trackedUnder(path: string, context: GitContext, limit = 20): Promise<string[]> {
    const top = this.directories.top;
    const rel = path === top ? '' : path.startsWith(`${top}/`) ? path.slice(top.length + 1) : null;
    if (rel === null) return [];
    // Run at the top with a literal pathspec (every session sets GIT_LITERAL_PATHSPECS).
    const r = await this.check(['ls-files', '-z', '--full-name', '--', rel === '' ? '.' : rel], context, 'ls-files', top);
    return r.stdout.split('\0').filter(Boolean).slice(0, limit);
  }

  async isAncestor(ancestor: string, commit: string, context: GitContext): Promise<boolean> {
    const r = await this.git(['merge-base', '--is-ancestor', ancestor, commit], context);
    if (r.exitCode === 0) return true;
    if (r.exitCode === 1) return false;
    throw new GitError('COMMAND_FAILED', 'merge-base', firstLines(r.stderr));
  }

  async mergeBase(a: string, b: string, context: GitContext): Promise<string | null> {
    const r = await this.git(['merge-base', a, b], context);
    if (r.exitCode === 0) return r.stdout.trim();
    if (r.exitCode === 1) return null;
    throw new GitError('COMMAND_FAILED', 'merge-base', firstLines(r.stderr));
  }

  async deleteBranch(branch: string, expected: string, context: GitContext): Promise<void> {
    await this.check(['update-ref', '-d', `refs/heads/${branch}`, expected], context, 'update-ref');
  }

  /**
   * Runs a command that reads or moves refs, walks history or lists the index (never file
   * content) in `cwd` (default the repository): no driver list needed (`refSession`).
   */
  private git(args: string[], context: GitContext, cwd = this.repo): Promise<ExecResult> {
    const s = this.runner.refSession(cwd, context, cwd !== this.repo);
    return this.runner.run({ ...s, env: { ...s.env, ...OPTIONAL_LOCKS_OFF } }, args);
  }

  /** `git`, throwing `COMMAND_FAILED` for `operation` on a non-zero exit. */
  private async check(args: string[], context: GitContext, operation: string, cwd?: string): Promise<ExecResult> {
    const r = await this.git(args, context, cwd);
    if (r.exitCode !== 0) throw commandFailure(operation, r);
    return r;
  }

  /** A session for commands that read or write file content, in `cwd` (see `NeutralGitRunner.session`). */
  private async session(cwd: string, context: GitContext, isWorktree: boolean, alsoIn: readonly string[] = []): Promise<GitSession> {
    const s = await this.runner.session(cwd, context, isWorktree, alsoIn);
    return { ...s, env: { ...s.env, ...OPTIONAL_LOCKS_OFF } };
  }
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 3).join(' / ').slice(0, 400);
}
