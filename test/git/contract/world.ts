/**
 * What the git contract suite (./suite.ts) runs on: one repository with both git ports over it,
 * the files of its checkouts, and the few things a test must do behind the ports' back (break
 * the repository, read a commit object, make a remote). `cli-world.ts` builds it on the git
 * program and a temp folder, `memory-world.ts` on isomorphic-git and a memfs volume.
 *
 * Every path is absolute in the world's own file system: a host path for the CLI, a volume path
 * for memory. The seed commit is the memory host's (`seedMemoryRepository`): author and
 * committer `gatefs <gatefs@memory.invalid>` at `T0`, message `initial`, so both worlds start
 * from the same SHA.
 */
import type { GitContext, GitPort } from '../../../src/git/git-port.js';
import type { CommitOptions, GitIdentity, LandingGit } from '../../../src/git/landing-git.js';

/** Repository-relative path → content. */
export type Files = Readonly<Record<string, string | Uint8Array>>;

/** The files of a world (host paths or volume paths, absolute). */
export interface WorldFiles {
  /** Writes a file, creating the folders on the way; an existing file is replaced. */
  write(path: string, content: string | Uint8Array): void;
  /** A file's text. Throws when there is none. */
  read(path: string): string;
  /** True when something (a link included, never followed) is at `path`. */
  exists(path: string): boolean;
  /** Removes a file, link or folder with everything in it; nothing there is fine. */
  remove(path: string): void;
  mkdir(path: string): void;
  symlink(target: string, path: string): void;
  chmod(path: string, mode: number): void;
  /**
   * Every file, link and folder under `dir` but its top-level `.git`, with its bytes (files),
   * `-> target` (links) or `dir` (folders, named with a trailing `/`): what a person would
   * notice changing.
   */
  snapshot(dir: string): Record<string, string>;
}

/** One repository with both ports over it (see the file comment). */
export interface GitWorld {
  /** The main checkout (the integration checkout), on branch `main`. */
  readonly repo: string;
  readonly git: GitPort;
  readonly landing: LandingGit;
  readonly files: WorldFiles;
  /** A path beside the repository where nothing is yet (worktrees, the lander's checkouts). */
  place(name: string): string;
  /** Makes the repository unreadable as one: its git dir loses `HEAD`, as a half-deleted `.git` would. */
  breakRepository(): void;
  /**
   * A commit on top of main's head whose tree also holds a submodule entry (a gitlink, mode
   * 160000) `name` at the top, pointing at `target`; no branch moves. Result: its SHA.
   */
  commitGitlink(name: string, target: string): Promise<string>;
  /** The raw text of a commit object (`git cat-file commit`). */
  commitText(sha: string): Promise<string>;
  /** Creates `name` as an empty bare remote the repository can fetch from and push to. */
  createRemote(name: string): Promise<void>;
  /** Makes the next push to remote `name` be refused by the remote (a pre-receive hook, a test seam). */
  refuseNextPush(name: string): void;
  /** The commit a branch of remote `name` points at, read on the remote itself; null when none. */
  remoteBranch(name: string, branch: string): Promise<string | null>;
  cleanup(): void;
}

/** Builds a world whose repository holds `files` in one seed commit on `main`; `null`: an empty repository, no commit. */
export type GitWorldSetup = (files: Files | null) => Promise<GitWorld>;

/** The standard repository: text, a nested file, a script, a binary file and an ignore rule. */
export const STANDARD: Files = {
  '.gitignore': '*.log\n',
  'a.txt': 'A\n',
  'b.txt': 'B\n',
  'bin.dat': new Uint8Array([0, 1, 2, 0]),
  'run.sh': 'echo\n',
  'src/c.ts': 'C\n',
};

/** Opens a world (`STANDARD` by default); each is cleaned up after its test. */
export type OpenWorld = (files?: Files | null) => Promise<GitWorld>;

/** The seed commit's time (the memory host's default clock). */
export const T0 = Date.UTC(2026, 0, 1);

/** Every port call's context. */
export const CTX: GitContext = { tag: 'contract', chain: ['c1'] };

export const ALICE: GitIdentity = { name: 'Alice Agent', email: 'alice@gatefs.invalid' };
export const GATEFS: GitIdentity = { name: 'gatefs', email: 'gatefs@gatefs.invalid' };

/** Commit options: `message` by Alice, committed by gatefs, `minutes` after `T0`. */
export function by(message: string, minutes = 1): CommitOptions {
  return { message, author: ALICE, committer: GATEFS, timeMs: T0 + minutes * 60_000 };
}

/** Merge options: `message`, committed by gatefs, `minutes` after `T0`. */
export function landing(message: string, minutes = 10): { message: string; committer: GitIdentity; timeMs: number } {
  return { message, committer: GATEFS, timeMs: T0 + minutes * 60_000 };
}

/** What a test changes in a checkout: files written, paths removed (first). */
export interface Change {
  write?: Files;
  remove?: readonly string[];
}

/** Applies `change` to the checkout at `dir`. */
export function apply(w: GitWorld, dir: string, change: Change): void {
  for (const path of change.remove ?? []) w.files.remove(`${dir}/${path}`);
  for (const [path, content] of Object.entries(change.write ?? {})) w.files.write(`${dir}/${path}`, content);
}

/**
 * A commit on a new branch `branch` made from `from` with `change`, through the ports: a worktree
 * at `place(branch)`, the change written there, `landing.commit`. Result: the commit's SHA.
 */
export async function commitOnBranch(w: GitWorld, branch: string, from: string, change: Change, minutes = 1): Promise<string> {
  const dir = w.place(branch.replace(/\//g, '-'));
  await w.git.addWorktree({ path: dir, branch, base: from }, CTX);
  apply(w, dir, change);
  const { sha } = await w.landing.commit(dir, by(`work on ${branch}`, minutes), CTX);
  if (sha === null) throw new Error(`the change on ${branch} committed nothing`);
  return sha;
}

/** The SHA of `main` (read through the landing port). */
export async function mainHead(w: GitWorld): Promise<string> {
  const sha = await w.landing.readRef('refs/heads/main', CTX);
  if (sha === null) throw new Error('main has no commit');
  return sha;
}

/** The parents, author line, committer line and message of a commit's raw text. */
export function parseCommit(text: string): { tree: string; parents: string[]; author: string; committer: string; message: string } {
  const end = text.indexOf('\n\n');
  const headers = text.slice(0, end).split('\n');
  const value = (key: string) => headers.filter((h) => h.startsWith(`${key} `)).map((h) => h.slice(key.length + 1));
  return {
    tree: value('tree')[0] ?? '',
    parents: value('parent'),
    author: value('author')[0] ?? '',
    committer: value('committer')[0] ?? '',
    message: text.slice(end + 2),
  };
}
