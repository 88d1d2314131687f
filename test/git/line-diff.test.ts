import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines, type LineEdit } from '../../tools/text/index.js';

/** Rebuilds both sides from an edit script (old: ' ' and '-', new: ' ' and '+'). */
function sides(a: readonly string[], b: readonly string[], edits: readonly LineEdit[]) {
  const old: string[] = [];
  const neu: string[] = [];
  for (const e of edits) {
    if (e.op !== '+') old.push(a[e.index] as string);
    if (e.op === ' ') neu.push(a[e.index] as string);
    if (e.op === '+') neu.push(b[e.index] as string);
  }
  return { old, neu };
}

/** The length of a longest common subsequence (dynamic programming), the optimum Myers must reach. */
function lcs(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] as number;
      row[j] = x === b[j - 1] ? diag + 1 : Math.max(up, row[j - 1] as number);
      diag = up;
    }
  }
  return row[b.length] as number;
}

const lines = fc.array(fc.constantFrom('a\n', 'b\n', 'c\n', 'd'), { maxLength: 30 });

describe('diffLines', () => {
  it('gives a script that rebuilds both sides and keeps a longest common subsequence', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const edits = diffLines(a, b);
        const { old, neu } = sides(a, b, edits);
        expect(old).toEqual(a);
        expect(neu).toEqual(b);
        expect(edits.filter((e) => e.op === ' ').length).toBe(lcs(a, b));
      }),
    );
  });

  it('falls back to a whole replacement past the edit cap, still a correct script', () => {
    const a = Array.from({ length: 100 }, (_, i) => `old ${i}\n`);
    const b = Array.from({ length: 100 }, (_, i) => (i % 2 ? `old ${i}\n` : `new ${i}\n`));
    const capped = diffLines(a, b, 10);
    expect(capped.filter((e) => e.op === '-').length).toBe(99);
    expect(sides(a, b, capped)).toEqual({ old: a, neu: b });
    expect(diffLines(a, b).filter((e) => e.op === ' ').length).toBe(50);
  });
});
