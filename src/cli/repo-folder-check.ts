/**
 * `checkRepoFolder`: refuses, before anything is created, a repository folder that would give
 * gatefs a second state directory by mistake:
 *
 * - a gatefs workspace (`<stateDir>/worktrees/<id>`, `copies/<id>` or `scratch/<id>`, or a folder in
 *   one): a state directory made there would sit inside an agent's workspace, and its
 *   conversations would not be the ones of the real repository. Refused with or without `--repo`.
 *
 * The default repository (no `--repo`) is found as git finds it (`defaultRepoFolder`): the top
 * of the work tree holding the current folder, so `gatefs status` in `src/` shows the
 * repository's workspaces instead of making `src/.gatefs`. `--repo .` still means this folder.
 *
 * It only looks at names on disk (`.git`, `gatefs.origin`); it never runs git and never follows
 * what a `.git` file points to.
 */
import { existsSync, lstatSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './usage-error.js';
import { foreignCodeOf } from '../../vfs/index.js';

/** The file every gatefs state directory holds (see `src/host/state-trust/state-trust.ts`). */
const ORIGIN_FILE = 'gatefs.origin';

/** Where the chosen repository folder sits. */
interface RepoFolder {
  /** The repository folder (absolute). */
  repo: string;
  /** True when the user passed `--repo`; false when it was found from the current folder. */
  given: boolean;
}

/**
 * Throws `UsageError` (exit 2) when `repo` is in a gatefs workspace; the message names the
 * folder to use instead. Returns nothing otherwise.
 */
export function checkRepoFolder({ repo }: RepoFolder): void {
  const folder = resolve(repo);
  const workspace = enclosingWorkspace(folder);
  if (workspace) {
    const { stateDir, id } = workspace;
    const owner = basename(stateDir) === '.gatefs' ? ` (its repository is ${dirname(stateDir)})` : '';
    throw new UsageError(
      `${folder} is inside the gatefs workspace of conversation '${id}' in the state directory ${stateDir}${owner}: ` +
        `gatefs would make a second state directory inside that workspace; run gatefs in the repository, or pass --repo with its folder`,
    );
  }
}

/** The state-directory folders that hold workspaces (and a copy's lower folders). */
const WORKSPACE_AREAS = ['worktrees', 'copies', 'scratch', 'lowers'];

/**
 * The workspace (state dir and id) `folder` is in, if any: a `<dir>/worktrees/<id>`,
 * `<dir>/copies/<id>`, `<dir>/scratch/<id>` (an empty workspace) or `<dir>/lowers/<id>` (a copy's
 * lower folder) whose `<dir>` holds `gatefs.origin`.
 */
function enclosingWorkspace(folder: string): { stateDir: string; id: string } | null {
  for (let path = folder; dirname(path) !== path; path = dirname(path)) {
    const kind = dirname(path);
    if (!WORKSPACE_AREAS.includes(basename(kind))) continue;
    const stateDir = dirname(kind);
    if (existsSync(join(stateDir, ORIGIN_FILE))) return { stateDir, id: basename(path) };
  }
  return null;
}

/**
 * The repository the CLI works on when `--repo` is not given: the nearest folder at or above
 * `cwd` holding a `.git` entry (the top of its git work tree, as git finds it), else `cwd`
 * itself (a plain folder). A workspace's own `.git` pointer makes it its own top: it is then
 * refused by `checkRepoFolder`, never taken for the repository.
 */
export function defaultRepoFolder(cwd: string): string {
  return gitTop(resolve(cwd)) ?? resolve(cwd);
}

/** True when `folder` or a folder above it holds a `.git` entry (where git would find a repository). */
export function isInGitWorkTree(folder: string): boolean {
  return gitTop(resolve(folder)) !== null;
}

/**
 * What is at `path`, following links as a `--repo` folder is followed: a `folder`, `missing`
 * (nothing, or a path through a file), `other` (a file, a device), or `unknown` (it cannot be
 * looked at: no permission, …).
 */
export function folderKind(path: string): 'folder' | 'missing' | 'other' | 'unknown' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    const code = foreignCodeOf(e);
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unknown';
  }
}

/** The nearest folder at or above `folder` holding a `.git` entry (folder or file), or null. */
function gitTop(folder: string): string | null {
  for (let path = folder; ; path = dirname(path)) {
    if (hasEntry(join(path, '.git'))) return path;
    if (dirname(path) === path) return null;
  }
}

function hasEntry(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
