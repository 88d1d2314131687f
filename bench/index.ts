/**
 * `npm run bench`: runs every benchmark suite in one process and writes `bench/results.md`.
 * A suite is a module in `bench/suites/` exporting `run(report)`. Pass suite names as
 * arguments to run only those (`npm run bench -- vfs-layers`); their rows replace the earlier
 * ones in bench/results.json and bench/results.md. From the sources, without a build:
 * `node --import ./scripts/run-typescript.mjs bench/index.ts NAME` (the suites' `.ts` files then).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Comparison, Report, Skipped } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Run from the sources (bench/index.ts) rather than from dist/bench/index.js. */
const fromSources = import.meta.url.endsWith('.ts');
const suiteExtension = fromSources ? '.ts' : '.js';
const only = process.argv.slice(2);
const comparisons: Comparison[] = [];
const skipped: Skipped[] = [];
const notes: string[] = [];

const report: Report = {
  compare(c) {
    const row = { ...c, ratio: c.subjectUs / c.baselineUs };
    comparisons.push(row);
    const mark = row.ratio <= row.target ? 'ok  ' : 'MISS';
    console.log(
      `${mark} ${c.suite} / ${c.name}: ${fmt(c.subjectUs, c.unit)} vs ${c.baseline} ${fmt(c.baselineUs, c.unit)} = ${row.ratio.toFixed(3)}x (target <= ${c.target}x)`,
    );
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

function fmt(us: number, unit: Comparison['unit'] = 'us'): string {
  if (unit === 'bytes') return us >= 1024 ? `${(us / 1024).toFixed(2)} KiB` : `${us.toFixed(0)} B`;
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
}

const suiteDir = join(here, 'suites');
const files = readdirSync(suiteDir)
  .filter((f) => f.endsWith(suiteExtension))
  .sort();
for (const file of files) {
  const name = file.slice(0, -suiteExtension.length);
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

// Results accumulate in bench/results.json by suite: a run of some suites replaces only their
// rows, so bench/results.md always shows the latest measurement of every suite.
interface SuiteResult {
  measuredAt: string;
  node: string;
  comparisons: Comparison[];
  skipped: Skipped[];
  notes: string[];
}
const resultsDir = fromSources ? here : join(here, '..', '..', 'bench');
const jsonPath = join(resultsDir, 'results.json');
const stored: Record<string, SuiteResult> = existsSync(jsonPath) ? JSON.parse(readFileSync(jsonPath, 'utf8')) : {};
const today = new Date().toISOString().slice(0, 10);
for (const file of files) {
  const name = file.slice(0, -suiteExtension.length);
  if (only.length && !only.includes(name)) continue;
  stored[name] = {
    measuredAt: today,
    node: process.version,
    comparisons: comparisons.filter((c) => c.suite === name),
    skipped: skipped.filter((s) => s.suite === name),
    notes: notes.filter((n) => n.startsWith(`${name}: `)),
  };
}
writeFileSync(jsonPath, `${JSON.stringify(stored, null, 2)}\n`);
const all = Object.keys(stored)
  .sort()
  .map((k) => ({ suite: k, ...stored[k] }));
const rows = all.flatMap((r) => r.comparisons.map((c) => ({ ...c, measuredAt: r.measuredAt })));
const lines = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` (Node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} cores).`,
  'Each row is a ratio of medians measured in the same run: gatefs / baseline. Lower is better.',
  'Timings on a shared 2-core machine are noisy: read the ratios, not the absolute times.',
  '',
  '| suite | benchmark | gatefs | baseline | ratio | target | met | measured |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (c) =>
      `| ${c.suite} | ${c.name}${c.note ? ` (${c.note})` : ''} | ${fmt(c.subjectUs, c.unit)} | ${c.baseline}: ${fmt(c.baselineUs, c.unit)} | ${c.ratio.toFixed(3)}× | ≤ ${c.target}× | ${c.ratio <= c.target ? 'yes' : '**no**'} | ${c.measuredAt} |`,
  ),
  '',
  ...(all.some((r) => r.skipped.length)
    ? ['## Skipped', '', ...all.flatMap((r) => r.skipped.map((s) => `- ${s.suite} / ${s.name}: ${s.reason}`)), '']
    : []),
  ...(all.some((r) => r.notes.length) ? ['## Notes', '', ...all.flatMap((r) => r.notes.map((n) => `- ${n}`)), ''] : []),
];
writeFileSync(join(resultsDir, 'results.md'), lines.join('\n'));
console.log(
  `\n${comparisons.length} comparisons, ${comparisons.filter((c) => c.ratio > c.target).length} missed, ${skipped.length} skipped`,
);
