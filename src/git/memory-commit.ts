/**
 * `commitCheckout`: the landing port's `commit` in a memfs repository, as `git add -A [-- paths]`
 * then `git commit --cleanup=whitespace` would make it: every change of the checkout against its
 * HEAD commit (untracked files included, ignored ones not), or only those at or under `paths`,
 * in one commit on the checked-out branch (or the detached HEAD), the ref moved by
 * compare-and-swap. The message is cleaned as git cleans it (`cleanMessage`).
 */
import git from 'isomorphic-git';
import { GitError } from './git-port.js';
import type { CommitOptions, CommitResult, GitIdentity } from './landing-git.js';
import { assertSignature } from './landing-names.js';
import { changesUnder, diskBytes } from './memory-changes.js';
import type { Checkout, MemoryCheckouts } from './memory-checkouts.js';
import { readText, swapRefSync } from './memory-refs.js';
import { entryAt } from './memory-sparse.js';
import { treeWithChanges } from './tree-with-changes.js';

/**
 * Commits the checkout's changes (see the file comment). Result: the new commit and its files,
 * or `sha: null` when there is nothing to commit. `COMMAND_FAILED`: an unusable identity, an
 * empty message, a path that matches no file (tracked or on disk), or a ref that moved meanwhile.
 */
export async function commitCheckout(repo: MemoryCheckouts, checkout: Checkout, options: CommitOptions): Promise<CommitResult> {
  assertSignature(options.author, 'author', options.timeMs);
  assertSignature(options.committer, 'committer', options.timeMs);
  if (options.paths?.length === 0) return { sha: null, files: [] };
  const head = repo.head(checkout);
  const base = head.commit ? await repo.objects.commitTree(head.commit) : null;
  for (const path of options.paths ?? []) await assertPathMatches(repo, checkout, base, path);
  const changes = changesUnder(await repo.changes(checkout, base), options.paths);
  if (changes.length === 0) return { sha: null, files: [] };
  const message = cleanMessage(options.message);
  if (message === '') throw new GitError('COMMAND_FAILED', 'commit', 'Aborting commit due to empty commit message.');
  const { fs, gitdir } = repo;
  const states = [];
  for (const change of changes) {
    const blob = change.after ? await git.writeBlob({ fs, gitdir, blob: diskBytes(repo.volume, `${checkout.dir}/${change.path}`) }) : null;
    states.push({ path: change.path, state: change.after && blob ? { mode: change.after.mode, oid: blob } : null });
  }
  const tree = await treeWithChanges({ fs, gitdir, objects: repo.objects }, base, states);
  const commit = {
    message,
    tree,
    parent: head.commit ? [head.commit] : [],
    author: signature(options.author, options.timeMs),
    committer: signature(options.committer, options.timeMs),
  };
  const sha = await git.writeCommit({ fs, gitdir, commit });
  moveHead(repo, checkout, head, sha);
  if (checkout.main) await repo.syncIndex(changes.map((c) => ({ path: c.path, present: c.after !== null })));
  return { sha, files: changes.map(({ path, status }) => ({ path, status })) };
}

/**
 * A commit message as `git commit --cleanup=whitespace` stores it: trailing whitespace of each
 * line dropped, blank lines at the start and end dropped, runs of blank lines made one, one
 * final newline; '' when nothing is left. Whitespace is ASCII whitespace, as git's `isspace`.
 */
export function cleanMessage(message: string): string {
  const lines: string[] = [];
  for (const line of message.split('\n').map((l) => l.replace(/[ \t\v\f\r]+$/, ''))) {
    if (line === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(line);
  }
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** Moves the checkout's branch (or its detached HEAD) from where it was to `sha`; `COMMAND_FAILED` when it moved meanwhile. */
function moveHead(repo: MemoryCheckouts, checkout: Checkout, head: { branch: string | null; commit: string | null }, sha: string): void {
  if (head.branch) {
    const moved = swapRefSync(repo.volume, repo.gitdir, head.branch, head.commit, sha);
    if (moved) throw new GitError('COMMAND_FAILED', 'commit', `${head.branch} moved to ${moved.head} during the commit`);
  } else if (readText(repo.volume, `${checkout.meta}/HEAD`) === head.commit) {
    repo.volume.writeFileSync(`${checkout.meta}/HEAD`, `${sha}\n`);
  } else throw new GitError('COMMAND_FAILED', 'commit', `HEAD of '${checkout.dir}' moved during the commit`);
}

/** `COMMAND_FAILED` unless `path` names something tracked in `tree` or present in the checkout (`git add -- path`). */
async function assertPathMatches(repo: MemoryCheckouts, checkout: Checkout, tree: string | null, path: string): Promise<void> {
  const rel = path.replace(/^\.\/|\/+$/g, '');
  if (rel === '' || rel === '.' || repo.exists(`${checkout.dir}/${rel}`)) return;
  if (tree && (await entryAt(repo.objects, tree, rel))) return;
  throw new GitError('COMMAND_FAILED', 'add', `pathspec '${path}' did not match any files`);
}

/** An identity at a time as isomorphic-git takes it (UTC, whole seconds, as the CLI's `@<seconds> +0000`). */
export function signature(who: GitIdentity, timeMs: number): { name: string; email: string; timestamp: number; timezoneOffset: number } {
  return { name: who.name, email: who.email, timestamp: Math.floor(timeMs / 1000), timezoneOffset: 0 };
}
