/**
 * `TreeFilter`: the per-folder choice of the tools' walks (`walkTree`'s `select`), shared by
 * grep's candidates and list: what a `.gitignore` ignores is left out when the filter honours
 * them (nested files too, git's precedence, a mount root starting fresh, `GitignoreRules`), and
 * the glob decides the rest — an entry is kept when it matches, a folder entered when something
 * below it may match (`glob-matcher.ts`), so one matcher serves `list`'s `pattern` and `grep`'s
 * `glob` alike. `.git` is never kept nor entered.
 *
 * It counts what `.gitignore` left out (`ignored`): entries the glob would have kept or entered,
 * a folder counted once, whatever lies below it (the walk never enters it).
 *
 * Where the glob spells out the names a folder can hold (`packages/*\/src/**`: `src` in each
 * package), the walk looks those up instead of listing the folder (`only`).
 *
 * Matching is metered (`match-work.ts`): it yields to the event loop every `YIELD_STEPS` of work,
 * even inside one folder, and past `MATCH_BUDGET_STEPS` ends the call with `INVALID_INPUT` naming
 * the field. It also yields every `SLICE_ENTRIES` entries judged, whatever the matching cost (a
 * folder of 300,000 entries with no glob: tools/sliced-work.ts), without touching the meter, so
 * where the budget is checked stays where it was. A folder without a `.gitignore` of its own and
 * of fewer entries is judged synchronously (no promise per folder on a big tree).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Resolved } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import { GitignoreRules } from './gitignore-rules.js';
import type { GlobMatcher } from './patterns/index.js';
import { MatchMeter } from './patterns/index.js';
import type { Selection, TreeEntry, WalkOptions } from './tree-walk.js';
import { SLICE_ENTRIES, runSliced, someSliced } from './sliced-work.js';
import { SHARD_ENTRIES, ShardedSet } from './sharded-map.js';

const isIgnoreFile = (e: TreeEntry) => e.name === '.gitignore' && e.type === 'file';

/** Entries chosen in one folder: a `Set`, sharded for a folder too large for one (tools/sharded-map.ts). */
type EntrySet = Set<TreeEntry> | ShardedSet<TreeEntry>;

function entrySetFor(folderSize: number): EntrySet {
  return folderSize > SHARD_ENTRIES ? new ShardedSet() : new Set();
}

/** Adds an entry judged for the first time (no lookup first in a sharded set). */
function addNew(set: EntrySet, e: TreeEntry): void {
  if (set instanceof ShardedSet) set.addNew(e);
  else set.add(e);
}

/** How a `TreeFilter` chooses. */
interface TreeFilterOptions {
  /** Entries must match it (folders are entered when they may hold a match); none: every entry. */
  glob?: GlobMatcher;
  /** Leave out what `.gitignore` files ignore. */
  honourIgnore: boolean;
  /** True for an entry that may be kept at all (grep: files only). */
  keeps(e: TreeEntry): boolean;
  /** Enter sub-folders; false lists one folder. */
  recursive: boolean;
  /** Told about each kept entry while the walk is in its folder (list sizes it there). */
  onKept?(e: TreeEntry): void;
  /** The argument named when matching runs past its budget, and what to advise. */
  budget: { field: string; what: string; advice: string };
}

/** The filter of one walk (see the module comment). */
export class TreeFilter {
  /** Entries left out by `.gitignore` (see the module comment). */
  ignored = 0;
  private readonly meter = new MatchMeter();
  /** The rules below each folder entered (the key is the entry that leads there). */
  private readonly rulesOf = new Map<TreeEntry, GitignoreRules>();
  private startRules = GitignoreRules.none;

  private constructor(
    private readonly ns: Namespace,
    private readonly start: Resolved,
    private readonly options: TreeFilterOptions,
  ) {}

  /**
   * The filter of a walk of `start`; reads the `.gitignore` files above `start` in its mount when
   * it honours them (a folder named explicitly is walked even when they ignore it, as ripgrep does).
   */
  static async create(ns: Namespace, start: Resolved, options: TreeFilterOptions): Promise<TreeFilter> {
    const filter = new TreeFilter(ns, start, options);
    if (options.honourIgnore) filter.startRules = await GitignoreRules.above(ns, start, filter.meter);
    return filter;
  }

  /**
   * `walkTree`'s `only`: the names the glob spells out below the folder `rel` (and `.gitignore`,
   * whose rules apply to them), so the walk looks those up instead of listing the folder.
   */
  readonly only = (rel: string): readonly string[] | undefined => {
    const { glob, recursive, honourIgnore } = this.options;
    if (!recursive || !glob) return undefined;
    const names = glob.namesIn(rel, this.meter);
    if (names === undefined || !honourIgnore) return names;
    return [...names, '.gitignore'];
  };

  /** `walkTree`'s `select`. */
  readonly select: WalkOptions['select'] = (dir, entries) => {
    const inherited = dir === undefined ? this.startRules : (this.rulesOf.get(dir) ?? GitignoreRules.none);
    const base = dir !== undefined && dir.resolved.rel === '' ? GitignoreRules.none : inherited; // a mount root starts fresh
    if (!this.options.honourIgnore) return this.judge(entries, base, 0, undefined, undefined);
    const hasOwn = runSliced(someSliced(entries, isIgnoreFile));
    if (hasOwn instanceof Promise) return hasOwn.then((own) => this.judgeBelow(dir, entries, base, own));
    return this.judgeBelow(dir, entries, base, hasOwn);
  };

  /** Judges a folder's entries under `base`, and the folder's own `.gitignore` when it has one (`hasOwn`). */
  private judgeBelow(dir: TreeEntry | undefined, entries: readonly TreeEntry[], base: GitignoreRules, hasOwn: boolean) {
    if (!hasOwn) return this.judge(entries, base, 0, undefined, undefined);
    const at = dir === undefined ? this.start : dir.resolved;
    return base.enter(this.ns, at, true, this.meter).then((rules) => this.judge(entries, rules, 0, undefined, undefined));
  }

  /** Judges `entries` from `from` on; async only when matching yields or a rule verdict waits. */
  private judge(
    entries: readonly TreeEntry[],
    rules: GitignoreRules,
    from: number,
    keep: EntrySet | undefined,
    enter: EntrySet | undefined,
  ): Selection | Promise<Selection> {
    const { glob, keeps, recursive, onKept } = this.options;
    const meter = this.meter;
    const hasRules = rules !== GitignoreRules.none;
    for (let i = from; i < entries.length; i++) {
      const e = entries[i];
      const isDir = e.type === 'directory';
      const mayKeep = keeps(e) && (!glob || glob.matches(e.rel, meter));
      const mayEnter = recursive && isDir && e.name !== '.git' && (!glob || glob.mayContainMatches(e.rel, meter));
      if ((mayKeep || mayEnter) && e.name !== '.git') {
        // A boolean, or a promise when matching yielded meanwhile (no await per entry otherwise).
        const ignored = hasRules && !(isDir && e.resolved.rel === '') ? rules.ignores(e.resolved.rel, isDir, meter) : false;
        if (ignored instanceof Promise) {
          return ignored.then((isIgnored) => {
            [keep, enter] = this.take(e, isIgnored, mayKeep, mayEnter, rules, keep, enter, onKept, entries.length);
            return this.judge(entries, rules, i + 1, keep, enter);
          });
        }
        [keep, enter] = this.take(e, ignored, mayKeep, mayEnter, rules, keep, enter, onKept, entries.length);
      }
      if (meter.mustYield) {
        const { field, what, advice } = this.options.budget;
        meter.checkBudget(field, what, advice);
        return meter.yieldNow().then(() => this.judge(entries, rules, i + 1, keep, enter));
      }
      if (i + 1 - from >= SLICE_ENTRIES && i + 1 < entries.length) {
        return yieldToLoop().then(() => this.judge(entries, rules, i + 1, keep, enter));
      }
    }
    // Every entry kept (a folder listed whole): 'all', which the walk need not look up entry by entry.
    return { keep: keep === undefined ? 'none' : keep.size === entries.length ? 'all' : keep, enter: enter ?? 'none' };
  }

  /**
   * Records the verdict on one entry; sets are made only for folders that keep or enter something,
   * in shards for a folder of more than `SHARD_ENTRIES` (a `Set` of 300,000 entries held the loop
   * ~30 ms growing).
   */
  private take(
    e: TreeEntry,
    isIgnored: boolean,
    mayKeep: boolean,
    mayEnter: boolean,
    rules: GitignoreRules,
    keep: EntrySet | undefined,
    enter: EntrySet | undefined,
    onKept: ((e: TreeEntry) => void) | undefined,
    folderSize: number,
  ): [EntrySet | undefined, EntrySet | undefined] {
    if (isIgnored) {
      this.ignored++;
      return [keep, enter];
    }
    if (mayKeep) {
      addNew((keep ??= entrySetFor(folderSize)), e);
      onKept?.(e);
    }
    if (mayEnter) {
      addNew((enter ??= entrySetFor(folderSize)), e);
      if (rules !== GitignoreRules.none) this.rulesOf.set(e, rules);
    }
    return [keep, enter];
  }
}
