/**
 * The git contract (issue 20): one suite run over both implementations of the git ports — the
 * git program (`CliGit`, `CliLandingGit`) and isomorphic-git over memfs (`MemoryGit`,
 * `MemoryLandingGit`) — so the memory host behaves as the disk host does. Each check is written
 * against `GitWorld` (./world.ts) and the ports only; where the two disagreed, real git was
 * taken as the reference and the memory twin fixed.
 *
 * Covered: refs and commits resolved, `branchHead` of a missing branch (null) and in a broken
 * repository (a `GitError`, never null); worktrees added, listed, reported dirty, removed and
 * pruned, sparse ones included; submodule paths; the object reader; diff and commit; detached checkouts and
 * merges; fast-forwards, with checkout safety's blocked results and their reasons; refs, names,
 * case-folded tree lookups, and remotes. What only one implementation has (the CLI's processes
 * and stat data, the memory remote's seam, determinism) stays in that implementation's tests.
 */
import { afterEach, describe } from 'vitest';
import { diffAndCommitChecks } from './diff-commit-checks.js';
import { fastForwardChecks } from './fast-forward-checks.js';
import { mergeChecks } from './merge-checks.js';
import { preparationChecks } from './preparation-checks.js';
import { refChecks } from './ref-checks.js';
import { STANDARD, type GitWorld, type GitWorldSetup, type OpenWorld } from './world.js';

/** Registers the whole contract for one implementation under `describe(`git contract: ${name}`)`. */
export function gitContract(name: string, setup: GitWorldSetup): void {
  describe(`git contract: ${name}`, () => {
    const worlds: GitWorld[] = [];
    afterEach(() => {
      for (const w of worlds.splice(0)) w.cleanup();
    });
    const open: OpenWorld = async (files = STANDARD) => {
      const w = await setup(files);
      worlds.push(w);
      return w;
    };
    preparationChecks(open);
    diffAndCommitChecks(open);
    mergeChecks(open);
    fastForwardChecks(open);
    refChecks(open);
  });
}
