/**
 * `CliGit`: the git port on the git program, run through the host-exec port (so every command
 * lands in the run log with its task tag and conversation chain). Production implementation.
 *
 * Objects for the gate (pinned snapshots) are read by an `IsoObjectReader` over node:fs on the
 * repository's common git dir, which never writes: refs are changed only by git itself, which
 * locks them. Limits: `dirtyFiles` reports what `git status --porcelain` reports (untracked
 * files included; ignored files only when asked, a wholly ignored folder named once).
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { FsClient } from 'isomorphic-git';
import type { ExecResult, HostExec } from '../ports/host-exec.js';
import { IsoObjectReader } from './iso-object-reader.js';
import type { GitObjectReader } from '../../vfs/git-object-reader.js';
import { GitError, type AddWorktreeOptions, type GitContext, type GitPort, type WorktreeInfo } from './git-port.js';
import { parseStatusZ, parseWorktreeListZ } from './porcelain.js';
import { sparseCheckoutFile } from './sparse-pattern.js';

export interface CliGitOptions {
  /** The integration checkout (a host path). */
  repo: string;
  exec: HostExec;
  /** Filesystem for the object reader (node:fs in production). */
  fs: FsClient;
  /** Per-command timeout (default 10 minutes). */
  timeoutMs?: number;
}

const GIT_ENV = { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };

/** The git port on the git program through host exec (see the file comment). */
export class CliGit implements GitPort {
  private readonly repo: string;
  private readonly exec: HostExec;
  private readonly fs: FsClient;
  private readonly timeoutMs: number;
  private reader?: IsoObjectReader;
  private dirs?: { common: string; top: string };
  private readonly sparseFiles = new Map<string, string>();

  constructor(options: CliGitOptions) {
    this.repo = options.repo;
    this.exec = options.exec;
    this.fs = options.fs;
    this.timeoutMs = options.timeoutMs ?? 600_000;
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
    return r.exitCode === 0 ? r.stdout.trim() : null;
  }

  async addWorktree(options: AddWorktreeOptions, context: GitContext): Promise<void> {
    const sparse = options.sparsePaths ? ['--no-checkout'] : [];
    const args = options.existingBranch
      ? ['worktree', 'add', '--quiet', ...sparse, options.path, options.branch]
      : ['worktree', 'add', '--quiet', ...sparse, '-b', options.branch, options.path, options.base];
    await this.check(args, context, 'worktree add');
    if (!options.sparsePaths) return;
    // Patterns go through stdin (no argv limit); read-tree then fills the index and checks
    // out only what the patterns match, leaving the rest skip-worktree.
    const input = sparseCheckoutFile(options.sparsePaths);
    await this.check(['sparse-checkout', 'set', '--no-cone', '--stdin'], context, 'sparse-checkout set', options.path, input);
    await this.check(['read-tree', '-mu', 'HEAD'], context, 'read-tree', options.path);
    await this.sparseFileOf(options.path, context);
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
    await this.check(['worktree', 'remove', ...(options.force ? ['--force', '--force'] : []), path], context, 'worktree remove');
  }

  async pruneWorktrees(context: GitContext): Promise<void> {
    await this.check(['worktree', 'prune'], context, 'worktree prune');
  }

  async dirtyFiles(path: string, context: GitContext, options: { includeIgnored?: boolean } = {}): Promise<string[]> {
    // fsmonitor is off: status must not start a program the repository's config names.
    const ignored = options.includeIgnored ? ['--ignored=matching'] : [];
    const args = [
      '-c',
      'core.fsmonitor=false',
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      ...ignored,
      '--ignore-submodules=none',
    ];
    const r = await this.check(args, context, 'status', path);
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
   * The path is a literal pathspec (no glob magic); fsmonitor is off.
   */
  async trackedUnder(path: string, context: GitContext, limit = 20): Promise<string[]> {
    const top = this.directories.top;
    const rel = path === top ? '' : path.startsWith(`${top}/`) ? path.slice(top.length + 1) : null;
    if (rel === null) return [];
    const spec = rel === '' ? ':(top)' : `:(literal,top)${rel}`;
    const r = await this.check(['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--full-name', '--', spec], context, 'ls-files');
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

  private git(args: string[], context: GitContext, cwd = this.repo, input?: string): Promise<ExecResult> {
    return this.exec.run({
      argv: ['git', ...args],
      cwd,
      env: GIT_ENV,
      timeoutMs: this.timeoutMs,
      tag: context.tag,
      chain: context.chain,
      ...(input === undefined ? {} : { input }),
    });
  }

  private async check(args: string[], context: GitContext, operation: string, cwd?: string, input?: string): Promise<ExecResult> {
    const r = await this.git(args, context, cwd, input);
    if (r.exitCode !== 0) {
      throw new GitError('COMMAND_FAILED', operation, r.timedOut ? 'timed out' : firstLines(r.stderr) || `exit ${r.exitCode ?? r.signal}`);
    }
    return r;
  }
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 3).join(' / ').slice(0, 400);
}
