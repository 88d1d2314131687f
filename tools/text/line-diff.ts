/**
 * `diffLines`: the shortest edit script between two lists of lines (Myers' O(ND) algorithm,
 * after stripping the common prefix and suffix), as git's default diff computes it.
 *
 * The work is capped: when the two sides need more than `maxEdits` inserted plus deleted
 * lines, the answer is a whole replacement (every old line deleted, every new line inserted) —
 * still a correct diff, only not the shortest. Memory is O(D²) for D edits, so the cap also
 * bounds memory.
 */

/** One step of an edit script: keep, delete (old line) or insert (new line). */
export interface LineEdit {
  op: ' ' | '-' | '+';
  /** Index of the line in the old list (for ' ' and '-') or the new list (for '+'). */
  index: number;
}

/** Edits above which `diffLines` answers a whole replacement (default). */
const DEFAULT_MAX_EDITS = 4000;

/**
 * The edit script turning `a` into `b`, in order: every old line appears once as ' ' or '-',
 * every new line once as ' ' (by its old index) or '+'. Deterministic.
 */
export function diffLines(a: readonly string[], b: readonly string[], maxEdits = DEFAULT_MAX_EDITS): LineEdit[] {
  return editScript(a, b, maxEdits, true) as LineEdit[];
}

/**
 * The edit script as `diffLines` gives it, or null (instead of a whole replacement) when the two
 * sides need more than `maxEdits` inserted plus deleted lines.
 */
export function shortestDiff(a: readonly string[], b: readonly string[], maxEdits = DEFAULT_MAX_EDITS): LineEdit[] | null {
  return editScript(a, b, maxEdits, false);
}

function editScript(a: readonly string[], b: readonly string[], maxEdits: number, replaceOverCap: boolean): LineEdit[] | null {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  let middle = myers(a.slice(start, endA), b.slice(start, endB), maxEdits);
  if (!middle && !replaceOverCap) return null;
  middle ??= replaceAll(endA - start, endB - start);
  const edits: LineEdit[] = [];
  for (let i = 0; i < start; i++) edits.push({ op: ' ', index: i });
  for (const e of middle) edits.push({ op: e.op, index: e.index + start });
  for (let i = endA; i < a.length; i++) edits.push({ op: ' ', index: i });
  return edits;
}

function replaceAll(n: number, m: number): LineEdit[] {
  const edits: LineEdit[] = [];
  for (let i = 0; i < n; i++) edits.push({ op: '-', index: i });
  for (let j = 0; j < m; j++) edits.push({ op: '+', index: j });
  return edits;
}

/**
 * Myers' forward greedy search; null past `maxEdits`. `v` holds, per diagonal k (at k + offset),
 * the furthest x reached; after step d the slice for diagonals -d..d is kept for the backtrack.
 */
function myers(a: readonly string[], b: readonly string[], maxEdits: number): LineEdit[] | null {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return replaceAll(n, m);
  const limit = Math.min(n + m, maxEdits);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (d === 0) x = 0;
      else if (k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))) x = v[offset + k + 1] as number;
      else x = (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, n, m);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return null;
}

function backtrack(trace: readonly Int32Array[], n: number, m: number): LineEdit[] {
  const reversed: LineEdit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const prev = trace[d - 1] as Int32Array;
    const at = (kk: number) => prev[kk + d - 1] as number;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      reversed.push({ op: ' ', index: x });
    }
    if (down) {
      y--;
      reversed.push({ op: '+', index: y });
    } else {
      x--;
      reversed.push({ op: '-', index: x });
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    reversed.push({ op: ' ', index: x });
  }
  return reversed.reverse();
}
