/**
 * `grepCandidates`: the files a folder search reads, in tree order — not `.git`, not what a
 * `.gitignore` ignores (nested ones too, git's precedence, a mount root starting fresh), not
 * links or special entries, and matching the glob when there is one (`glob-matcher.ts`) — with
 * the number of entries `.gitignore` left out (`tree-filter.ts`).
 *
 * Matching is metered (`match-work.ts`): it yields to the event loop every `YIELD_STEPS` of
 * work, even inside one folder, and past `MATCH_BUDGET_STEPS` ends the call with
 * `INVALID_INPUT` on `path`. The optional `KeptFileReader` gets the candidates' bytes while the
 * walk holds their folder (tools/walk-folder.ts).
 */
import type { Resolved } from '../../vfs/index.js';
import type { Namespace } from '../../vfs/index.js';
import type { GlobMatcher } from '../patterns/index.js';
import { TreeFilter } from '../tree-filter.js';
import { walkTree, type KeptFileReader, type WalkResult } from '../tree-walk.js';

/** The candidates of a folder search, and how many entries `.gitignore` left out. */
export interface Candidates extends WalkResult {
  ignored: number;
}

/** Walks `start` for grep's candidate files (see the file comment); the walk's errors and `INVALID_INPUT`. */
export async function grepCandidates(
  ns: Namespace,
  start: Resolved,
  glob: GlobMatcher | undefined,
  readKept?: KeptFileReader,
): Promise<Candidates> {
  const filter = await TreeFilter.create(ns, start, {
    glob,
    honourIgnore: true,
    keeps: (e) => e.type === 'file',
    recursive: true,
    budget: {
      field: 'path',
      what: 'applying the glob and .gitignore rules to this tree',
      advice: 'search a narrower path or use a simpler glob',
    },
  });
  const walked = await walkTree(ns, start, { select: filter.select, only: filter.only, readKept });
  return { ...walked, ignored: filter.ignored };
}
