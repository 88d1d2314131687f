/**
 * The README's run-log examples (the `run-log` snippet of § Watch what happens), run as a reader
 * would paste them, in a shell with `gatefs` on PATH, over a scenario with refused and successful
 * calls: each command exits 0, `gatefs log --failed` and the `jq` line for failed calls print
 * exactly the failed tool calls (not every record without an outcome), and the `jq` line for
 * edited files prints exactly the paths the edits named. `jq` comes from the system (`.ci/run`
 * installs it); where it is missing, the `jq` lines are skipped, saying so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeSnippet } from './readme-snippets.js';
import { BIN, gatefs, sampleRepo } from './run-gatefs.js';

const hasJq = spawnSync('jq', ['--version']).status === 0;
if (!hasJq) console.warn("readme-log-examples: jq is not installed here; the README's jq lines are not run (.ci/run installs it)");

/** The snippet's command lines, comments after `  #` dropped. */
const lines = readmeSnippet('run-log')
  .split('\n')
  .map((l) => l.replace(/\s{2,}#.*$/, '').trim())
  .filter((l) => l.startsWith('gatefs '));

let repo: ReturnType<typeof sampleRepo>;
let bin: string;

/** Runs one README line in bash (pipefail) with `gatefs` on PATH, in the repository. */
function shell(line: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', line], {
    cwd: repo.dir,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, GATEFS_DEBUG: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Logged {
  seq: number;
  type: string;
  conversation: string | null;
  data: Record<string, any>;
}

beforeAll(async () => {
  repo = sampleRepo();
  bin = join(repo.root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gatefs'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'gatefs'), 0o755);
  const run = (...args: string[]) => gatefs(args, { cwd: repo.dir });
  expect((await run('prepare', 'fix-login')).code).toBe(0);
  expect((await run('call', 'fix-login', 'read', '{"path":"README.md"}')).code).toBe(0);
  expect((await run('call', 'fix-login', 'edit', '{"path":"README.md","oldString":"sample","newString":"example"}')).code).toBe(0);
  expect((await run('call', 'fix-login', 'edit', '{"path":"missing.md","oldString":"a","newString":"b"}')).code).toBe(1);
  expect((await run('call', 'fix-login', 'read', '{"path":"../outside"}')).code).toBe(1);
  expect((await run('call', 'fix-login', 'write', '{"path":"notes/plan.md","content":"plan\\n"}')).code).toBe(0);
  expect((await run('call', 'fix-login', 'grep', '{"pattern":"(","regex":true}')).code).toBe(1);
}, 180_000);
afterAll(() => repo?.cleanup());

/** Every record, as `gatefs log --json --tail 0` prints them. */
function allEvents(): Logged[] {
  const out = execFileSync(process.execPath, [BIN, 'log', '--json', '--tail', '0'], { cwd: repo.dir, encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Logged);
}

describe("the README's run-log examples", () => {
  it('are found in the README, jq lines among them', () => {
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(lines.filter((l) => l.includes('| jq'))).toHaveLength(2);
    expect(lines).toContain('gatefs log --failed');
  });

  it('each command that ends by itself exits 0 (jq lines where jq is installed)', () => {
    for (const line of lines) {
      if (line.includes('--follow') || (!hasJq && line.includes('jq'))) continue;
      const r = shell(line);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      expect(r.stdout.trim(), line).not.toBe('');
    }
  });

  it('gatefs log --failed prints exactly the failed tool calls of the scenario', () => {
    const failed = allEvents().filter((e) => e.type === 'tool_call' && e.data.outcome !== 'ok');
    expect(failed.map((e) => e.data.outcome)).toEqual(['NOT_FOUND', 'PATH_ESCAPE', 'INVALID_INPUT']);
    const shown = shell('gatefs log --failed').stdout.trimEnd().split('\n');
    expect(shown.map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual(failed.map((e) => e.seq));
  });

  it.skipIf(!hasJq)('the jq line for failed calls prints those calls and nothing else', () => {
    const line = lines.find((l) => l.includes('jq') && l.includes('outcome'))!;
    const printed = shell(line)
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const failed = allEvents().filter((e) => e.type === 'tool_call' && e.data.outcome !== 'ok');
    expect(printed).toEqual(failed.map((e) => [e.seq, e.conversation, e.data.tool, e.data.outcome, e.data.paths ?? null]));
    expect(printed.length).toBeLessThan(allEvents().length / 2);
  });

  it.skipIf(!hasJq)('the jq line for edited files prints the paths the edits named, once each', () => {
    const line = lines.find((l) => l.includes('jq') && l.includes('"edit"'))!;
    expect(shell(line).stdout.trim().split('\n')).toEqual(['README.md', 'missing.md']);
  });
});
