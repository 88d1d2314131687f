/**
 * The git port: what the preparation and release tasks need from git, and nothing more.
 *
 * Two implementations: `CliGit` (the git program through the host-exec port; production) and
 * `MemoryGit` (isomorphic-git over memfs; the memory host). The gate never uses this port:
 * it reads pinned snapshots through a `GitObjectReader` only (declared in
 * vfs/git-object-reader.ts), which never spawns and never writes. isomorphic-git cannot operate linked worktrees and does not lock refs, so it is
 * used on real repositories only as a read-only object reader.
 */
import { CodedError } from '../../vfs/index.js';
import type { GitObjectReader } from '../../vfs/index.js';

/** Who runs a git command: the task tag and the caller's conversation chain, for the run log. */
export interface GitContext {
  tag: string;
  chain: readonly string[];
}

/** One linked (or main) worktree, as `git worktree list` reports it. */
export interface WorktreeInfo {
  /** Host path of the worktree's top folder. */
  path: string;
  /** Full branch ref (`refs/heads/x`), or null for a detached HEAD. */
  branch: string | null;
  /** The commit checked out, or null in an empty repository. */
  head: string | null;
}

export interface AddWorktreeOptions {
  /** Host path of the new worktree folder (must not exist). */
  path: string;
  /** Short branch name to create, e.g. `gatefs/a`. */
  branch: string;
  /** Commit the new branch starts at (ignored with `existingBranch`). */
  base: string;
  /** Check out the existing branch instead of creating it (`git worktree add <path> <branch>`). */
  existingBranch?: boolean;
  /**
   * A sparse worktree (progressive disclosure): only these repository-relative paths are
   * checked out; every other tracked file is skip-worktree, absent on disk, and `git status`
   * stays clean. Absent: a full checkout.
   */
  sparsePaths?: readonly string[];
}

/** Git operations of the preparation side. Every method may throw `GitError`. */
export interface GitPort {
  readonly objects: GitObjectReader;
  /** True when the repository folder is (inside) a git work tree (a true answer may be cached). */
  isRepository(context: GitContext): Promise<boolean>;
  /** The full SHA of the commit a ref names (`HEAD`, a branch, a tag, a SHA). `BAD_REF`. */
  resolveCommit(ref: string, context: GitContext): Promise<string>;
  /**
   * The commit a local branch points at, or null when there is no such branch. A repository
   * that cannot be read (its git dir has no `HEAD`) is `NOT_A_GIT_REPOSITORY`, never null.
   */
  branchHead(branch: string, context: GitContext): Promise<string | null>;
  /** `git worktree add -b <branch> <path> <base>`. */
  addWorktree(options: AddWorktreeOptions, context: GitContext): Promise<void>;
  /** Every worktree of the repository, the main one first. */
  listWorktrees(context: GitContext): Promise<WorktreeInfo[]>;
  /**
   * `git worktree remove <path>`: refuses a dirty worktree (`COMMAND_FAILED`) unless `force`,
   * which only the rollback of gatefs's own half-made worktrees uses.
   */
  removeWorktree(path: string, context: GitContext, options?: { force?: boolean }): Promise<void>;
  /** `git worktree prune`: forgets worktrees whose folder is gone. */
  pruneWorktrees(context: GitContext): Promise<void>;
  /**
   * Files `git status` reports as changed or untracked in the worktree at `path`, sorted. With
   * `includeIgnored`, ignored files count too (a folder wholly ignored by one pattern may be
   * named once, as `dir/`): release treats every one of them as work.
   */
  dirtyFiles(path: string, context: GitContext, options?: { includeIgnored?: boolean }): Promise<string[]>;
  /**
   * The submodule paths (gitlinks, mode 160000) of the worktree at `path`: its index's
   * (`git ls-files --stage`), sorted. `git status` says nothing of files inside a submodule
   * folder that has no `.git` of its own (one never checked out), so release looks there itself.
   */
  gitlinks(path: string, context: GitContext): Promise<string[]>;
  /** True when `ancestor` is an ancestor of (or equal to) `commit` (`git merge-base --is-ancestor`). */
  isAncestor(ancestor: string, commit: string, context: GitContext): Promise<boolean>;
  /** The best common ancestor of two commits (`git merge-base`), or null when they share none. */
  mergeBase(a: string, b: string, context: GitContext): Promise<string | null>;
  /** Deletes a local branch only while it still points at `expected` (compare-and-delete). */
  deleteBranch(branch: string, expected: string, context: GitContext): Promise<void>;
  /**
   * Widens a sparse worktree made with `sparsePaths` by exact files whose bytes the caller has
   * already written into the worktree: appends their patterns to the worktree's
   * `info/sparse-checkout`, so every later reapply, checkout or merge keeps them. Git 2.37+
   * clears the skip-worktree bit of a file it finds present, so they are ordinary tracked files
   * from then on (an edit shows in `git status`). Never touches the files themselves.
   */
  addSparsePatterns(path: string, paths: readonly string[], context: GitContext): Promise<void>;
}

/** The conditions a `GitError` names (see the class). */
export type GitErrorCode = 'BAD_REF' | 'NOT_A_GIT_REPOSITORY' | 'OBJECT_MISSING' | 'COMMAND_FAILED';

/**
 * A git operation that failed: `BAD_REF` (the ref names no commit), `NOT_A_GIT_REPOSITORY`,
 * `OBJECT_MISSING` (an object the store should hold is absent), `COMMAND_FAILED` (git exited
 * non-zero; `detail` holds the first lines of its stderr).
 */
export class GitError extends CodedError<GitErrorCode, { readonly operation: string; readonly detail: string }> {
  override readonly name = 'GitError';

  constructor(code: GitErrorCode, operation: string, detail: string, options?: { cause?: unknown }) {
    super(code, `${code}: git ${operation}: ${detail}`, { operation, detail }, options);
  }

  /** The git operation that failed (`rev-parse`, `worktree add`, …). */
  get operation(): string {
    return this.data.operation;
  }

  /** What went wrong (for `COMMAND_FAILED`, the first lines of git's stderr). */
  get detail(): string {
    return this.data.detail;
  }
}

/** True when `e` is a GitError, optionally with the given code. */
export function isGitError(e: unknown, code?: GitErrorCode): e is GitError {
  return e instanceof GitError && (code === undefined || e.code === code);
}

/** The branch gatefs creates for a conversation. */
export function conversationBranch(conversation: string): string {
  return `gatefs/${conversation}`;
}
