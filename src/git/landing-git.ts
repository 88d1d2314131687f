/**
 * The landing port: what `diff`, `commit`, the lander and subagents need from git, beside the
 * preparation side's `GitPort`.
 *
 * Two implementations, like `GitPort`: `CliLandingGit` (the git program through the host-exec
 * port; production) and `MemoryLandingGit` (isomorphic-git over memfs; the memory host). Every
 * command the CLI implementation runs neutralises what a repository could make git execute:
 * hooks (`core.hooksPath=/dev/null`), clean/smudge/process filters, external diff and textconv
 * drivers, custom merge drivers (a merge they would decide is reported as a conflict),
 * `core.fsmonitor`, commit signing and automatic gc, and the user's global and system config
 * (`GIT_CONFIG_GLOBAL=/dev/null`, `GIT_CONFIG_NOSYSTEM=1`) — except `fetch` and `push`, which
 * keep the user's global config (credentials, ssh) but never run the repository's hooks.
 *
 * Paths are platform paths (host paths on disk, volume paths in memory) derived by the host
 * from the state directory and an id; they never come from a record or an agent. Refs are
 * full ref names (`refs/heads/main`). Every method may throw `GitError`.
 */
import type { GitContext } from './git-port.js';

/** Who a commit is by: the author (the conversation) or the committer (gatefs). */
export interface GitIdentity {
  name: string;
  email: string;
}

/** How one file changed, as `git diff --name-status` says it (renames are not detected). */
export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'typechange';

/** One changed file, repository-relative with `/` separators. */
export interface ChangedFile {
  path: string;
  status: ChangeStatus;
}

/** The changes of a worktree against a commit. */
export interface WorkDiff {
  /** Every changed file (tracked changes and untracked files that are not ignored), sorted by path. */
  files: ChangedFile[];
  /** Unified diff (`diff --git` headers, binary files named, not shown), cut at the cap. */
  patch: string;
  /** True when the patch was cut at `maxPatchBytes`. */
  truncated: boolean;
}

export interface DiffOptions {
  /** The commit to compare with (a full SHA). */
  base: string;
  /** Only these repository-relative paths (files or folders, literal); absent: everything. */
  paths?: readonly string[];
  /** Most bytes of patch returned (the file list is always complete). */
  maxPatchBytes: number;
}

/** What one commit is made of. */
export interface CommitOptions {
  message: string;
  /** Only these repository-relative paths (files or folders, literal) are committed; absent: every change. */
  paths?: readonly string[];
  author: GitIdentity;
  committer: GitIdentity;
  /** Author and committer time, in ms since the epoch (from the clock port). */
  timeMs: number;
}

/** A commit made, or nothing to commit (`sha` null, `files` empty). */
export interface CommitResult {
  sha: string | null;
  /** The files the commit changed, sorted. */
  files: ChangedFile[];
}

/** What merging a submitted commit onto a checkout's HEAD gave. */
export type MergeResult =
  /**
   * `sha` is the candidate: the submitted commit itself when HEAD was its ancestor (fast-forward),
   * HEAD itself when the commit was already contained in it (`fastForward` false, no new commit),
   * else a new merge commit.
   */
  | { ok: true; sha: string; fastForward: boolean }
  /** The merge stopped on conflicts (files listed); the checkout is back at its HEAD, clean. */
  | { ok: false; conflicts: string[] };

/** The outcome of moving a branch by compare-and-swap (see `fastForward`). */
export type FastForwardResult =
  /** The branch now points at `next` (read back). */
  | { outcome: 'moved' }
  /** The branch was not at `expected` (someone moved it): nothing was changed. `head` is where it is. */
  | { outcome: 'stale'; head: string | null }
  /**
   * The branch is checked out in a worktree where the move would overwrite something that is not
   * the old commit's: its uncommitted changes (`UNCOMMITTED_CHANGES`), or files and folders git
   * does not track there, ignored ones included (`UNTRACKED_FILES`, folders named with a
   * trailing `/`). Nothing was changed; retry once that worktree is committed, moved or cleaned.
   */
  | { outcome: 'blocked'; reason: BlockedReason; files: string[] };

/** Why a fast-forward was blocked (see `FastForwardResult`). */
export type BlockedReason = 'UNCOMMITTED_CHANGES' | 'UNTRACKED_FILES';

/** The result of a push. A refusal is a value, not a throw. */
export type PushResult = { ok: true } | { ok: false; detail: string };

/** Git operations of the landing side (see the file comment). */
export interface LandingGit {
  /**
   * The commit a full ref names, or null when there is no such ref (or the ref file is broken,
   * as git reads it). A repository that cannot be read is `NOT_A_GIT_REPOSITORY`, never null.
   */
  readRef(ref: string, context: GitContext): Promise<string | null>;
  /** The branch (full ref) the worktree at `path` has checked out, or null when HEAD is detached. */
  checkedOutBranch(path: string, context: GitContext): Promise<string | null>;
  /**
   * The changes of the worktree at `path` against `options.base`: tracked edits, deletions and
   * untracked files that are not ignored. Never changes the worktree's index or files (a
   * temporary index may be used).
   */
  diff(path: string, options: DiffOptions, context: GitContext): Promise<WorkDiff>;
  /**
   * Stages every change of the worktree at `path` (or only `options.paths`), untracked files
   * included and ignored ones not, and commits it on the checked-out branch. Result: the new
   * commit and its files, or `sha: null` when there was nothing to commit.
   */
  commit(path: string, options: CommitOptions, context: GitContext): Promise<CommitResult>;
  /**
   * Makes `path` a clean detached checkout of `commit`: `git worktree add --detach` when it
   * does not exist, else a forced checkout with every untracked and ignored file removed.
   * `path` is only ever the lander's own folder under the state directory.
   */
  checkoutDetached(path: string, commit: string, context: GitContext): Promise<void>;
  /**
   * Merges `commit` into the detached checkout at `path` (HEAD moves to the result): a
   * fast-forward when HEAD is an ancestor of `commit`, else a merge commit with `message`.
   */
  merge(
    path: string,
    commit: string,
    options: { message: string; committer: GitIdentity; timeMs: number },
    context: GitContext,
  ): Promise<MergeResult>;
  /**
   * Moves branch `ref` from `expected` to `next` by compare-and-swap (`update-ref <ref> <next>
   * <expected>`) and reads it back. When the branch is checked out in a worktree (the
   * integration checkout, a parent conversation's worktree), that worktree's index and files
   * are brought from `expected` to `next` first (`read-tree -m -u`, which keeps its own
   * uncommitted changes and refuses — `blocked` — when they would be overwritten). Before
   * anything moves, the update is checked never to overwrite, delete or write into a file or
   * folder that worktree does not track, ignored ones included (src/git/checkout-safety.ts):
   * such an update is `blocked` (`UNTRACKED_FILES`) with nothing changed.
   * Safe to repeat after a crash at any point.
   */
  fastForward(ref: string, expected: string, next: string, context: GitContext): Promise<FastForwardResult>;
  /**
   * The entries of `commit`'s tree that a case-insensitive filesystem would take for one of
   * `paths` (repository-relative; vfs/fold-name.ts `foldName` per segment), as the tree spells
   * them, sorted; empty when it holds none. Reads objects only.
   */
  findTreePaths(commit: string, paths: readonly string[], context: GitContext): Promise<string[]>;
  /**
   * `findTreePaths` over the files of the worktree at `path` instead of a commit's tree: its
   * entries a case-insensitive filesystem would take for one of `paths`, as spelled on disk,
   * sorted; empty when it holds none. Reads folder names only (a link is never entered) and
   * runs no git, so it is cheap enough to ask before every commit.
   */
  findCheckoutPaths(path: string, paths: readonly string[], context: GitContext): Promise<string[]>;
  /** Creates or moves a ref that keeps a commit reachable (e.g. `refs/gatefs/submissions/<id>`); no compare. */
  pinRef(ref: string, commit: string, context: GitContext): Promise<void>;
  /** The best common ancestor of two commits (`git merge-base`), or null when they share none. */
  mergeBase(a: string, b: string, context: GitContext): Promise<string | null>;
  /** True when `ancestor` is an ancestor of (or equal to) `commit`. */
  isAncestor(ancestor: string, commit: string, context: GitContext): Promise<boolean>;
  /** How many commits `head` has that `base` does not (`rev-list --count base..head`). */
  countAhead(base: string, head: string, context: GitContext): Promise<number>;
  /** Fetches `branch` from `remote`. Result: the remote branch's commit, or null when it has none. */
  fetch(remote: string, branch: string, context: GitContext): Promise<string | null>;
  /** Pushes `sha` to `refs/heads/<branch>` on `remote` (a fast-forward; never forced). */
  push(remote: string, sha: string, branch: string, context: GitContext): Promise<PushResult>;
}
