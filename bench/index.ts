/**
 * `npm run bench`: runs every benchmark suite in one process and writes `bench/results.md`.
 * A suite is a module in `bench/suites/` exporting `run(report)`. Pass suite names as
 * arguments to run only those (`npm run bench -- vfs-layers`).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Comparison, Report, Skipped } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const comparisons: Comparison[] = [];
const skipped: Skipped[] = [];
const notes: string[] = [];

const report: Report = {
  compare(c) {
    const row = { ...c, ratio: c.subjectUs / c.baselineUs };
    comparisons.push(row);
    const mark = row.ratio <= row.target ? 'ok  ' : 'MISS';
    console.log(`${mark} ${c.suite} / ${c.name}: ${fmt(c.subjectUs)} vs ${c.baseline} ${fmt(c.baselineUs)} = ${row.ratio.toFixed(3)}x (target <= ${c.target}x)`);
  },
  skip(s) {
    skipped.push(s);
    console.log(`skip ${s.suite} / ${s.name}: ${s.reason}`);
  },
  note(suite, text) {
    notes.push(`${suite}: ${text}`);
    console.log(`note ${suite}: ${text}`);
  },
};

function fmt(us: number): string {
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
}

const suiteDir = join(here, 'suites');
const files = readdirSync(suiteDir).filter((f) => f.endsWith('.js')).sort();
for (const file of files) {
  const name = file.replace(/\.js$/, '');
  if (only.length && !only.includes(name)) continue;
  console.log(`\n== ${name}`);
  const mod = (await import(pathToFileURL(join(suiteDir, file)).href)) as { run(r: Report): Promise<void> };
  try {
    await mod.run(report);
  } catch (e) {
    skipped.push({ suite: name, name: '(suite)', reason: `failed: ${(e as Error).message}` });
    console.log(`FAIL ${name}: ${(e as Error).stack}`);
  }
}

const lines = [
  '# Benchmark results',
  '',
  `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${process.platform}/${process.arch}.`,
  'Each row is a ratio of medians measured in the same run: gatefs / baseline. Lower is better.',
  '',
  '| suite | benchmark | gatefs | baseline | ratio | target | met |',
  '|---|---|---|---|---|---|---|',
  ...comparisons.map(
    (c) =>
      `| ${c.suite} | ${c.name}${c.note ? ` (${c.note})` : ''} | ${fmt(c.subjectUs)} | ${c.baseline}: ${fmt(c.baselineUs)} | ${c.ratio.toFixed(3)}× | ≤ ${c.target}× | ${c.ratio <= c.target ? 'yes' : '**no**'} |`,
  ),
  '',
  ...(skipped.length ? ['## Skipped', '', ...skipped.map((s) => `- ${s.suite} / ${s.name}: ${s.reason}`), ''] : []),
  ...(notes.length ? ['## Notes', '', ...notes.map((n) => `- ${n}`), ''] : []),
];
if (only.length === 0) writeFileSync(join(here, '..', '..', 'bench', 'results.md'), lines.join('\n'));
else writeFileSync(join(here, '..', '..', 'bench', `results-partial.md`), lines.join('\n'));
console.log(`\n${comparisons.length} comparisons, ${comparisons.filter((c) => c.ratio > c.target).length} missed, ${skipped.length} skipped`);
