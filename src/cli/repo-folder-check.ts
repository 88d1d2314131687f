/**
 * `checkRepoFolder`: refuses, before anything is created, a repository folder that would give
 * gatefs a second state directory by mistake. Two places do that:
 *
 * - a gatefs workspace (`<stateDir>/worktrees/<id>` or `<stateDir>/copies/<id>`, or a folder in
 *   one): a state directory made there would sit inside an agent's workspace, and its
 *   conversations would not be the ones of the real repository. Refused with or without `--repo`.
 * - a folder below the top of a git work tree, when `--repo` was not given: the current folder
 *   is the default repository, so `gatefs status` in `src/` would otherwise make `src/.gatefs`,
 *   read `src/gatefs.yaml`, and show none of the repository's workspaces. `--repo .` keeps the
 *   old meaning (this folder itself).
 *
 * It only looks at names on disk (`.git`, `gatefs.origin`); it never runs git and never follows
 * what a `.git` file points to.
 */
import { existsSync, lstatSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './usage-error.js';

/** The file every gatefs state directory holds (see `host/state-trust.ts`). */
const ORIGIN_FILE = 'gatefs.origin';

/** Where the chosen repository folder sits. */
export interface RepoFolder {
  /** The repository folder (absolute). */
  repo: string;
  /** True when the user passed `--repo`; false when it is the current folder by default. */
  given: boolean;
}

/**
 * Throws `UsageError` (exit 2) when `repo` is in a gatefs workspace, or when it is the default
 * (the current folder) and lies below the top of a git work tree. The message names the folder
 * to use instead. Returns nothing otherwise.
 */
export function checkRepoFolder({ repo, given }: RepoFolder): void {
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
  if (given) return;
  const top = gitTop(folder);
  if (top !== null && top !== folder) {
    throw new UsageError(
      `the current folder is inside the git repository ${top}, not at its top: run gatefs in ${top}, or pass --repo ${top} ` +
        `(or --repo . to use this folder itself, with its own state directory and gatefs.yaml)`,
    );
  }
}

/** The workspace (state dir and id) `folder` is in, if any: a `<dir>/worktrees/<id>` or `<dir>/copies/<id>` whose `<dir>` holds `gatefs.origin`. */
function enclosingWorkspace(folder: string): { stateDir: string; id: string } | null {
  for (let path = folder; dirname(path) !== path; path = dirname(path)) {
    const kind = dirname(path);
    if (basename(kind) !== 'worktrees' && basename(kind) !== 'copies') continue;
    const stateDir = dirname(kind);
    if (existsSync(join(stateDir, ORIGIN_FILE))) return { stateDir, id: basename(path) };
  }
  return null;
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
