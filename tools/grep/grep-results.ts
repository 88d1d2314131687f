/**
 * `GrepResults`: the answer of one grep search, assembled in tree order from each candidate's
 * verdict: one page (`offset`, `maxResults`) of files, matches or counts, how many files were
 * searched and why others were not, and where the next page starts.
 *
 * Content output reads a file with hits again for its lines and context (memory stays bounded:
 * at most the page's hits are held). With an `offset`, the probe counted every hit of each file,
 * so a file whose hits all lie before the page is passed over without that second search.
 */
import type { Namespace } from '../../vfs/index.js';
import { BINARY, OVERSIZED, type SKIPPED } from './early-search.js';
import type { LineMatcher } from './line-matcher.js';
import { ResultCollector } from '../result-collector.js';
import type { TreeEntry } from '../tree-walk.js';

/** One hit of content output: a matching line (or, multiline, the lines of one match from `line` to `endLine`). */
interface GrepMatch {
  path: string;
  line: number;
  endLine?: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** Files grep did not search, by reason (zero counts left out). */
interface GrepSkipped {
  /** Entries `.gitignore` left out (a folder counts once). */
  ignored?: number;
  /** Files with a NUL byte in their first 8 KiB. */
  binary?: number;
  /** Files over grep's size cap. */
  tooLarge?: number;
}

/** The value of a grep: exactly one of files, matches, counts (by `output`), and the page's facts. */
export interface GrepValue {
  files?: string[];
  matches?: GrepMatch[];
  counts?: { path: string; count: number }[];
  /** More results exist than returned (see `nextOffset`), or the walk stopped at its entry limit. */
  truncated: boolean;
  /** The `offset` of the next page, when more results exist past this one. */
  nextOffset?: number;
  /** Text files searched (up to the last one this page needed). */
  filesSearched: number;
  skipped?: GrepSkipped;
  /** What to change when the answer may not be what was meant (a pattern that needs multiline…). */
  hint?: string;
}

/** The output mode of a search. */
export type GrepMode = 'files' | 'content' | 'count';

/** What content output shows around each hit. */
interface ContextLines {
  before: number;
  after: number;
}

/** Reads a candidate's text again for content output: its bytes, or why not (see `early-search.ts`). */
type TextReader = (e: TreeEntry) => Promise<Uint8Array | typeof BINARY | typeof SKIPPED | typeof OVERSIZED>;

/** The results of one search (see the module comment). */
export class GrepResults {
  private readonly out: ResultCollector<string | GrepMatch | { path: string; count: number }>;
  private searched = 0;
  private readonly skipped = { ignored: 0, binary: 0, tooLarge: 0 };

  constructor(
    private readonly ns: Namespace,
    private readonly mode: GrepMode,
    page: { max: number; offset: number },
    private readonly context: ContextLines,
    private readonly matcher: LineMatcher,
    private readonly readText: TextReader,
  ) {
    this.out = new ResultCollector(page.max, page.offset);
  }

  /** Records that the walk was cut before every file was seen, and the entries `.gitignore` left out. */
  noteWalk(truncated: boolean, ignored: number): void {
    this.out.markTruncated(truncated);
    this.skipped.ignored = ignored;
  }

  /** Adds the results of a file with verdict `n` (hits, or why it was not searched); false once the page is full. */
  add(e: TreeEntry, n: number): boolean | Promise<boolean> {
    if (n < 0) {
      if (n === BINARY) this.skipped.binary++;
      else if (n === OVERSIZED) this.skipped.tooLarge++;
      return true;
    }
    this.searched++;
    if (n === 0) return true;
    const path = this.ns.display(e.resolved.path);
    if (this.mode === 'files') return this.out.add(path);
    if (this.mode === 'count') return this.out.add({ path, count: n });
    if (this.out.toPass >= n) {
      this.out.pass(n);
      return true;
    }
    return this.addLines(e, path);
  }

  /** Content output: the file is searched again, now for its lines. */
  private async addLines(e: TreeEntry, path: string): Promise<boolean> {
    if (this.out.isFull && this.out.toPass === 0) {
      this.out.markMore();
      return false;
    }
    const bytes = await this.readText(e);
    if (typeof bytes === 'number') return true;
    const want = this.out.toPass + this.out.max - this.out.items.length + 1;
    const hits = await this.matcher.search(bytes, { limit: want, texts: true, ...this.context }, true);
    for (const h of hits.lines ?? []) {
      const m: GrepMatch =
        h.endLine === undefined ? { path, line: h.line, text: h.text } : { path, line: h.line, endLine: h.endLine, text: h.text };
      if (h.before) m.before = h.before;
      if (h.after) m.after = h.after;
      if (!this.out.add(m)) return false;
    }
    return true;
  }

  /** True when the page holds no result. */
  get isEmpty(): boolean {
    return this.out.items.length === 0;
  }

  /** The tool's value: exactly one of files, counts, matches, and the page's facts. */
  value(hint: string | undefined): GrepValue {
    const { items, truncated, nextOffset } = this.out;
    const found =
      this.mode === 'files'
        ? { files: items as string[] }
        : this.mode === 'count'
          ? { counts: items as { path: string; count: number }[] }
          : { matches: items as GrepMatch[] };
    const v: GrepValue = { ...found, truncated, ...(nextOffset === undefined ? {} : { nextOffset }), filesSearched: this.searched };
    const skipped: GrepSkipped = {};
    if (this.skipped.ignored > 0) skipped.ignored = this.skipped.ignored;
    if (this.skipped.binary > 0) skipped.binary = this.skipped.binary;
    if (this.skipped.tooLarge > 0) skipped.tooLarge = this.skipped.tooLarge;
    if (Object.keys(skipped).length > 0) v.skipped = skipped;
    if (hint !== undefined) v.hint = hint;
    return v;
  }
}
