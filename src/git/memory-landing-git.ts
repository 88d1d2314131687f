/**
 * `MemoryLandingGit`: the landing port on isomorphic-git over a memfs volume, for the memory
 * host; the git contract (test/git/contract/) holds it to what `CliLandingGit` does with the git
 * program. Worktrees are emulated as `MemoryGit` emulates them (memory-checkouts.ts): a linked
 * worktree has no index of its own, so its "staged" state is its folder compared with its HEAD
 * commit. The main checkout (`dir`) is a normal isomorphic-git repository with an index; a
 * commit or fast-forward there updates the index entries of the files it changes.
 *
 * Names are checked as the CLI checks them (landing-names.ts: `BAD_REF` before anything
 * happens), and a commit the repository does not hold is `COMMAND_FAILED`, as git reports it.
 * Deterministic: no clock, no randomness; commit times come from `timeMs`, so the same
 * scenario gives the same SHAs. Refs are swapped synchronously (memory-refs.ts), so a
 * compare-and-swap is atomic against every other task on the volume. Remotes are bare
 * repositories in the same volume (memory-remote.ts). Not done: rename detection, recursive
 * merges (several merge bases: `COMMAND_FAILED`), merge drivers and hooks (there are none).
 */
import git, { Errors } from 'isomorphic-git';
import type { Volume } from 'memfs';
import { GitError, isGitError, type GitContext } from './git-port.js';
import type {
  CommitOptions,
  CommitResult,
  DiffOptions,
  FastForwardResult,
  GitIdentity,
  LandingGit,
  MergeResult,
  PushResult,
  WorkDiff,
} from './landing-git.js';
import { assertFullRef, assertSha, remoteTrackingRef } from './landing-names.js';
import { changesUnder, flattenTree } from './memory-changes.js';
import { MemoryCheckouts } from './memory-checkouts.js';
import { memoryUnsafePaths } from './memory-checkout-safety.js';
import { cleanMessage, commitCheckout, signature } from './memory-commit.js';
import { applyFolderMove, type FolderStep, planFolderMove } from './memory-folder-move.js';
import { copyObjects, consumeRejection, memoryRemoteDir } from './memory-remote.js';
import { readRefSync, swapRefSync, writeRefSync } from './memory-refs.js';
import { patchOf } from './memory-patch.js';
import { findFoldedPaths } from './folded-tree-paths.js';

type Vol = InstanceType<typeof Volume>;

interface MemoryLandingGitOptions {
  volume: Vol;
  /** The main checkout inside the volume; its git dir (shared by every worktree) is `<dir>/.git`. */
  dir: string;
}

/** The landing port on isomorphic-git over memfs (see the file comment). */
export class MemoryLandingGit implements LandingGit {
  private readonly repo: MemoryCheckouts;

  constructor(options: MemoryLandingGitOptions) {
    this.repo = new MemoryCheckouts(options.volume, options.dir);
  }

  async readRef(ref: string, _context: GitContext): Promise<string | null> {
    assertFullRef(ref, 'show-ref');
    this.repo.assertRepository('show-ref');
    return readRefSync(this.repo.volume, this.repo.gitdir, ref);
  }

  async checkedOutBranch(path: string, _context: GitContext): Promise<string | null> {
    return this.repo.head(this.repo.at(path)).branch;
  }

  async diff(path: string, options: DiffOptions, _context: GitContext): Promise<WorkDiff> {
    assertSha(options.base, 'diff');
    if (options.paths?.length === 0) return { files: [], patch: '', truncated: false };
    const checkout = this.repo.at(path);
    const changes = changesUnder(await this.repo.changes(checkout, await this.treeOf(options.base, 'diff-index')), options.paths);
    const { patch, truncated } = await patchOf(this.repo.volume, this.repo.objects, path, changes, options.maxPatchBytes);
    return { files: changes.map(({ path: p, status }) => ({ path: p, status })), patch, truncated };
  }

  async commit(path: string, options: CommitOptions, _context: GitContext): Promise<CommitResult> {
    return commitCheckout(this.repo, this.repo.at(path), options);
  }

  async checkoutDetached(path: string, commit: string, _context: GitContext): Promise<void> {
    assertSha(commit, 'checkout');
    if (path === this.repo.dir) throw new GitError('COMMAND_FAILED', 'worktree add', 'the main checkout cannot be detached by the lander');
    const tree = await this.treeOf(commit, 'checkout');
    const linked = this.repo.linkedAt(path);
    if (linked) this.repo.volume.writeFileSync(`${linked.meta}/HEAD`, `${commit}\n`);
    else if (this.repo.exists(path))
      throw new GitError('NOT_A_GIT_REPOSITORY', 'rev-parse', 'the folder is not a worktree of this repository');
    else this.repo.link(path, commit);
    await this.repo.refill(path, tree);
  }

  async merge(
    path: string,
    commit: string,
    options: { message: string; committer: GitIdentity; timeMs: number },
    context: GitContext,
  ): Promise<MergeResult> {
    assertSha(commit, 'merge');
    const checkout = this.repo.at(path);
    const head = this.repo.head(checkout);
    if (head.branch !== null || head.commit === null) throw new GitError('COMMAND_FAILED', 'merge', `'${path}' is not a detached checkout`);
    const ours = head.commit;
    const theirs = await this.treeOf(commit, 'merge');
    if (await this.isAncestor(ours, commit, context)) {
      this.repo.volume.writeFileSync(`${checkout.meta}/HEAD`, `${commit}\n`);
      await this.repo.refill(path, theirs);
      return { ok: true, sha: commit, fastForward: true };
    }
    if (await this.isAncestor(commit, ours, context)) return { ok: true, sha: ours, fastForward: false };
    const sha = await this.mergeCommit(ours, commit, options);
    if (typeof sha !== 'string') return sha;
    this.repo.volume.writeFileSync(`${checkout.meta}/HEAD`, `${sha}\n`);
    await this.repo.refill(path, await this.repo.objects.commitTree(sha));
    return { ok: true, sha, fastForward: false };
  }

  async fastForward(ref: string, expected: string, next: string, context: GitContext): Promise<FastForwardResult> {
    assertFullRef(ref, 'update-ref');
    assertSha(expected, 'update-ref');
    assertSha(next, 'update-ref');
    const current = readRefSync(this.repo.volume, this.repo.gitdir, ref);
    const holders = this.repo.ofBranch(ref);
    if (current !== expected) {
      // As git's update-ref answers: a branch already at `next` (a repeat), or past it where no checkout holds it, has moved.
      const past = holders.length === 0 && current !== null && (await this.isAncestor(next, current, context));
      return current === next || past ? { outcome: 'moved' } : { outcome: 'stale', head: current };
    }
    const [from, to] = [await this.treeOf(expected, 'read-tree'), await this.treeOf(next, 'read-tree')];
    if (holders.length > 0) {
      const [before, after] = await Promise.all([flattenTree(this.repo.objects, from), flattenTree(this.repo.objects, to)]);
      const untracked = new Set<string>();
      for (const h of holders) for (const f of await memoryUnsafePaths(this.repo.volume, h.dir, before, after)) untracked.add(f);
      if (untracked.size > 0) return { outcome: 'blocked', reason: 'UNTRACKED_FILES', files: [...untracked].sort() };
    }
    const moves: Array<{ main: boolean; dir: string; steps: FolderStep[]; settled: FolderStep[] }> = [];
    const blocked = new Set<string>();
    for (const h of holders) {
      const plan = await planFolderMove(this.repo.volume, this.repo.objects, h.dir, from, to, this.repo.sparse(h));
      if (plan.ok) moves.push({ main: h.main, dir: h.dir, steps: plan.steps, settled: plan.settled });
      else for (const f of plan.blocked) blocked.add(f);
    }
    if (blocked.size > 0) return { outcome: 'blocked', reason: 'UNCOMMITTED_CHANGES', files: [...blocked].sort() };
    for (const { main, dir, steps, settled } of moves) {
      await applyFolderMove(this.repo.volume, this.repo.objects, dir, steps);
      if (main) await this.repo.syncIndex([...steps, ...settled].map((s) => ({ path: s.path, present: s.entry !== null })));
    }
    const swapped = swapRefSync(this.repo.volume, this.repo.gitdir, ref, expected, next);
    if (swapped) return { outcome: 'stale', head: swapped.head };
    const readBack = readRefSync(this.repo.volume, this.repo.gitdir, ref);
    return readBack === next ? { outcome: 'moved' } : { outcome: 'stale', head: readBack };
  }

  async findTreePaths(commit: string, paths: readonly string[], _context: GitContext): Promise<string[]> {
    assertSha(commit, 'ls-tree');
    const trees = new Map<string, string | null>([['', await this.treeOf(commit, 'ls-tree')]]);
    return findFoldedPaths(paths, async (prefix) => {
      const tree = trees.get(prefix);
      if (!tree) return null;
      const entries = await this.repo.objects.readTree(tree);
      for (const e of entries) trees.set(prefix === '' ? e.name : `${prefix}/${e.name}`, e.type === 'tree' ? e.oid : null);
      return entries.map((e) => e.name);
    });
  }

  async findCheckoutPaths(path: string, paths: readonly string[], _context: GitContext): Promise<string[]> {
    const root = this.repo.at(path).dir;
    const volume = this.repo.volume;
    return findFoldedPaths(paths, async (prefix) => {
      const folder = prefix === '' ? root : `${root}/${prefix}`;
      if (!volume.existsSync(folder) || !volume.lstatSync(folder).isDirectory()) return null;
      return (volume.readdirSync(folder) as unknown[]).map(String);
    });
  }

  async pinRef(ref: string, commit: string, _context: GitContext): Promise<void> {
    assertFullRef(ref, 'update-ref');
    assertSha(commit, 'update-ref');
    await this.treeOf(commit, 'update-ref');
    writeRefSync(this.repo.volume, this.repo.gitdir, ref, commit);
  }

  async mergeBase(a: string, b: string, _context: GitContext): Promise<string | null> {
    assertSha(a, 'merge-base');
    assertSha(b, 'merge-base');
    await this.treeOf(a, 'merge-base');
    await this.treeOf(b, 'merge-base');
    const [base] = await git.findMergeBase({ fs: this.repo.fs, gitdir: this.repo.gitdir, oids: [a, b] });
    return base ?? null;
  }

  async isAncestor(ancestor: string, commit: string, _context: GitContext): Promise<boolean> {
    assertSha(ancestor, 'merge-base');
    assertSha(commit, 'merge-base');
    await this.treeOf(ancestor, 'merge-base');
    await this.treeOf(commit, 'merge-base');
    if (ancestor === commit) return true;
    return git.isDescendent({ fs: this.repo.fs, gitdir: this.repo.gitdir, oid: commit, ancestor, depth: -1 });
  }

  async countAhead(base: string, head: string, _context: GitContext): Promise<number> {
    assertSha(base, 'rev-list');
    assertSha(head, 'rev-list');
    const behind = await this.reachable([base], new Set());
    return (await this.reachable([head], behind)).size;
  }

  async fetch(remote: string, branch: string, _context: GitContext): Promise<string | null> {
    const tracking = remoteTrackingRef(remote, branch, 'fetch');
    const dir = memoryRemoteDir(remote);
    if (!dir || !this.repo.exists(`${dir}/HEAD`))
      throw new GitError('COMMAND_FAILED', 'fetch', `'${remote}' does not appear to be a git repository`);
    const sha = readRefSync(this.repo.volume, dir, `refs/heads/${branch}`);
    if (sha === null) return null;
    await copyObjects(this.repo.volume, dir, this.repo.gitdir, sha);
    writeRefSync(this.repo.volume, this.repo.gitdir, tracking, sha);
    return sha;
  }

  async push(remote: string, sha: string, branch: string, _context: GitContext): Promise<PushResult> {
    remoteTrackingRef(remote, branch, 'push');
    assertSha(sha, 'push');
    const dir = memoryRemoteDir(remote);
    if (!dir || !this.repo.exists(`${dir}/HEAD`)) return { ok: false, detail: `'${remote}' does not appear to be a git repository` };
    const missing = await this.treeOf(sha, 'push').then(
      () => null,
      (e: unknown) => (isGitError(e) ? e.detail : String(e)),
    );
    if (missing !== null) return { ok: false, detail: missing };
    if (consumeRejection(this.repo.volume, dir)) return { ok: false, detail: 'rejected by the remote (memory remote test seam)' };
    await copyObjects(this.repo.volume, this.repo.gitdir, dir, sha);
    const ref = `refs/heads/${branch}`;
    const current = readRefSync(this.repo.volume, dir, ref);
    if (current === sha) return { ok: true };
    if (current !== null && !(await git.isDescendent({ fs: this.repo.fs, gitdir: dir, oid: sha, ancestor: current, depth: -1 }))) {
      return { ok: false, detail: 'non-fast-forward' };
    }
    return swapRefSync(this.repo.volume, dir, ref, current, sha) ? { ok: false, detail: 'non-fast-forward' } : { ok: true };
  }

  /** The tree of a commit the repository holds; `COMMAND_FAILED` for `operation` when it holds no such commit (as git says it). */
  private async treeOf(commit: string, operation: string): Promise<string> {
    try {
      return await this.repo.objects.commitTree(commit);
    } catch (e) {
      if (!isGitError(e, 'BAD_REF')) throw e;
      throw new GitError('COMMAND_FAILED', operation, `${commit} is not a valid commit`, { cause: e });
    }
  }

  /** The merge commit [ours, theirs] isomorphic-git makes, or the conflicts that stopped it. */
  private async mergeCommit(
    ours: string,
    theirs: string,
    options: { message: string; committer: GitIdentity; timeMs: number },
  ): Promise<string | MergeResult> {
    const who = signature(options.committer, options.timeMs);
    const message = cleanMessage(options.message);
    if (message === '') throw new GitError('COMMAND_FAILED', 'merge', 'Aborting commit due to empty commit message.');
    try {
      const { fs, gitdir } = this.repo;
      const merged = { fs, gitdir, ours, theirs, fastForward: false, noUpdateBranch: true, abortOnConflict: true };
      const { oid } = await git.merge({ ...merged, message, author: who, committer: who });
      if (!oid) throw new GitError('COMMAND_FAILED', 'merge', 'isomorphic-git made no merge commit');
      return oid;
    } catch (e) {
      if (e instanceof Errors.MergeConflictError) return { ok: false, conflicts: [...new Set(e.data.filepaths)].sort() };
      if (e instanceof GitError) throw e;
      const detail = e instanceof Errors.MergeNotSupportedError ? 'several merge bases (recursive merge is not supported)' : String(e);
      throw new GitError('COMMAND_FAILED', 'merge', detail, { cause: e });
    }
  }

  /** Commits reachable from `starts`, not walking into `stop`. `COMMAND_FAILED` for a commit the repository lacks. */
  private async reachable(starts: readonly string[], stop: ReadonlySet<string>): Promise<Set<string>> {
    const seen = new Set<string>();
    const queue = starts.filter((s) => !stop.has(s));
    for (let oid = queue.pop(); oid !== undefined; oid = queue.pop()) {
      if (seen.has(oid) || stop.has(oid)) continue;
      seen.add(oid);
      const { commit } = await git.readCommit({ fs: this.repo.fs, gitdir: this.repo.gitdir, oid }).catch((e: unknown) => {
        throw new GitError('COMMAND_FAILED', 'rev-list', `${oid} is not a readable commit`, { cause: e });
      });
      queue.push(...commit.parent);
    }
    return seen;
  }
}
