/**
 * `GitignoreFile`: the rules of one `.gitignore`, indexed so that the usual rules cost one
 * lookup per path however many there are, and `verdict` gives git's answer: the last rule that
 * matches decides (a `!` rule re-includes).
 *
 * Index: literal base names (`node_modules`), `*<literal>` base names (`*.log`) by suffix,
 * literal anchored paths (`/build`), and the other rules by the literal text a matching path
 * must end with (`*.min.js.map`, `docs/**\/*.md`); the rules a lookup leaves are tried from the
 * last one down, stopping at the first match or below the best index found, each after a
 * native test for a literal it needs (`report.[0-9]*.json` needs "report."). Each rule is linear
 * (`gitignore-pattern.ts`) and its steps go to the caller's `WorkCounter`, so thousands of
 * costly rules make the caller yield and, past its budget, stop; they never hold the event loop.
 *
 * Limits: a file's text is parsed in slices (`parse` yields through the `MatchMeter`), so a
 * 1 MiB file of one-character rules does not hold the loop either; `verdict` yields through
 * it too, between two rules, so many costly rules tried on one path (or nested files of them)
 * never hold it. One call holds at most `MAX_HELD_RULES` rules over all the files it reads, at
 * most `MAX_HELD_PATTERN_RULES` of them with wildcards (about 1 KiB each once compiled, against
 * about 150 bytes for a literal one): past either, `INVALID_INPUT` on `path`, as past the
 * call's step budget.
 */
import { parseGitignoreLine, type GitignoreRule } from './gitignore-pattern.js';
import { MatchMeter, type WorkCounter } from './match-work.js';
import { PatternError } from './pattern-error.js';

/** Most `.gitignore` rules one call holds, over every file it reads. */
export const MAX_HELD_RULES = 200_000;
/** Most of those that need a pattern match (they are also the ones tried one by one). */
export const MAX_HELD_PATTERN_RULES = 25_000;

/** Where `verdict` is in its scan of the candidate rules (kept across a yield). */
interface Scan {
  readonly lists: readonly number[][];
  readonly at: number[];
  best: number;
}

/** What one file says about a path: the deciding rule re-includes it or ignores it, or no rule matched. */
type GitignoreVerdict = 'ignored' | 'included' | undefined;

/** Best (highest) rule index per key, split by whether the rule is for folders only. */
class KeyIndex {
  private readonly any = new Map<string, number>();
  private readonly dirs = new Map<string, number>();

  add(key: string, index: number, dirOnly: boolean): void {
    (dirOnly ? this.dirs : this.any).set(key, index);
  }

  best(key: string, isDir: boolean): number {
    const a = this.any.get(key) ?? -1;
    return isDir ? Math.max(a, this.dirs.get(key) ?? -1) : a;
  }

  get size(): number {
    return this.any.size + this.dirs.size;
  }
}

/** The parsed, indexed rules of one `.gitignore` (see the module comment). */
export class GitignoreFile {
  private readonly rules: GitignoreRule[] = [];
  private readonly names = new KeyIndex();
  private readonly suffixes = new KeyIndex();
  private readonly suffixLengths = new Set<number>();
  private readonly paths = new KeyIndex();
  /** Rules that need a pattern match, by the literal tail a matching path ends with (indices ascending). */
  private readonly byTail = new Map<string, number[]>();
  private readonly tailLengths = new Set<number>();
  /** Rules that need a pattern match and have no literal tail, ascending. */
  private readonly untailed: number[] = [];

  private constructor() {}

  /** Parses `text` (the file's content), yielding through `meter` on large files. */
  static async parse(text: string, meter: MatchMeter): Promise<GitignoreFile> {
    const file = new GitignoreFile();
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // git skips a UTF-8 BOM
    let at = 0;
    while (at <= body.length) {
      const nl = body.indexOf('\n', at);
      const end = nl === -1 ? body.length : nl;
      const rule = parseGitignoreLine(body.slice(at, end));
      meter.steps += parseSteps(body, at, end);
      if (rule) {
        file.add(rule);
        holdOne(meter, rule);
      }
      if (nl === -1) break;
      at = nl + 1;
      if (meter.mustYield) {
        meter.checkBudget('path', 'reading the .gitignore files of this tree', 'search a narrower path');
        await meter.yieldNow();
      }
    }
    return file;
  }

  private add(rule: GitignoreRule): void {
    const index = this.rules.length;
    this.rules.push(rule);
    const m = rule.match;
    if (m.kind === 'name') this.names.add(m.name, index, rule.dirOnly);
    else if (m.kind === 'suffix') {
      this.suffixes.add(m.suffix, index, rule.dirOnly);
      this.suffixLengths.add(m.suffix.length);
    } else if (m.kind === 'path') this.paths.add(m.path, index, rule.dirOnly);
    else if (m.kind === 'basename' || m.kind === 'anchored') {
      if (m.tail === undefined) this.untailed.push(index);
      else {
        const list = this.byTail.get(m.tail);
        if (list) list.push(index);
        else this.byTail.set(m.tail, [index]);
        this.tailLengths.add(m.tail.length);
      }
    }
  }

  /** True when the file has no rule that can match anything. */
  get isEmpty(): boolean {
    return this.names.size + this.suffixes.size + this.paths.size + this.byTail.size + this.untailed.length === 0;
  }

  /**
   * git's verdict for a path: `rel` is the path below this file's folder, `name` its last
   * segment (both without a trailing '/'), `isDir` for folders. Synchronous, except when
   * `work` is a `MatchMeter` that asks for a yield between two rules: then the rest of the
   * scan runs after the yield (past the meter's budget: `INVALID_INPUT` on `path`).
   */
  verdict(rel: string, relFrom: number, name: string, isDir: boolean, work: WorkCounter): GitignoreVerdict | Promise<GitignoreVerdict> {
    let best = this.names.best(name, isDir);
    let steps = 2;
    if (this.suffixLengths.size > 0) {
      for (const len of this.suffixLengths) {
        if (len <= name.length) best = Math.max(best, this.suffixes.best(name.slice(name.length - len), isDir));
        steps += len;
      }
    }
    if (this.paths.size > 0) {
      best = Math.max(best, this.paths.best(relFrom === 0 ? rel : rel.slice(relFrom), isDir));
      steps += 1;
    }
    // The pattern rules that may match: those without a literal tail, and those whose tail ends
    // the name; tried from the last one down, above the best index found so far.
    const lists: number[][] = [this.untailed];
    for (const len of this.tailLengths) {
      steps += len;
      const list = len <= name.length ? this.byTail.get(name.slice(name.length - len)) : undefined;
      if (list) lists.push(list);
    }
    work.steps += steps;
    return this.scan({ lists, at: lists.map((l) => l.length - 1), best }, rel, relFrom, name, isDir, work);
  }

  /**
   * The candidate rules above `s.best`, from the last one down (a merge of the ascending lists,
   * read from the top: usually one or two lists), until one matches; yields between two rules
   * when `work` is a `MatchMeter` that asks for it.
   */
  private scan(
    s: Scan,
    rel: string,
    relFrom: number,
    name: string,
    isDir: boolean,
    work: WorkCounter,
  ): GitignoreVerdict | Promise<GitignoreVerdict> {
    const { lists, at } = s;
    for (;;) {
      let pick = -1;
      for (let k = 0; k < lists.length; k++) if (at[k] >= 0 && (pick < 0 || lists[k][at[k]] > lists[pick][at[pick]])) pick = k;
      if (pick < 0) break;
      const index = lists[pick][at[pick]--];
      if (index <= s.best) break;
      const rule = this.rules[index];
      if (rule.dirOnly && !isDir) continue;
      work.steps += 1;
      if (matchesRule(rule, rel, relFrom, name, work)) {
        s.best = index;
        break;
      }
      if (work instanceof MatchMeter && work.mustYield) return this.resume(s, rel, relFrom, name, isDir, work);
    }
    if (s.best < 0) return undefined;
    return this.rules[s.best].negated ? 'included' : 'ignored';
  }

  private async resume(s: Scan, rel: string, relFrom: number, name: string, isDir: boolean, meter: MatchMeter): Promise<GitignoreVerdict> {
    meter.checkBudget('path', 'applying the .gitignore rules to this tree', 'search a narrower path or use a simpler glob');
    await meter.yieldNow();
    return this.scan(s, rel, relFrom, name, isDir, meter);
  }
}

/**
 * The steps parsing one line costs, in the meter's unit (one character comparison, 5–15 ns):
 * compiling a rule allocates (a class, a segment, a path pattern each cost about as much as
 * 600 comparisons, a rule itself about 300), so counting characters alone let a file of
 * short or class-heavy rules parse for seconds between two yields. Measured on this project's
 * 2-core machine: `name.tmp` 3 µs, `a/*` or `[a]` 15 µs, a rule of 200 classes 1.2 ms.
 */
function parseSteps(text: string, from: number, to: number): number {
  let allocating = 0;
  let wildcard = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 /* [ */ || c === 47 /* / */) allocating++;
    else if (c === 42 /* * */ || c === 63 /* ? */) wildcard = 1;
  }
  return 300 + 30 * (to - from) + 600 * (allocating + (wildcard | (allocating > 0 ? 1 : 0)));
}

/** Counts one parsed rule into the call's holdings; `INVALID_INPUT` on `path` past a cap. */
function holdOne(meter: MatchMeter, rule: GitignoreRule): void {
  const kind = rule.match.kind;
  const pattern = kind === 'basename' || kind === 'anchored';
  meter.rules.all++;
  if (pattern) meter.rules.patterns++;
  if (meter.rules.all > MAX_HELD_RULES || meter.rules.patterns > MAX_HELD_PATTERN_RULES) {
    throw new PatternError(
      'path',
      `the .gitignore files of this tree hold more than ${MAX_HELD_RULES.toLocaleString('en-US')} rules, or more than ${MAX_HELD_PATTERN_RULES.toLocaleString('en-US')} with wildcards; search a narrower path`,
    );
  }
}

function matchesRule(rule: GitignoreRule, rel: string, relFrom: number, name: string, work: WorkCounter): boolean {
  const m = rule.match;
  if (m.kind === 'basename') {
    // A literal the name must contain, found natively, before the pattern runs.
    if (m.needle !== undefined && (m.needle.length > name.length || ((work.steps += (name.length >> 3) + 1), !name.includes(m.needle))))
      return false;
    return m.test(name, 0, name.length, work);
  }
  if (m.kind === 'anchored') {
    if (m.needle !== undefined && ((work.steps += ((rel.length - relFrom) >> 3) + 1), rel.indexOf(m.needle, relFrom) === -1)) return false;
    for (const p of m.patterns) if (p.matches(rel, relFrom, work)) return true;
  }
  return false;
}
