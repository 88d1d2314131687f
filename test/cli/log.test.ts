/**
 * `gatefs log` through the built binary: the run log as lines and as JSON Lines, one
 * conversation's events, the last N, `--follow` printing what another process appends (and
 * waiting for a log that does not exist yet), and a read-only look that creates nothing in a
 * fresh repository or a folder that is not one.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, gatefs, sampleRepo } from './run-gatefs.js';

let repo: ReturnType<typeof sampleRepo>;
const run = (...args: string[]) => gatefs(args, { cwd: repo.dir });

beforeAll(async () => {
  repo = sampleRepo();
  expect((await run('prepare', 'alpha')).code).toBe(0);
  expect((await run('prepare', 'beta')).code).toBe(0);
  expect((await run('call', 'alpha', 'read', '{"path":"README.md"}')).code).toBe(0);
  expect((await run('call', 'beta', 'read', '{"path":"../x"}')).code).toBe(1);
}, 120_000);
afterAll(() => repo?.cleanup());

/** Starts `gatefs log --follow <args>` and collects its stdout. */
function follow(cwd: string, ...args: string[]) {
  const child = spawn(process.execPath, [BIN, 'log', '--follow', ...args], { cwd, stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const until = async (text: string) => {
    for (let i = 0; i < 300 && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain(text);
  };
  return { child, out: () => out, exited, until };
}

describe('gatefs log', () => {
  it('prints one line per event, oldest first, with the tool and its outcome code', async () => {
    const r = await run('log');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const seqs = lines.map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(lines.find((l) => /tool_call\s+alpha\s+tool=read outcome=ok/.test(l))).toBeDefined();
    expect(lines.find((l) => /tool_call\s+beta\s+tool=read outcome=PATH_ESCAPE/.test(l))).toBeDefined();
    expect(lines[0]).toMatch(/^\s*\d+ {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}\S/);
  });

  it('--conversation keeps one conversation; --tail N the last N', async () => {
    const beta = await run('log', '--conversation', 'beta');
    const rows = beta.stdout.trim().split('\n');
    expect(rows.length).toBeGreaterThan(1);
    for (const line of rows) expect(line.trim().split(/\s{2,}/)[3]).toBe('beta');
    const last2 = await run('log', '--tail', '2');
    const all = await run('log', '--tail', '0');
    const lines = (text: string) => text.trimEnd().split('\n');
    expect(lines(last2.stdout)).toEqual(lines(all.stdout).slice(-2));
  });

  it('--json prints JSON Lines with the data', async () => {
    const r = await run('log', '--json', '--conversation', 'beta', '--tail', '0');
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const call = events.find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({ conversation: 'beta', data: { tool: 'read', outcome: 'PATH_ESCAPE' } });
    expect(typeof call.seq).toBe('number');
    expect(new Date(call.time).getTime()).toBe(call.at);
  });

  it('a usage error names the flag', async () => {
    const r = await run('log', '--tail', 'many');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--tail takes a whole number of events');
  });

  it('--follow prints events another process appends, and stops on Ctrl-C with exit 0', async () => {
    const f = follow(repo.dir, '--json', '--tail', '1');
    await new Promise((r) => setTimeout(r, 800));
    expect((await run('call', 'alpha', 'list', '{"path":"src"}')).code).toBe(0);
    await f.until('"tool":"list"');
    f.child.kill('SIGINT');
    expect(await f.exited).toBe(0);
    const events = f
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.data.tool === 'list')).toHaveLength(1);
  });
});

describe('a read-only look creates nothing', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'gatefs-log-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('in a folder that is not a repository: says there is no log yet, writes nothing', async () => {
    const plain = join(root, 'plain');
    mkdirSync(plain);
    for (const args of [
      ['log'],
      ['log', '--json'],
      ['status'],
      ['lander', 'status'],
      ['messages'],
      ['log', '--help'],
      ['status', '--help'],
    ]) {
      const r = await gatefs(args, { cwd: plain });
      expect(r.code, args.join(' ')).toBe(0);
    }
    expect((await gatefs(['log'], { cwd: plain })).stdout).toContain('No run log yet');
    expect(readdirSync(plain)).toEqual([]);
  });

  it('in a fresh repository: --follow waits for the first event without creating the state directory', async () => {
    const fresh = sampleRepo();
    try {
      const f = follow(fresh.dir);
      await new Promise((r) => setTimeout(r, 1000));
      expect(readdirSync(fresh.dir)).not.toContain('.gatefs');
      expect((await gatefs(['prepare', 'first'], { cwd: fresh.dir })).code).toBe(0);
      await f.until('prepare.ready');
      f.child.kill('SIGTERM');
      expect(await f.exited).toBe(0);
    } finally {
      fresh.cleanup();
    }
  });
});
