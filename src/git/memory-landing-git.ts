/**
 * `MemoryLandingGit`: the landing port on isomorphic-git over a memfs volume, for the memory
 * host. Worktrees are emulated as `MemoryGit` emulates them (see memory-checkouts.ts): a linked
 * worktree has no index of its own, so its "staged" state is its folder compared with its HEAD
 * commit. The main checkout (`dir`) is a normal isomorphic-git repository with an index; a
 * commit or fast-forward there updates the index entries of the files it changes.
 *
 * Deterministic: no clock, no randomness; commit times come from `timeMs`, so the same
 * scenario gives the same SHAs. Refs are swapped synchronously (memory-refs.ts), so a
 * compare-and-swap is atomic against every other task on the volume. Remotes are bare
 * repositories in the same volume (memory-remote.ts). Not done: rename detection, recursive
 * merges (several merge bases: `COMMAND_FAILED`), merge drivers and hooks (there are none).
 */
import git, { Errors, type FsClient } from 'isomorphic-git';
import type { Volume } from 'memfs';
import { GitError, type GitContext } from './git-port.js';
import { IsoObjectReader } from './iso-object-reader.js';
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
import {
  type Checkout,
  checkoutAt,
  checkoutsOfBranch,
  emptyFolder,
  freeMetaFor,
  headOf,
  linkedMeta,
  sparseOf,
} from './memory-checkouts.js';
import { type FolderChange, flattenTree, folderChanges } from './memory-changes.js';
import { memoryUnsafePaths } from './memory-checkout-safety.js';
import { applyFolderMove, type FolderStep, planFolderMove } from './memory-folder-move.js';
import { copyObjects, consumeRejection, memoryRemoteDir } from './memory-remote.js';
import { readRefSync, readText, swapRefSync, writeRefSync } from './memory-refs.js';
import { checkoutTree } from './memory-worktree.js';
import { patchOf } from './memory-patch.js';
import { treeWithChanges } from './tree-with-changes.js';
import { findFoldedPaths } from './folded-tree-paths.js';

type Vol = InstanceType<typeof Volume>;

export interface MemoryLandingGitOptions {
  volume: Vol;
  /** The main checkout inside the volume; its git dir (shared by every worktree) is `<dir>/.git`. */
  dir: string;
}

/** The landing port on isomorphic-git over memfs (see the file comment). */
export class MemoryLandingGit implements LandingGit {
  private readonly volume: Vol;
  private readonly fs: FsClient;
  private readonly dir: string;
  private readonly gitdir: string;
  private readonly objects: IsoObjectReader;

  constructor(options: MemoryLandingGitOptions) {
    this.volume = options.volume;
    this.fs = options.volume as unknown as FsClient;
    this.dir = options.dir;
    this.gitdir = `${options.dir}/.git`;
    this.objects = new IsoObjectReader({ fs: this.fs, gitdir: this.gitdir });
  }

  async readRef(ref: string, _context: GitContext): Promise<string | null> {
    return readRefSync(this.volume, this.gitdir, ref);
  }

  async checkedOutBranch(path: string, _context: GitContext): Promise<string | null> {
    return headOf(this.volume, this.checkout(path)).branch;
  }

  async diff(path: string, options: DiffOptions, _context: GitContext): Promise<WorkDiff> {
    const checkout = this.checkout(path);
    const changes = only(await this.changesOf(checkout, await this.objects.commitTree(options.base)), options.paths);
    const { patch, truncated } = await patchOf(this.volume, this.objects, path, changes, options.maxPatchBytes);
    return { files: changes.map(({ path: p, status }) => ({ path: p, status })), patch, truncated };
  }

  async commit(path: string, options: CommitOptions, _context: GitContext): Promise<CommitResult> {
    const message = commitMessage(options.message);
    const checkout = this.checkout(path);
    const head = headOf(this.volume, checkout);
    const parent = head.branch ? readRefSync(this.volume, this.gitdir, head.branch) : head.detached;
    const base = parent ? await this.objects.commitTree(parent) : null;
    const changes = only(await this.changesOf(checkout, base), options.paths);
    if (changes.length === 0) return { sha: null, files: [] };
    const states = [];
    for (const change of changes) {
      if (!change.after) {
        states.push({ path: change.path, state: null });
        continue;
      }
      const abs = `${path}/${change.path}`;
      const isLink = this.volume.lstatSync(abs).isSymbolicLink();
      const blob = isLink ? Buffer.from(String(this.volume.readlinkSync(abs))) : (this.volume.readFileSync(abs) as Buffer);
      const oid = await git.writeBlob({ fs: this.fs, gitdir: this.gitdir, blob });
      states.push({ path: change.path, state: { mode: change.after.mode, oid } });
    }
    const tree = await treeWithChanges({ fs: this.fs, gitdir: this.gitdir, objects: this.objects }, base, states);
    const sha = await git.writeCommit({
      fs: this.fs,
      gitdir: this.gitdir,
      commit: {
        message,
        tree,
        parent: parent ? [parent] : [],
        author: signature(options.author, options.timeMs),
        committer: signature(options.committer, options.timeMs),
      },
    });
    if (head.branch) {
      const moved = swapRefSync(this.volume, this.gitdir, head.branch, parent, sha);
      if (moved) throw new GitError('COMMAND_FAILED', 'commit', `${head.branch} moved to ${moved.head} during the commit`);
    } else if (readText(this.volume, `${checkout.meta}/HEAD`) === parent) {
      this.volume.writeFileSync(`${checkout.meta}/HEAD`, `${sha}\n`);
    } else throw new GitError('COMMAND_FAILED', 'commit', `HEAD of '${path}' moved during the commit`);
    if (checkout.main) await this.syncIndex(changes.map((c) => ({ path: c.path, present: c.after !== null })));
    return { sha, files: changes.map(({ path: p, status }) => ({ path: p, status })) };
  }

  async checkoutDetached(path: string, commit: string, _context: GitContext): Promise<void> {
    if (path === this.dir) throw new GitError('COMMAND_FAILED', 'worktree add', 'the main checkout cannot be detached by the lander');
    const tree = await this.objects.commitTree(commit);
    let meta = linkedMeta(this.volume, path);
    if (meta === null) {
      meta = freeMetaFor({ volume: this.volume, dir: this.dir, gitdir: this.gitdir }, path);
      this.volume.mkdirSync(path, { recursive: true });
      this.volume.mkdirSync(meta, { recursive: true });
      this.volume.writeFileSync(`${meta}/gitdir`, `${path}/.git\n`);
      this.volume.writeFileSync(`${path}/.git`, `gitdir: ${meta}\n`);
    }
    this.volume.writeFileSync(`${meta}/HEAD`, `${commit}\n`);
    await this.refill(path, tree);
  }

  async merge(
    path: string,
    commit: string,
    options: { message: string; committer: GitIdentity; timeMs: number },
    context: GitContext,
  ): Promise<MergeResult> {
    const checkout = this.checkout(path);
    const head = headOf(this.volume, checkout).detached;
    if (head === null) throw new GitError('COMMAND_FAILED', 'merge', `'${path}' is not a detached checkout`);
    const theirs = await this.objects.commitTree(commit);
    if (await this.isAncestor(head, commit, context)) {
      this.volume.writeFileSync(`${checkout.meta}/HEAD`, `${commit}\n`);
      await this.refill(path, theirs);
      return { ok: true, sha: commit, fastForward: true };
    }
    if (await this.isAncestor(commit, head, context)) return { ok: true, sha: head, fastForward: false };
    const who = signature(options.committer, options.timeMs);
    let sha: string | undefined;
    try {
      const result = await git.merge({
        fs: this.fs,
        gitdir: this.gitdir,
        ours: head,
        theirs: commit,
        fastForward: false,
        noUpdateBranch: true,
        abortOnConflict: true,
        message: commitMessage(options.message),
        author: who,
        committer: who,
      });
      sha = result.oid;
    } catch (e) {
      if (e instanceof Errors.MergeConflictError) return { ok: false, conflicts: [...new Set(e.data.filepaths)].sort() };
      const detail = e instanceof Errors.MergeNotSupportedError ? 'several merge bases (recursive merge is not supported)' : String(e);
      throw new GitError('COMMAND_FAILED', 'merge', detail, { cause: e });
    }
    if (!sha) throw new GitError('COMMAND_FAILED', 'merge', 'isomorphic-git made no merge commit');
    this.volume.writeFileSync(`${checkout.meta}/HEAD`, `${sha}\n`);
    await this.refill(path, await this.objects.commitTree(sha));
    return { ok: true, sha, fastForward: false };
  }

  async fastForward(ref: string, expected: string, next: string, _context: GitContext): Promise<FastForwardResult> {
    const current = readRefSync(this.volume, this.gitdir, ref);
    if (current !== expected) return { outcome: 'stale', head: current };
    const from = await this.objects.commitTree(expected);
    const to = await this.objects.commitTree(next);
    const checkouts = checkoutsOfBranch({ volume: this.volume, dir: this.dir, gitdir: this.gitdir }, ref);
    if (checkouts.length > 0) {
      const [before, after] = await Promise.all([flattenTree(this.objects, from), flattenTree(this.objects, to)]);
      const untracked = new Set<string>();
      for (const checkout of checkouts) for (const f of await memoryUnsafePaths(this.volume, checkout.dir, before, after)) untracked.add(f);
      if (untracked.size > 0) return { outcome: 'blocked', reason: 'UNTRACKED_FILES', files: [...untracked].sort() };
    }
    const moves: Array<{ checkout: Checkout; steps: FolderStep[]; settled: FolderStep[] }> = [];
    const blocked = new Set<string>();
    for (const checkout of checkouts) {
      const plan = await planFolderMove(this.volume, this.objects, checkout.dir, from, to, sparseOf(this.volume, checkout));
      if (plan.ok) moves.push({ checkout, steps: plan.steps, settled: plan.settled });
      else for (const f of plan.blocked) blocked.add(f);
    }
    if (blocked.size > 0) return { outcome: 'blocked', reason: 'UNCOMMITTED_CHANGES', files: [...blocked].sort() };
    for (const { checkout, steps, settled } of moves) {
      await applyFolderMove(this.volume, this.objects, checkout.dir, steps);
      if (checkout.main) await this.syncIndex([...steps, ...settled].map((s) => ({ path: s.path, present: s.entry !== null })));
    }
    const swapped = swapRefSync(this.volume, this.gitdir, ref, expected, next);
    if (swapped) return { outcome: 'stale', head: swapped.head };
    const readBack = readRefSync(this.volume, this.gitdir, ref);
    return readBack === next ? { outcome: 'moved' } : { outcome: 'stale', head: readBack };
  }

  async findTreePaths(commit: string, paths: readonly string[], _context: GitContext): Promise<string[]> {
    const root = await this.objects.commitTree(commit);
    const trees = new Map<string, string | null>([['', root]]);
    return findFoldedPaths(paths, async (prefix) => {
      const tree = trees.get(prefix);
      if (!tree) return null;
      const entries = await this.objects.readTree(tree);
      for (const e of entries) trees.set(prefix === '' ? e.name : `${prefix}/${e.name}`, e.type === 'tree' ? e.oid : null);
      return entries.map((e) => e.name);
    });
  }

  async findCheckoutPaths(path: string, paths: readonly string[], _context: GitContext): Promise<string[]> {
    const root = this.checkout(path).dir;
    return findFoldedPaths(paths, async (prefix) => {
      const folder = prefix === '' ? root : `${root}/${prefix}`;
      if (!this.volume.existsSync(folder) || !this.volume.lstatSync(folder).isDirectory()) return null;
      return (this.volume.readdirSync(folder) as unknown[]).map(String);
    });
  }

  async pinRef(ref: string, commit: string, _context: GitContext): Promise<void> {
    await this.objects.commitTree(commit);
    writeRefSync(this.volume, this.gitdir, ref, commit);
  }

  async mergeBase(a: string, b: string, _context: GitContext): Promise<string | null> {
    await this.objects.commitTree(a);
    await this.objects.commitTree(b);
    const [base] = await git.findMergeBase({ fs: this.fs, gitdir: this.gitdir, oids: [a, b] });
    return base ?? null;
  }

  async isAncestor(ancestor: string, commit: string, _context: GitContext): Promise<boolean> {
    await this.objects.commitTree(ancestor);
    await this.objects.commitTree(commit);
    if (ancestor === commit) return true;
    return git.isDescendent({ fs: this.fs, gitdir: this.gitdir, oid: commit, ancestor, depth: -1 });
  }

  async countAhead(base: string, head: string, _context: GitContext): Promise<number> {
    const behind = await this.reachable([base], new Set());
    return (await this.reachable([head], behind)).size;
  }

  async fetch(remote: string, branch: string, _context: GitContext): Promise<string | null> {
    const dir = memoryRemoteDir(remote);
    if (!dir || !this.volume.existsSync(`${dir}/HEAD`))
      throw new GitError('COMMAND_FAILED', 'fetch', `'${remote}' does not appear to be a git repository`);
    const sha = readRefSync(this.volume, dir, `refs/heads/${branch}`);
    if (sha === null) return null;
    await copyObjects(this.volume, dir, this.gitdir, sha);
    writeRefSync(this.volume, this.gitdir, `refs/remotes/${remote}/${branch}`, sha);
    return sha;
  }

  async push(remote: string, sha: string, branch: string, _context: GitContext): Promise<PushResult> {
    const dir = memoryRemoteDir(remote);
    if (!dir || !this.volume.existsSync(`${dir}/HEAD`)) return { ok: false, detail: `'${remote}' does not appear to be a git repository` };
    await this.objects.commitTree(sha);
    if (consumeRejection(this.volume, dir)) return { ok: false, detail: 'rejected by the remote (memory remote test seam)' };
    await copyObjects(this.volume, this.gitdir, dir, sha);
    const ref = `refs/heads/${branch}`;
    const current = readRefSync(this.volume, dir, ref);
    if (current === sha) return { ok: true };
    if (current !== null && !(await git.isDescendent({ fs: this.fs, gitdir: dir, oid: sha, ancestor: current, depth: -1 }))) {
      return { ok: false, detail: 'non-fast-forward' };
    }
    return swapRefSync(this.volume, dir, ref, current, sha) ? { ok: false, detail: 'non-fast-forward' } : { ok: true };
  }

  private checkout(path: string): Checkout {
    return checkoutAt({ volume: this.volume, dir: this.dir, gitdir: this.gitdir }, path);
  }

  /** The folder's changes against `tree`; in a sparse worktree, absent files outside its sparse set are not deletions. */
  private async changesOf(checkout: Checkout, tree: string | null): Promise<FolderChange[]> {
    const ignored = (filepath: string) => git.isIgnored({ fs: this.fs, dir: checkout.dir, gitdir: this.gitdir, filepath });
    const changes = await folderChanges(this.volume, this.objects, tree, checkout.dir, ignored);
    const sparse = sparseOf(this.volume, checkout);
    return sparse ? changes.filter((c) => c.status !== 'deleted' || sparse.has(c.path)) : changes;
  }

  /** Empties `path` (but its `.git`) and fills it from `tree`. */
  private async refill(path: string, tree: string): Promise<void> {
    emptyFolder(this.volume, path);
    await checkoutTree(this.volume, this.objects, tree, path);
  }

  /** Brings the main checkout's index entries for `files` in line with the folder. */
  private async syncIndex(files: ReadonlyArray<{ path: string; present: boolean }>): Promise<void> {
    for (const file of files) {
      if (file.present) await git.add({ fs: this.fs, dir: this.dir, gitdir: this.gitdir, filepath: file.path, force: true });
      else await git.remove({ fs: this.fs, dir: this.dir, gitdir: this.gitdir, filepath: file.path });
    }
  }

  /** Commits reachable from `starts`, not walking into `stop`. */
  private async reachable(starts: readonly string[], stop: ReadonlySet<string>): Promise<Set<string>> {
    const seen = new Set<string>();
    const queue = starts.filter((s) => !stop.has(s));
    while (queue.length > 0) {
      const oid = queue.pop() as string;
      if (seen.has(oid) || stop.has(oid)) continue;
      seen.add(oid);
      const { commit } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid }).catch((e: unknown) => {
        throw new GitError('BAD_REF', 'rev-list', `${oid} is not a readable commit`, { cause: e });
      });
      queue.push(...commit.parent);
    }
    return seen;
  }
}

/** The changes at or under one of `paths` (literal, repository-relative); all of them when absent. */
function only(changes: FolderChange[], paths: readonly string[] | undefined): FolderChange[] {
  if (!paths) return changes;
  const roots = paths.map((p) => p.replace(/^\.\/|\/+$/g, ''));
  if (roots.some((r) => r === '' || r === '.')) return changes;
  return changes.filter((c) => roots.some((r) => c.path === r || c.path.startsWith(`${r}/`)));
}

/** A message as git stores it (trailing whitespace dropped, one final newline). `COMMAND_FAILED` when empty. */
function commitMessage(message: string): string {
  const trimmed = message.replace(/\s+$/, '');
  if (trimmed.trim() === '') throw new GitError('COMMAND_FAILED', 'commit', 'Aborting commit due to empty commit message.');
  return `${trimmed}\n`;
}

function signature(who: GitIdentity, timeMs: number) {
  return { name: who.name, email: who.email, timestamp: Math.floor(timeMs / 1000), timezoneOffset: 0 };
}
