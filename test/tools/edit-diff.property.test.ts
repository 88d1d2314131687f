/**
 * The diff edit reports is the change: for random texts and random sequences of replacements
 * (overlapping earlier ones, deleting, inserting line breaks, undoing each other), applying the
 * reported unified diff to the old file gives exactly the new one, and every context line is the
 * old file's line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EditedText } from '../../tools/text/edited-text.js';
import { changeReport } from '../../tools/change-report.js';

/** Applies a unified diff (as edit prints it) to `before`; throws when a context or removed line disagrees. */
function applyDiff(before: string, diff: string): string {
  const old = splitLines(before);
  const out: Line[] = [];
  let at = 0;
  const lines = diff === '' ? [] : diff.split('\n').slice(2);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const hunk = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(line);
    if (hunk) {
      const start = Number(hunk[2]) === 0 ? Number(hunk[1]) : Number(hunk[1]) - 1;
      while (at < start) out.push(old[at++]);
      continue;
    }
    const newline = lines[i + 1] !== '\\ No newline at end of file';
    if (line === '\\ No newline at end of file') continue;
    const sign = line[0];
    const text = line.slice(1);
    if (sign === ' ' || sign === '-') {
      const was = old[at];
      if (!was || was.text !== text || was.newline !== newline) throw new Error(`line ${at + 1}: the diff disagrees with the file`);
      if (sign === ' ') out.push(was);
      at++;
    } else if (sign === '+') out.push({ text, newline });
    else throw new Error(`not a diff line: ${JSON.stringify(line)}`);
  }
  while (at < old.length) out.push(old[at++]);
  return out.map((l) => l.text + (l.newline ? '\n' : '')).join('');
}

interface Line {
  text: string;
  newline: boolean;
}

function splitLines(text: string): Line[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop()!;
  const lines = parts.map((t) => ({ text: t, newline: true }));
  if (last !== '') lines.push({ text: last, newline: false });
  return lines;
}

const textArb = fc.array(fc.constantFrom('a', 'b', 'c', ' ', '\n'), { maxLength: 80 }).map((cs) => cs.join(''));
const stepArb = fc.record({
  at: fc.nat(),
  length: fc.integer({ min: 1, max: 6 }),
  insert: fc.array(fc.constantFrom('a', 'x', 'y', '\n', ''), { maxLength: 5 }).map((cs) => cs.join('')),
  all: fc.boolean(),
});

describe('edit diff', () => {
  it('applying the reported diff to the old text gives the new text', () => {
    fc.assert(
      fc.property(textArb, fc.array(stepArb, { minLength: 1, maxLength: 6 }), (original, steps) => {
        const edited = new EditedText(original);
        for (const step of steps) {
          const current = edited.text;
          if (current.length === 0) break;
          const from = step.at % current.length;
          const needle = current.slice(from, from + step.length);
          const starts: number[] = [];
          if (step.all) {
            for (let i = current.indexOf(needle); i !== -1; i = current.indexOf(needle, i + needle.length)) starts.push(i);
          } else starts.push(from);
          edited.replace(starts, needle.length, step.insert);
        }
        const report = changeReport('f', original, edited.text, edited.lineChanges());
        expect(report.truncated).toBe(false);
        expect(applyDiff(original, report.diff)).toBe(edited.text);
        if (original === edited.text) expect(report.diff).toBe('');
      }),
      { numRuns: 3000 },
    );
  });
});
