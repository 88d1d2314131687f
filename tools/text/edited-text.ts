/**
 * `EditedText`: a text under a sequence of replacements that remembers where it differs from
 * the original, so edit can show a diff and a snippet without diffing the whole file.
 *
 * It keeps the changed regions as offsets in both texts (outside them the two texts are the
 * same characters, shifted). Each `replace` merges its ranges into the regions in one pass, so
 * `replaceAll` over thousands of occurrences stays linear. `lineChanges` widens the regions to
 * whole lines (merging those that then touch) and gives them as line ranges: what a unified
 * diff's hunks and the numbered snippet are made of.
 */

/** A changed region: `[oldFrom, oldTo)` of the original became `[newFrom, newTo)` of the text. */
interface Region {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/**
 * Lines `[oldStart, oldEnd)` of the original (0-based) became lines `[newStart, newEnd)` of the
 * text; `oldFrom`/`oldTo` and `newFrom`/`newTo` are the same ranges as character offsets (each
 * at a line start or at the end of its text).
 */
export interface LineChange {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/**
 * Regions kept apart; beyond them the rest of the changes are one region (still exact: the
 * text outside it is unchanged), so a `replaceAll` of 100,000 occurrences costs no more to
 * report than the diff's cap can show.
 */
const MAX_REGIONS = 1000;

export class EditedText {
  private current: string;
  private regions: Region[] = [];

  constructor(readonly original: string) {
    this.current = original;
  }

  /** The text after every replacement so far. */
  get text(): string {
    return this.current;
  }

  /**
   * Replaces each range `[starts[i], starts[i] + length)` of the current text by `replacement`.
   * `starts` are sorted and the ranges do not overlap (as `indexOf` scanning finds them).
   */
  replace(starts: readonly number[], length: number, replacement: string): void {
    if (starts.length === 0) return;
    const parts: string[] = [];
    let at = 0;
    for (const s of starts) {
      parts.push(this.current.slice(at, s), replacement);
      at = s + length;
    }
    parts.push(this.current.slice(at));
    const regions = mergeRegions(this.regions, starts, length, replacement.length);
    if (regions.length > MAX_REGIONS) {
      // Past the first regions (more than any report shows), one region spans the rest.
      const last = regions[regions.length - 1];
      const tail = regions[MAX_REGIONS - 1];
      regions.length = MAX_REGIONS - 1;
      regions.push({ oldFrom: tail.oldFrom, oldTo: last.oldTo, newFrom: tail.newFrom, newTo: last.newTo });
    }
    this.regions = regions;
    this.current = parts.join('');
  }

  /**
   * The changes as whole-line ranges, in order, each widened until the text around it is
   * the same in both versions; regions whose text ended up identical (an edit undone by a later
   * one) are left out.
   */
  lineChanges(): LineChange[] {
    const before = this.original;
    const after = this.current;
    const widened: Region[] = [];
    for (const r of this.regions) {
      if (before.slice(r.oldFrom, r.oldTo) === after.slice(r.newFrom, r.newTo)) continue;
      // Back to the start of the line: the characters before the region are shared, so the
      // distance is the same in both texts, unless the line starts inside the previous region.
      const back = r.oldFrom === 0 ? 0 : r.oldFrom - (before.lastIndexOf('\n', r.oldFrom - 1) + 1);
      let region: Region = { oldFrom: r.oldFrom - back, oldTo: r.oldTo, newFrom: r.newFrom - back, newTo: r.newTo };
      const last = widened[widened.length - 1];
      if (last && region.oldFrom < last.oldTo) {
        region = { oldFrom: last.oldFrom, oldTo: r.oldTo, newFrom: last.newFrom, newTo: r.newTo };
        widened.pop();
      }
      widened.push(region);
    }
    // Forward to the next line start in both texts (the characters after the region are shared),
    // merging with the next region when that line reaches into it.
    const out: Region[] = [];
    for (let i = 0; i < widened.length; i++) {
      let region = widened[i];
      for (;;) {
        let forward = 0;
        if (!(isLineStart(before, region.oldTo) && isLineStart(after, region.newTo))) {
          const nl = before.indexOf('\n', region.oldTo);
          forward = (nl === -1 ? before.length : nl + 1) - region.oldTo;
        }
        const next = widened[i + 1];
        if (next && region.oldTo + forward >= next.oldFrom) {
          region = { oldFrom: region.oldFrom, oldTo: next.oldTo, newFrom: region.newFrom, newTo: next.newTo };
          i++;
          continue;
        }
        out.push({ oldFrom: region.oldFrom, oldTo: region.oldTo + forward, newFrom: region.newFrom, newTo: region.newTo + forward });
        break;
      }
    }
    return toLines(out, before, after);
  }
}

/** True at the start of a line or at the end of the text. */
function isLineStart(text: string, at: number): boolean {
  return at === 0 || at === text.length || text.charCodeAt(at - 1) === 10;
}

/** The regions after replacing the ranges at `starts` (each `length` long) by `inserted` characters. */
function mergeRegions(regions: readonly Region[], starts: readonly number[], length: number, inserted: number): Region[] {
  const out: Region[] = [];
  let i = 0;
  let j = 0;
  // In unchanged text past the regions taken so far, current offset minus original offset.
  let shiftOld = 0;
  // How much the ranges replaced so far grew the text (current offsets before this call → after).
  let shiftNew = 0;
  while (i < regions.length || j < starts.length) {
    // A cluster starts with whichever span comes first; the spans that overlap or touch it join.
    const takeRegion = j >= starts.length || (i < regions.length && regions[i].newFrom <= starts[j]);
    const from = takeRegion ? regions[i].newFrom : starts[j];
    const oldFrom = takeRegion ? regions[i].oldFrom : from - shiftOld;
    let to = from;
    let toOld = -1; // the original offset of `to` when a region ends there, else -1
    let growth = 0;
    for (;;) {
      if (i < regions.length && regions[i].newFrom <= to) {
        const r = regions[i++];
        if (r.newTo >= to) {
          to = r.newTo;
          toOld = r.oldTo;
        }
        shiftOld = r.newTo - r.oldTo;
      } else if (j < starts.length && starts[j] <= to) {
        const end = starts[j++] + length;
        if (end > to) {
          to = end;
          toOld = -1;
        }
        growth += inserted - length;
      } else break;
    }
    const oldTo = toOld >= 0 ? toOld : to - shiftOld;
    out.push({ oldFrom, oldTo, newFrom: from + shiftNew, newTo: to + shiftNew + growth });
    shiftNew += growth;
  }
  return out;
}

/** Line-aligned regions (offsets at line starts, or the end of the text) as line ranges. */
function toLines(regions: readonly Region[], before: string, after: string): LineChange[] {
  const out: LineChange[] = [];
  let oldLine = 0;
  let oldAt = 0;
  let newLine = 0;
  let newAt = 0;
  for (const r of regions) {
    oldLine += countNewlines(before, oldAt, r.oldFrom);
    newLine += countNewlines(after, newAt, r.newFrom);
    const oldCount = linesIn(before, r.oldFrom, r.oldTo);
    const newCount = linesIn(after, r.newFrom, r.newTo);
    out.push({ oldStart: oldLine, oldEnd: oldLine + oldCount, newStart: newLine, newEnd: newLine + newCount, ...r });
    oldAt = r.oldFrom;
    newAt = r.newFrom;
  }
  return out;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** Lines in `[from, to)`, which starts at a line start: a last line without '\n' counts. */
function linesIn(text: string, from: number, to: number): number {
  if (to <= from) return 0;
  const n = countNewlines(text, from, to);
  return text.charCodeAt(to - 1) === 10 ? n : n + 1;
}
