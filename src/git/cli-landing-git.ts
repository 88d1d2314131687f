/**
 * `CliLandingGit`: the landing port on the git program, run through the host-exec port (each
 * command in the run log with its task tag and conversation chain). Production implementation.
 *
 * Every command except fetch and push runs neutralised (see neutral-git-config.ts): hooks,
 * fsmonitor, signing, gc, global and system config off, and every filter, diff and merge driver
 * the repository's config defines emptied (a custom merge driver turns its file into a conflict).
 * The driver list is read fresh for each method call, in the folder the commands run in (one
 * `git config` process; nothing runs); a new worktree is made empty and filled in a session
 * read inside it. Fetch and push keep the user's global config but never run the repository's
 * hooks, and are refused when the repository's own config names a transport program
 * (`core.sshCommand`, a credential helper, …): a refused push is a failed push.
 *
 * Commands run through `NeutralGitRunner`; in a worktree they cannot reach an enclosing
 * repository (`GIT_CEILING_DIRECTORIES`), and `checkoutDetached` also checks that an existing
 * folder is a worktree of this repository before it forces and cleans. Limits: a `read-tree`
 * killed half-way leaves an `index.lock` that git refuses to pass (`COMMAND_FAILED`), and a
 * person committing in a checked-out worktree during `fastForward` races it like any two git
 * commands would.
 */
import { copyFile, lstat, mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostExec } from '../ports/index.js';
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
import { assertFullRef, assertSha, assertSignature, remoteTrackingRef } from './landing-names.js';
import type { TreeChange } from './checkout-safety.js';
import { unsafeCheckoutPaths } from './cli-checkout-safety.js';
import { findFoldedPaths } from './folded-tree-paths.js';
import { foreignCodeOf } from '../../vfs/index.js';
import { capPatch, parseDiffTreeRawZ, parseDiffTreeZ, parseNameStatusZ, parseReadTreeRefusal } from './landing-porcelain.js';
import {
  NeutralGitRunner,
  commandFailure as failure,
  failureDetail,
  refReadFailure,
  type GitSession as Session,
} from './neutral-git-runner.js';
import { parseWorktreeListZ } from './porcelain.js';

/** How a `CliLandingGit` is made: the repository, the host-exec port, and a per-command timeout. */
interface CliLandingGitOptions {
  /** The integration checkout (a host path): where repository-wide commands run. */
  repo: string;
  exec: HostExec;
  /** Per-command timeout (default 10 minutes). */
  timeoutMs?: number;
}

/** The landing port on the git program through host exec (see the file comment). */
export class CliLandingGit implements LandingGit {
  private readonly repo: string;
  private readonly git: NeutralGitRunner;

  constructor(options: CliLandingGitOptions) {
    this.repo = options.repo;
    this.git = new NeutralGitRunner(options.exec, options.timeoutMs ?? 600_000);
  }

  async readRef(ref: string, context: GitContext): Promise<string | null> {
    assertFullRef(ref, 'show-ref');
    return this.readRefIn(this.git.refSession(this.repo, context, false), ref);
  }

  async checkedOutBranch(path: string, context: GitContext): Promise<string | null> {
    const s = this.git.refSession(path, context, true);
    const r = await this.git.run(s, ['symbolic-ref', '--quiet', 'HEAD']);
    if (r.exitCode === 0) return r.stdout.trim();
    if (r.exitCode === 1) return null;
    throw failure('symbolic-ref', r);
  }

  async diff(path: string, options: DiffOptions, context: GitContext): Promise<WorkDiff> {
    assertSha(options.base, 'diff');
    if (options.paths?.length === 0) return { files: [], patch: '', truncated: false };
    const s = await this.git.session(path, context, true);
    const real = (await this.git.check(s, ['rev-parse', '--path-format=absolute', '--git-path', 'index'], 'rev-parse')).stdout.trim();
    const folder = await mkdtemp(join(tmpdir(), 'gatefs-diff-'));
    try {
      // A copy keeps the real index's stat data (no rehash of unchanged files) and its
      // skip-worktree bits (a sparse worktree's absent files are not deletions).
      const index = join(folder, 'index');
      await copyFile(real, index).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
      const t: Session = { ...s, env: { ...s.env, GIT_INDEX_FILE: index } };
      await this.git.check(t, ['add', '-A'], 'add');
      const spec = options.paths ? ['--', ...options.paths] : [];
      const base = ['diff-index', '--cached', '--no-renames', '--no-ext-diff', '--no-textconv', '--no-color'];
      const names = await this.git.check(t, [...base, '--name-status', '-z', options.base, ...spec], 'diff-index');
      const patch = await this.git.check(t, [...base, '-p', options.base, ...spec], 'diff-index');
      const capped = capPatch(patch.stdout, options.maxPatchBytes);
      return { files: parseNameStatusZ(names.stdout), patch: capped.patch, truncated: capped.truncated || patch.outputTruncated === true };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  async commit(path: string, options: CommitOptions, context: GitContext): Promise<CommitResult> {
    if (options.paths?.length === 0) return { sha: null, files: [] };
    const who = {
      ...identityEnv('AUTHOR', options.author, options.timeMs),
      ...identityEnv('COMMITTER', options.committer, options.timeMs),
    };
    const s = await this.git.session(path, context, true);
    const c: Session = { ...s, env: { ...s.env, ...who } };
    const only = options.paths ? ['--only', '--', ...options.paths] : [];
    await this.git.check(c, ['add', '-A', ...(options.paths ? ['--', ...options.paths] : [])], 'add');
    const flags = ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '--no-edit', '--cleanup=whitespace', '-m', options.message];
    const r = await this.git.run(c, [...flags, ...only]);
    if (r.exitCode !== 0) {
      // "Nothing to commit" is the index (or the named paths) matching HEAD; anything else is a failure.
      const same = await this.git.run(c, [
        'diff',
        '--cached',
        '--quiet',
        '--no-ext-diff',
        '--no-textconv',
        ...(options.paths ? ['--', ...options.paths] : []),
      ]);
      if (same.exitCode === 0) return { sha: null, files: [] };
      throw failure('commit', r);
    }
    const tree = await this.git.check(c, ['diff-tree', '-r', '-z', '--name-status', '--no-renames', '--root', 'HEAD'], 'diff-tree');
    return parseDiffTreeZ(tree.stdout);
  }

  async checkoutDetached(path: string, commit: string, context: GitContext): Promise<void> {
    assertSha(commit, 'checkout');
    if (!(await exists(path))) {
      // Made empty, then filled in a session read inside it: config that applies only to the
      // new worktree (`includeIf "gitdir:…"`) is not in the main checkout's driver list.
      const r = this.git.refSession(this.repo, context, false);
      await this.git.check(r, ['worktree', 'add', '--detach', '--force', '--no-checkout', '--quiet', '--', path, commit], 'worktree add');
      await this.git.check(await this.git.session(path, context, true), ['read-tree', '-m', '-u', 'HEAD'], 'read-tree');
      return;
    }
    const s = await this.git.session(path, context, true);
    await this.assertWorktreeOfRepo(s);
    await this.git.check(s, ['checkout', '--detach', '--force', '--quiet', commit], 'checkout');
    await this.git.check(s, ['clean', '-ffdxq'], 'clean');
  }

  async merge(
    path: string,
    commit: string,
    options: { message: string; committer: GitIdentity; timeMs: number },
    context: GitContext,
  ): Promise<MergeResult> {
    assertSha(commit, 'merge');
    const s = await this.git.session(path, context, true);
    const head = (await this.git.check(s, ['rev-parse', '--verify', 'HEAD'], 'rev-parse')).stdout.trim();
    const base = await this.mergeBaseIn(s, head, commit);
    if (base === head) {
      await this.git.check(s, ['checkout', '--detach', '--quiet', commit], 'checkout');
      return { ok: true, sha: commit, fastForward: true };
    }
    if (base === commit) return { ok: true, sha: head, fastForward: false };
    const who = {
      ...identityEnv('AUTHOR', options.committer, options.timeMs),
      ...identityEnv('COMMITTER', options.committer, options.timeMs),
    };
    const m: Session = { ...s, env: { ...s.env, ...who } };
    const flags = [
      'merge',
      '--no-ff',
      '--no-edit',
      '--no-verify',
      '--no-gpg-sign',
      '--no-verify-signatures',
      '--no-log',
      '--no-stat',
      '--no-squash',
      '--no-autostash',
      '--no-rerere-autoupdate',
      '--strategy=ort',
      '--cleanup=whitespace',
      '--quiet',
    ];
    const r = await this.git.run(m, [...flags, '-m', options.message, commit]);
    if (r.exitCode === 0)
      return { ok: true, sha: (await this.git.check(s, ['rev-parse', '--verify', 'HEAD'], 'rev-parse')).stdout.trim(), fastForward: false };
    const unmerged = await this.git.check(s, ['diff', '--name-only', '--diff-filter=U', '-z', '--no-ext-diff'], 'diff');
    const conflicts = unmerged.stdout.split('\0').filter(Boolean).sort();
    const inMerge = (await this.git.run(s, ['rev-parse', '--quiet', '--verify', 'MERGE_HEAD'])).exitCode === 0;
    if (inMerge) await this.git.check(s, ['merge', '--abort'], 'merge --abort');
    if (conflicts.length === 0) throw failure('merge', r);
    return { ok: false, conflicts };
  }

  async fastForward(ref: string, expected: string, next: string, context: GitContext): Promise<FastForwardResult> {
    assertFullRef(ref, 'update-ref');
    assertSha(expected, 'update-ref');
    assertSha(next, 'update-ref');
    const s = this.git.refSession(this.repo, context, false);
    const list = await this.git.check(s, ['worktree', 'list', '--porcelain', '-z'], 'worktree list');
    const holders = [];
    for (const w of parseWorktreeListZ(list.stdout)) if (w.branch === ref && (await exists(w.path))) holders.push(w);
    // First every check, then every move: a blocked update changes nothing in any checkout.
    // The tree diff (`--raw`: modes and ids, no content read, no driver) needs no driver list and
    // overlaps the sessions' start and index refresh (stat data only: no file changes).
    const moving: { path: string; session: Session }[] = [];
    let diff: Promise<TreeChange[]> | undefined;
    for (const w of holders) {
      if (w.head === next) continue;
      if (w.head !== expected) return { outcome: 'stale', head: w.head };
      if (!diff) {
        diff = this.git
          .check(s, ['diff-tree', '-r', '-t', '-z', '--raw', '--no-renames', '--no-abbrev', expected, next], 'diff-tree')
          .then((r) => parseDiffTreeRawZ(r.stdout));
        diff.catch(() => {}); // awaited below; a session failing first must not leave it unhandled
      }
      const t = await this.git.session(w.path, context, true);
      // read-tree trusts the index's stat data: a file only touched would read as "not uptodate".
      // The refresh's own exit status (1 when files are modified) is read-tree's to report.
      await this.git.run(t, ['update-index', '-q', '--refresh']);
      const untracked = await unsafeCheckoutPaths(this.git, t, w.path, await diff);
      if (untracked.length > 0) return { outcome: 'blocked', reason: 'UNTRACKED_FILES', files: untracked };
      moving.push({ path: w.path, session: t });
    }
    for (const { session: t } of moving) {
      const r = await this.git.run(t, ['read-tree', '-m', '-u', expected, next]);
      if (r.exitCode !== 0) {
        const files = parseReadTreeRefusal(r.stderr);
        if (files.length > 0) return { outcome: 'blocked', reason: 'UNCOMMITTED_CHANGES', files };
        throw failure('read-tree', r);
      }
    }
    const u = await this.git.run(s, ['update-ref', '-m', 'gatefs: fast-forward', ref, next, expected]);
    const head = await this.readRefIn(s, ref);
    if (u.exitCode !== 0 && head !== next) {
      if (head === expected) throw failure('update-ref', u);
      // Someone moved the branch meanwhile: bring checked-out files back to where the branch's
      // index came from (best effort; their own changes are kept or the step refuses).
      for (const { session: t } of moving) await this.git.run(t, ['read-tree', '-m', '-u', next, expected]);
      return { outcome: 'stale', head };
    }
    if (head === next || (head !== null && (await this.isAncestorIn(s, next, head)))) return { outcome: 'moved' };
    return { outcome: 'stale', head };
  }

  async findTreePaths(commit: string, paths: readonly string[], context: GitContext): Promise<string[]> {
    assertSha(commit, 'ls-tree');
    const s = this.git.refSession(this.repo, context, false);
    return findFoldedPaths(paths, async (prefix) => {
      const r = await this.git.run(s, ['ls-tree', '-z', '--name-only', prefix === '' ? commit : `${commit}:${prefix}`]);
      return r.exitCode === 0 ? r.stdout.split('\0').filter(Boolean) : null;
    });
  }

  async findCheckoutPaths(path: string, paths: readonly string[], _context: GitContext): Promise<string[]> {
    return findFoldedPaths(paths, async (prefix) => {
      const folder = prefix === '' ? path : join(path, prefix);
      try {
        if (prefix !== '' && !(await lstat(folder)).isDirectory()) return null;
        return await readdir(folder);
      } catch (e) {
        const code = foreignCodeOf(e);
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        throw e;
      }
    });
  }

  async pinRef(ref: string, commit: string, context: GitContext): Promise<void> {
    assertFullRef(ref, 'update-ref');
    assertSha(commit, 'update-ref');
    await this.git.check(this.git.refSession(this.repo, context, false), ['update-ref', '-m', 'gatefs: pin', ref, commit], 'update-ref');
  }

  async mergeBase(a: string, b: string, context: GitContext): Promise<string | null> {
    assertSha(a, 'merge-base');
    assertSha(b, 'merge-base');
    return this.mergeBaseIn(this.git.refSession(this.repo, context, false), a, b);
  }

  async isAncestor(ancestor: string, commit: string, context: GitContext): Promise<boolean> {
    assertSha(ancestor, 'merge-base');
    assertSha(commit, 'merge-base');
    return this.isAncestorIn(this.git.refSession(this.repo, context, false), ancestor, commit);
  }

  async countAhead(base: string, head: string, context: GitContext): Promise<number> {
    assertSha(base, 'rev-list');
    assertSha(head, 'rev-list');
    const r = await this.git.check(this.git.refSession(this.repo, context, false), ['rev-list', '--count', `${base}..${head}`], 'rev-list');
    return Number.parseInt(r.stdout.trim(), 10);
  }

  async fetch(remote: string, branch: string, context: GitContext): Promise<string | null> {
    const tracking = remoteTrackingRef(remote, branch, 'fetch');
    const args = [
      'fetch',
      '--no-tags',
      '--no-recurse-submodules',
      '--no-write-fetch-head',
      '--no-auto-maintenance',
      '--quiet',
      '--upload-pack=git-upload-pack',
    ];
    const r = await this.git.network(this.repo, [...args, '--', remote, `+refs/heads/${branch}:${tracking}`], context);
    if (r.exitCode !== 0) {
      if (/couldn't find remote ref/.test(r.stderr)) return null;
      throw failure('fetch', r);
    }
    return this.readRefIn(this.git.refSession(this.repo, context, false), tracking);
  }

  async push(remote: string, sha: string, branch: string, context: GitContext): Promise<PushResult> {
    remoteTrackingRef(remote, branch, 'push');
    assertSha(sha, 'push');
    const args = ['push', '--no-verify', '--recurse-submodules=no', '--quiet', '--receive-pack=git-receive-pack'];
    // A transport program the repository's config names is refused like a rejected push: the
    // landing stays local and the push is tried again.
    const r = await this.git.network(this.repo, [...args, '--', remote, `${sha}:refs/heads/${branch}`], context).catch((e: unknown) => {
      if (isGitError(e)) return e;
      throw e;
    });
    if (r instanceof GitError) return { ok: false, detail: r.detail };
    if (r.exitCode === 0) return { ok: true };
    return { ok: false, detail: failureDetail(r) };
  }

  /** Refuses (`NOT_A_GIT_REPOSITORY`) a folder that is not a worktree of this repository. */
  private async assertWorktreeOfRepo(s: Session): Promise<void> {
    const args = ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'];
    const [mine, ours] = await Promise.all([this.git.run(s, args), this.git.run(this.git.refSession(this.repo, s.context, false), args)]);
    const [top, common] = mine.stdout.trim().split('\n');
    const repoCommon = ours.stdout.trim().split('\n')[1];
    if (mine.exitCode !== 0 || ours.exitCode !== 0 || top !== (await realpath(s.cwd)) || common !== repoCommon) {
      throw new GitError('NOT_A_GIT_REPOSITORY', 'rev-parse', 'the folder is not a worktree of this repository');
    }
  }

  private async readRefIn(s: Session, ref: string): Promise<string | null> {
    const r = await this.git.run(s, ['show-ref', '--verify', '--hash', ref]);
    if (r.exitCode === 0) return r.stdout.trim();
    if (r.exitCode === 1 || /not a valid ref/.test(r.stderr)) return null;
    throw refReadFailure('show-ref', r);
  }

  private async mergeBaseIn(s: Session, a: string, b: string): Promise<string | null> {
    const r = await this.git.run(s, ['merge-base', a, b]);
    if (r.exitCode === 0) return r.stdout.trim();
    if (r.exitCode === 1) return null;
    throw failure('merge-base', r);
  }

  private async isAncestorIn(s: Session, ancestor: string, commit: string): Promise<boolean> {
    const r = await this.git.run(s, ['merge-base', '--is-ancestor', ancestor, commit]);
    if (r.exitCode === 0) return true;
    if (r.exitCode === 1) return false;
    throw failure('merge-base', r);
  }
}

/** `GIT_<ROLE>_NAME/EMAIL/DATE` for an identity; refuses names git would rewrite or reject. */
function identityEnv(role: 'AUTHOR' | 'COMMITTER', who: GitIdentity, timeMs: number): Record<string, string> {
  assertSignature(who, role === 'AUTHOR' ? 'author' : 'committer', timeMs);
  return { [`GIT_${role}_NAME`]: who.name, [`GIT_${role}_EMAIL`]: who.email, [`GIT_${role}_DATE`]: `@${Math.floor(timeMs / 1000)} +0000` };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
