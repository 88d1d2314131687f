/**
 * Attack class L: time and the event loop. Pathological globs (`list` pattern, `grep` glob),
 * `.gitignore` rules and regexes run through the real gate over real host folders (60- and
 * 255-character names, 1,000-deep chains, thousands of files and rules, a 1 MiB `.gitignore`,
 * a 20 MiB one-line file, one folder of 300,000 files) and edits of large files (a syntax error
 * left in a 100 KB JSON file, an oldString that misses a 7.8 MB file by whitespace). Every call
 * answers with a result, `INVALID_INPUT` naming the field, or the refusal the scenario expects,
 * within 2 s of CPU (4 s for a walk of the folder of 300,000 files, work in proportion to its
 * size: `Scenario.cpuBoundMs`), and never holds the event loop for more than 100 ms: another
 * conversation keeps being answered meanwhile. The child has a 1 GiB heap, so a call that
 * would hold unbounded memory (hundreds of thousands of parsed `.gitignore` rules) crashes it.
 *
 * The timing part (the one place this project asserts a time in a test, because the issue asks
 * for this bound) runs in a child process of its own, one call at a time, so the measurement is
 * not mixed with other tests' work; the call's time is its CPU time (process.cpuUsage, worker
 * threads included), which other processes on a shared machine inflate far less than its wall
 * time (by about half again right after the full suite here, against several times).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { L_CPU_BOUND_MS, L_SCENARIOS, type ScenarioOutcome } from './l-matching-scenarios.js';
import { RUN_TYPESCRIPT } from '../run-typescript.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-l-'));
/** The child, run from its source (test/run-typescript.ts). */
const script = path.join(here, 'l-matching-child.ts');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** Runs the child; resolves with one outcome per scenario. */
async function runScenarios(): Promise<ScenarioOutcome[]> {
  const folders = fs.mkdtempSync(path.join(base, 'folders-')); // a retry builds afresh
  const shared = path.join(base, 'shared'); // but the folder of 300,000 files only once (read-only)
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=1024', ...RUN_TYPESCRIPT, script, JSON.stringify({ base: folders, shared })],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`child exited ${code}: ${stderr}`);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ScenarioOutcome);
}

describe('L: pathological globs, .gitignore rules, regexes, huge folders and large edits through the gate', () => {
  it('answer with a result or INVALID_INPUT within 2 s, never holding the event loop for 100 ms', { timeout: 600_000 }, async () => {
    const outcomes = await runScenarios();
    const table = outcomes.map(
      (o) =>
        `${o.name}: ${o.code} wall ${o.wallMs} ms, cpu ${o.cpuMs} ms, max delay ${o.maxDelayMs} ms, other reads ${o.served} (slowest ${o.slowestOtherMs} ms)`,
    );
    console.log(table.join('\n'));
    expect(outcomes.map((o) => o.name)).toEqual(L_SCENARIOS.map((s) => s.name));
    for (const [i, o] of outcomes.entries()) {
      const s = L_SCENARIOS[i];
      const seen = { name: o.name, code: o.code, message: o.message };
      expect(s.outcomes, JSON.stringify(seen)).toContain(o.code);
      if (o.code === 'INVALID_INPUT') expect(o.message, o.name).toMatch(/^(pattern|glob|path): /);
      expect(o.maxDelayMs, `${o.name}: worst event-loop delay`).toBeLessThanOrEqual(100);
      expect(o.cpuMs, `${o.name}: CPU time of the call`).toBeLessThanOrEqual(s.cpuBoundMs ?? L_CPU_BOUND_MS);
      if (o.wallMs > 200) expect(o.served, `${o.name}: reads of another conversation answered meanwhile`).toBeGreaterThan(0);
    }
    // What the answers say, where they are results.
    const value = (name: string) => outcomes.find((o) => o.name === name)?.value;
    expect(value('list *a*a*a*a*a*a*a*a*b over 60-char names')).toBe('{"entries":[],"truncated":false}');
    expect(value('grep a literal through a 20 MiB line (content)')).toBe('{"matches":[],"truncated":false,"filesSearched":1}');
    expect(value('grep a literal that matches a 20 MiB line (content, cut at 2,000)')).toMatch(
      /^\{"matches":\[\{"path":"huge.txt","line":1,"text":"a{250}/,
    );
    expect(value('grep count of a literal over 10,000 long lines')).toBe(
      '{"counts":[{"path":"lines.txt","count":10000}],"truncated":false,"filesSearched":1}',
    );
    expect(value('grep a case-insensitive literal over a 20 MiB line')).toBe(
      '{"counts":[{"path":"huge.txt","count":1}],"truncated":false,"filesSearched":1}',
    );
    expect(value('list one folder of 300,000 files')).toMatch(
      /^\{"entries":\[\{"path":"one\/f0.txt","type":"file","size":0\},\{"path":"one\/f1.txt"/,
    );
    expect(value('grep one folder of 300,000 files for a literal, glob *77.txt (3,000 of them read)')).toBe(
      '{"files":[],"truncated":false,"filesSearched":3000}',
    );
    const outcome = (name: string) => outcomes.find((o) => o.name === name);
    expect(outcome('edit a 100 KB JSON file, leaving a syntax error (the syntax report finds it)')?.syntax).toBe(
      '{"language":"json","checked":true,"introduced":[{"line":4003,"column":14,"message":"unexpected \\",\\""}],"introducedCount":1}',
    );
    expect(
      outcome('edit a 7.8 MB file of 120,000 lines with an oldString that misses by indentation (NO_MATCH names the region)')?.message,
    ).toContain('lines 119999-120000 match it except for whitespace');
  });
});
