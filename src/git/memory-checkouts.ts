/**
 * Where the memory host's checkouts are and what they have checked out, laid out as git lays
 * out linked worktrees (see `MemoryGit`): the main checkout `dir` with its git dir `<dir>/.git`,
 * and linked ones — a folder whose `.git` file says `gitdir: <gitdir>/worktrees/<name>`, that
 * folder holding `gitdir` (back to the `.git` file) and `HEAD` (`ref: refs/heads/x`, or a SHA
 * when detached).
 */
import type { Volume } from 'memfs';
import { GitError } from './git-port.js';
import { readText } from './memory-refs.js';
import { readSparsePaths } from './memory-sparse.js';

type Vol = InstanceType<typeof Volume>;

/** One checkout: its folder, its own git dir (`HEAD` lives there), and whether it is the main one. */
export interface Checkout {
  dir: string;
  meta: string;
  main: boolean;
}

/** The repository a checkout belongs to: the main folder and its git dir. */
export interface RepositoryLayout {
  volume: Vol;
  dir: string;
  gitdir: string;
}

/** The checkout at `path`. `COMMAND_FAILED` when `path` is neither the main checkout nor a linked worktree. */
export function checkoutAt(repo: RepositoryLayout, path: string): Checkout {
  if (path === repo.dir) return { dir: path, meta: repo.gitdir, main: true };
  const meta = linkedMeta(repo.volume, path);
  if (meta === null) throw new GitError('COMMAND_FAILED', 'worktree', `'${path}' is not a worktree`);
  return { dir: path, meta, main: false };
}

/** The git dir a linked worktree's `.git` file points at, or null when there is no such file. */
export function linkedMeta(volume: Vol, path: string): string | null {
  const pointer = readText(volume, `${path}/.git`);
  if (pointer === null || !pointer.startsWith('gitdir: ')) return null;
  try {
    if (!volume.lstatSync(`${path}/.git`).isFile()) return null;
  } catch {
    return null;
  }
  return pointer.slice('gitdir: '.length);
}

/** What a checkout's HEAD holds: the branch (full ref) or null when detached, and the raw SHA when detached. */
export function headOf(volume: Vol, checkout: Checkout): { branch: string | null; detached: string | null } {
  const head = readText(volume, `${checkout.meta}/HEAD`);
  if (head === null) throw new GitError('COMMAND_FAILED', 'rev-parse', `'${checkout.dir}' has no HEAD`);
  if (head.startsWith('ref: ')) return { branch: head.slice(5), detached: null };
  return { branch: null, detached: head };
}

/** Every checkout (main first, then linked ones by name) whose HEAD is `ref: <ref>` and whose folder exists. */
export function checkoutsOfBranch(repo: RepositoryLayout, ref: string): Checkout[] {
  const found: Checkout[] = [];
  if (readText(repo.volume, `${repo.gitdir}/HEAD`) === `ref: ${ref}`) found.push({ dir: repo.dir, meta: repo.gitdir, main: true });
  const root = `${repo.gitdir}/worktrees`;
  if (!repo.volume.existsSync(root)) return found;
  for (const name of (repo.volume.readdirSync(root) as unknown[]).map(String).sort()) {
    const meta = `${root}/${name}`;
    if (readText(repo.volume, `${meta}/HEAD`) !== `ref: ${ref}`) continue;
    const dir = (readText(repo.volume, `${meta}/gitdir`) ?? '').replace(/\/\.git$/, '');
    if (dir !== '' && repo.volume.existsSync(dir)) found.push({ dir, meta, main: false });
  }
  return found;
}

/**
 * A git dir name for a new linked worktree at `path`: its folder's name, or that name with the
 * first free number appended when another worktree already uses it (as `git worktree add` does).
 */
export function freeMetaFor(repo: RepositoryLayout, path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  for (let n = 0; ; n++) {
    const meta = `${repo.gitdir}/worktrees/${n === 0 ? base : `${base}${n}`}`;
    const owner = readText(repo.volume, `${meta}/gitdir`);
    if (owner === null || owner === `${path}/.git`) return meta;
  }
}

/** The sparse paths of a checkout, or null for a full one (the main checkout is always full). */
export function sparseOf(volume: Vol, checkout: Checkout): Set<string> | null {
  return checkout.main ? null : readSparsePaths(volume, checkout.meta);
}

/** Removes everything in the folder `dir` except its top-level `.git`. */
export function emptyFolder(volume: Vol, dir: string): void {
  for (const name of (volume.readdirSync(dir) as unknown[]).map(String)) {
    if (name !== '.git') volume.rmSync(`${dir}/${name}`, { recursive: true, force: true });
  }
}
