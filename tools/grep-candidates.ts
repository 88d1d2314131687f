/**
 * `grepCandidates`: the files a folder search reads, in tree order — not `.git`, not what a
 * `.gitignore` ignores (nested ones too, git's precedence, a mount root starting fresh), not
 * links or special entries, and matching the glob when there is one (`glob-matcher.ts`).
 *
 * Matching is metered (`match-work.ts`): it yields to the event loop every `YIELD_STEPS` of
 * work, even inside one folder, and past `MATCH_BUDGET_STEPS` ends the call with
 * `INVALID_INPUT` on `path`. The optional `KeptFileReader` gets the candidates' bytes while the
 * walk holds their folder (tools/walk-folder.ts).
 */
import type { Resolved } from '../vfs/mount-table.js';
import type { Namespace } from '../vfs/namespace.js';
import { GitignoreRules } from './gitignore-rules.js';
import type { GlobMatcher } from './glob-matcher.js';
import { MatchMeter } from './match-work.js';
import { walkTree, type KeptFileReader, type Selection, type TreeEntry, type WalkResult } from './tree-walk.js';

/** Walks `start` for grep's candidate files (see the file comment); the walk's errors and `INVALID_INPUT`. */
export async function grepCandidates(
  ns: Namespace,
  start: Resolved,
  glob: GlobMatcher | undefined,
  readKept?: KeptFileReader,
): Promise<WalkResult> {
  const meter = new MatchMeter();
  const filter = new CandidateFilter(ns, start, glob, meter, await GitignoreRules.above(ns, start, meter));
  return walkTree(ns, start, { select: (dir, entries) => filter.select(dir, entries), readKept });
}

/** The per-folder choice of one search: the rules in force below each folder entered. */
class CandidateFilter {
  /** The rules below each folder entered (the key is the entry that leads there). */
  private readonly rulesOf = new Map<TreeEntry, GitignoreRules>();

  constructor(
    private readonly ns: Namespace,
    private readonly start: Resolved,
    private readonly glob: GlobMatcher | undefined,
    private readonly meter: MatchMeter,
    private readonly startRules: GitignoreRules,
  ) {}

  /** `walkTree`'s `select`: the candidate files of the folder, and the folders to enter. */
  async select(dir: TreeEntry | undefined, entries: readonly TreeEntry[]): Promise<Selection> {
    const rules = await this.rulesIn(dir, entries);
    const keep = new Set<TreeEntry>();
    const enter = new Set<TreeEntry>();
    for (const e of entries) {
      if (e.name !== '.git' && (e.type === 'directory' || e.type === 'file')) {
        const isDir = e.type === 'directory';
        // A boolean, or a promise when matching yielded meanwhile (no await per entry otherwise).
        let ignored = isDir && e.resolved.rel === '' ? false : rules.ignores(e.resolved.rel, isDir, this.meter);
        if (ignored instanceof Promise) ignored = await ignored;
        if (isDir && !ignored && (!this.glob || this.glob.mayContainMatches(e.rel, this.meter))) {
          enter.add(e);
          this.rulesOf.set(e, rules);
        } else if (!isDir && !ignored && (!this.glob || this.glob.matches(e.rel, this.meter))) {
          keep.add(e);
        }
      }
      if (this.meter.mustYield) {
        this.meter.checkBudget(
          'path',
          'applying the glob and .gitignore rules to this tree',
          'search a narrower path or use a simpler glob',
        );
        await this.meter.yieldNow();
      }
    }
    return { keep, enter };
  }

  /** The rules in force in the folder `dir` (undefined: the start): its parent's plus its own `.gitignore`. */
  private rulesIn(dir: TreeEntry | undefined, entries: readonly TreeEntry[]): Promise<GitignoreRules> {
    const inherited = dir === undefined ? this.startRules : (this.rulesOf.get(dir) ?? GitignoreRules.none);
    const at = dir === undefined ? this.start : dir.resolved;
    const base = dir !== undefined && dir.resolved.rel === '' ? GitignoreRules.none : inherited; // a mount root starts fresh
    const hasFile = entries.some((e) => e.name === '.gitignore' && e.type === 'file');
    return base.enter(this.ns, at, hasFile, this.meter);
  }
}
