/**
 * The diff edit reports is the change: for random texts and random sequences of replacements
 * (overlapping earlier ones, deleting, inserting line breaks, undoing each other), applying the
 * reported unified diff to the old file gives exactly the new one, and every context line is the
 * old file's line; and the diff is the shortest there is (as git's default algorithm aims for):
 * it removes and adds the fewest lines, never more than `git diff --no-index --numstat` counts
 * for the same two files.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The text after `steps` (each a replacement of a slice of the current text, or of every occurrence of it). */
function applySteps(original: string, steps: readonly Step[]): EditedText {
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
  return edited;
}

type Step = { at: number; length: number; insert: string; all: boolean };

/** Lines the diff removes and adds (its `---`/`+++` header left out). */
function counts(diff: string): { removed: number; added: number } {
  const lines = diff === '' ? [] : diff.split('\n').slice(2);
  return { removed: lines.filter((l) => l.startsWith('-')).length, added: lines.filter((l) => l.startsWith('+')).length };
}

/** The fewest lines removed and added turning `before` into `after` (by the longest common subsequence of their lines). */
function fewestChanges(before: string, after: string): { removed: number; added: number } {
  const a = before.split(/(?<=\n)/).filter((l) => l !== '');
  const b = after.split(/(?<=\n)/).filter((l) => l !== '');
  let row = new Array<number>(b.length + 1).fill(0);
  for (const line of a) {
    const next = [0];
    for (let j = 0; j < b.length; j++)
      next.push(line === b[j] ? (row[j] as number) + 1 : Math.max(row[j + 1] as number, next[j] as number));
    row = next;
  }
  const common = row[b.length] as number;
  return { removed: a.length - common, added: b.length - common };
}

/** Real git's `--numstat` counts for two files holding `before` and `after` (no user or system config read). */
function gitNumstat(dir: string, before: string, after: string): { removed: number; added: number } {
  writeFileSync(join(dir, 'before'), before);
  writeFileSync(join(dir, 'after'), after);
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: dir, LC_ALL: 'C' };
  const run = spawnSync('git', ['diff', '--no-index', '--numstat', 'before', 'after'], { cwd: dir, env, encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`git diff failed: ${run.stderr}`);
  if (run.stdout === '') return { removed: 0, added: 0 };
  const [added, removed] = run.stdout.split('\t').map(Number);
  return { removed: removed as number, added: added as number };
}

describe('edit diff', () => {
  it('applying the reported diff to the old text gives the new text', () => {
    fc.assert(
      fc.property(textArb, fc.array(stepArb, { minLength: 1, maxLength: 6 }), (original, steps) => {
        const edited = applySteps(original, steps);
        const report = changeReport('f', original, edited.text, edited.lineChanges());
        expect(report.truncated).toBe(false);
        expect(applyDiff(original, report.diff)).toBe(edited.text);
        if (original === edited.text) expect(report.diff).toBe('');
      }),
      { numRuns: 3000 },
    );
  });

  it('removes and adds the fewest lines possible, never more than git diff --no-index counts for the same files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatefs-edit-diff-'));
    let sameAsGit = 0;
    try {
      // Lines drawn from few values, so unchanged lines inside a replaced region are common.
      const lineArb = fc.constantFrom('a', 'b', 'c', 'a b', '', 'x');
      const fileArb = fc
        .tuple(fc.array(lineArb, { maxLength: 30 }), fc.boolean())
        .map(([ls, end]) => ls.join('\n') + (end && ls.length > 0 ? '\n' : ''));
      fc.assert(
        fc.property(fileArb, fc.array(stepArb, { minLength: 1, maxLength: 4 }), (original, steps) => {
          const edited = applySteps(original, steps);
          const report = changeReport('f', original, edited.text, edited.lineChanges());
          expect(applyDiff(original, report.diff)).toBe(edited.text);
          const ours = counts(report.diff);
          expect(ours).toEqual(fewestChanges(original, edited.text));
          // git's Myers drops some lines that repeat often before diffing (xdiff's
          // xdl_cleanup_records), so its count is sometimes higher; never lower.
          const git = gitNumstat(dir, original, edited.text);
          expect(ours.removed).toBeLessThanOrEqual(git.removed);
          expect(ours.added - ours.removed).toBe(git.added - git.removed);
          if (ours.removed === git.removed) sameAsGit++;
        }),
        { numRuns: 250 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(sameAsGit).toBeGreaterThan(200); // the difference is the exception
  });

  it('an edit whose oldString keeps most of its lines shows only the lines that changed, with three lines of context', () => {
    const original = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
    const edited = new EditedText(original);
    const oldString = 'line 8\nline 9\nline 10\nline 11\nline 12\n';
    edited.replace([original.indexOf(oldString)], oldString.length, 'line 8\nline 9\nline ten\nline 11\nline 12\n');
    const report = changeReport('f.txt', original, edited.text, edited.lineChanges());
    expect(report.diff).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+line ten',
        ' line 11',
        ' line 12',
        ' line 13',
      ].join('\n'),
    );
  });
});
