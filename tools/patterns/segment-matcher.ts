/**
 * `compileSegment`: one path segment of a pattern (no '/': literal code units, `?`, `*` and
 * bracket classes) compiled into a test of one segment of a path, `text.slice(from, to)`.
 *
 * Bound: the general case is the classic wildcard algorithm that remembers only the last `*`
 * (correct because every other token matches exactly one code unit): at most n·m steps for a
 * segment of n code units and a pattern of m tokens, with no recursion and no backtracking
 * stack. `*a*a*a*a*a*a*a*a*b` over a 60-character name costs under 1,000 steps. The common
 * shapes (`name`, `*`, `*.ts`, `test_*`, `a*b`) are plain string comparisons. Each test adds
 * the steps it took to `work`.
 */
import type { CharClass } from './char-class.js';
import type { WorkCounter } from './match-work.js';
import type { SegmentToken } from './pattern-tokens.js';

/**
 * Tests `text.slice(from, to)` (one segment of a path, no '/'), adding its steps to `work`.
 * `literal` is set when the segment is plain text (a caller may compare it without finding
 * the segment's end first); `literals` when it passes exactly these texts (`{src,lib}`), so a
 * walk may look those names up instead of listing the folder.
 */
export type SegmentTest = ((text: string, from: number, to: number, work: WorkCounter) => boolean) & {
  literal?: string;
  literals?: readonly string[];
};

const ANY = -1;
const STAR = -2;

/** Compiles the tokens of one pattern segment (see the module comment). */
export function compileSegment(tokens: readonly SegmentToken[]): SegmentTest {
  const ops: number[] = [];
  const classes: CharClass[] = [];
  for (const t of tokens) {
    if (t.kind === 'star') {
      if (ops[ops.length - 1] !== STAR) ops.push(STAR);
    } else if (t.kind === 'any') ops.push(ANY);
    else if (t.kind === 'char') ops.push(t.code);
    else {
      classes.push(t.cls);
      ops.push(-3 - (classes.length - 1));
    }
  }
  const stars = ops.filter((o) => o === STAR).length;
  const isPlain = ops.every((o) => o >= 0 || o === STAR);
  if (isPlain && stars <= 1) return plainSegment(ops);
  if (stars === 0) return fixedSegment(Int32Array.from(ops), classes);
  return wildSegment(Int32Array.from(ops), classes);
}

const text = (codes: readonly number[]) => String.fromCharCode(...codes);

/** Literals with at most one `*`: prefix and suffix comparisons. */
function plainSegment(ops: readonly number[]): SegmentTest {
  const star = ops.indexOf(STAR);
  if (star === -1) {
    const lit = text(ops);
    const test: SegmentTest = (s, from, to, work) => {
      work.steps += lit.length + 1;
      return to - from === lit.length && s.startsWith(lit, from);
    };
    test.literal = lit;
    test.literals = [lit];
    return test;
  }
  const head = text(ops.slice(0, star));
  const tail = text(ops.slice(star + 1));
  const min = head.length + tail.length;
  if (min === 0) {
    return (_s, _from, _to, work) => {
      work.steps += 1;
      return true;
    };
  }
  return (s, from, to, work) => {
    work.steps += min + 1;
    return to - from >= min && (head === '' || s.startsWith(head, from)) && (tail === '' || s.startsWith(tail, to - tail.length));
  };
}

function matchesOp(op: number, c: number, classes: readonly CharClass[]): boolean {
  return op >= 0 ? op === c : op === ANY || classes[-3 - op].has(c);
}

/** No `*`: one comparison per code unit. */
function fixedSegment(ops: Int32Array, classes: readonly CharClass[]): SegmentTest {
  return (s, from, to, work) => {
    if (to - from !== ops.length) {
      work.steps += 1;
      return false;
    }
    let i = 0;
    while (i < ops.length && matchesOp(ops[i], s.charCodeAt(from + i), classes)) i++;
    work.steps += i + 1;
    return i === ops.length;
  };
}

/** The general case: the last-star wildcard algorithm, at most n·m steps. */
function wildSegment(ops: Int32Array, classes: readonly CharClass[]): SegmentTest {
  const n = ops.length;
  return (s, from, to, work) => {
    let p = 0;
    let i = from;
    let starP = -1;
    let starI = 0;
    let steps = 1;
    while (i < to) {
      steps++;
      if (p < n) {
        const op = ops[p];
        if (op === STAR) {
          starP = ++p;
          starI = i;
          continue;
        }
        if (matchesOp(op, s.charCodeAt(i), classes)) {
          p++;
          i++;
          continue;
        }
      }
      if (starP < 0) {
        work.steps += steps;
        return false;
      }
      p = starP;
      i = ++starI;
    }
    while (p < n && ops[p] === STAR) p++;
    work.steps += steps;
    return p === n;
  };
}
