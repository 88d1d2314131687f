/**
 * `gatefs log` through the built binary: the run log as lines and as JSON Lines, one
 * conversation's events, the last N, `--follow` printing what another process appends (and
 * waiting for a log that does not exist yet), and a read-only look that creates nothing in a
 * fresh repository or a folder that is not one; `--failed` listing exactly a scenario's
 * failures; every field shown, nothing cut (wrapped to a terminal's width, `--wide` on one line).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, gatefs, sampleRepo } from './run-gatefs.js';
import { formatEventLine } from '../../src/cli/run-log.js';

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

describe('gatefs log --failed and full detail', () => {
  let scene: ReturnType<typeof sampleRepo>;
  const inScene = (...args: string[]) => gatefs(args, { cwd: scene.dir });
  const jsonLines = (text: string) =>
    text
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { seq: number; type: string; conversation: string | null; data: Record<string, any> });

  beforeAll(async () => {
    scene = sampleRepo();
    expect((await inScene('prepare', 'one')).code).toBe(0);
    expect((await inScene('call', 'one', 'read', '{"path":"README.md"}')).code).toBe(0);
    expect((await inScene('call', 'one', 'read', '{"path":"nope.md"}')).code).toBe(1);
    expect((await inScene('call', 'one', 'write', '{"path":"../x","content":"y"}')).code).toBe(1);
    expect((await inScene('call', 'one', 'bogus', '{}')).code).toBe(1);
    expect((await inScene('call', 'one', 'write', '{"path":"notes.md","content":"kept\\n"}')).code).toBe(0);
    expect((await inScene('release', 'one')).code).not.toBe(0); // uncommitted notes.md: refused
    expect((await inScene('prepare', 'two', '--base', 'no-such-ref')).code).not.toBe(0);
  }, 180_000);
  afterAll(() => scene?.cleanup());

  it('lists exactly the failures: refused tool calls, the refused release, the failed preparation', async () => {
    const all = jsonLines((await inScene('log', '--json', '--tail', '0')).stdout);
    // gatefs's own git answered "no" somewhere (rev-parse --verify of a branch not made yet): not a failure.
    expect(all.some((e) => e.type === 'exec' && e.data.exitCode !== 0)).toBe(true);
    const expected = all.filter(
      (e) =>
        (e.type === 'tool_call' && e.data.outcome !== 'ok') ||
        e.type === 'release.refused' ||
        e.type === 'release.aborted' ||
        e.type === 'prepare.failed',
    );
    const failed = jsonLines((await inScene('log', '--failed', '--json', '--tail', '0')).stdout);
    expect(failed.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
    expect(failed.map((e) => [e.type, e.data.tool ?? null, e.data.outcome ?? e.data.code])).toEqual([
      ['tool_call', 'read', 'NOT_FOUND'],
      ['tool_call', 'write', 'PATH_ESCAPE'],
      ['tool_call', '(unknown)', 'TOOL_NOT_ALLOWED'],
      ['release.refused', null, 'DIRTY_WORKTREE'],
      ['release.aborted', null, 'DIRTY_WORKTREE'],
      ['prepare.failed', null, 'BAD_REF'],
    ]);
    const text = (await inScene('log', '--failed')).stdout.trimEnd().split('\n');
    expect(text).toHaveLength(6);
    expect(text[0]).toMatch(/tool_call\s+one\s+tool=read outcome=NOT_FOUND paths=nope\.md durationMs=\d+$/);
    expect(text[3]).toMatch(/release\.refused\s+one\s+code=DIRTY_WORKTREE count=1 files=notes\.md$/);
    const last2 = (await inScene('log', '--failed', '--tail', '2')).stdout.trimEnd().split('\n');
    expect(last2).toEqual(text.slice(-2));
  });

  it('shows every field, nothing cut: the exit code after a long git argv; --wide every argv word on one line', async () => {
    const all = jsonLines((await inScene('log', '--json', '--tail', '0')).stdout);
    const git = all.find((e) => e.type === 'exec' && e.data.argv.length > 20)!;
    expect(git).toBeDefined();
    const line = (await inScene('log', '--tail', '0')).stdout.split('\n').find((l) => l.startsWith(String(git.seq).padStart(6)))!;
    const subcommand = git.data.argv.slice(git.data.argv.lastIndexOf('-c') + 2);
    expect(line).toContain(`argv="git [${(git.data.argv.lastIndexOf('-c') + 1) / 2} -c settings] ${subcommand.join(' ')}"`);
    expect(line).toContain(` exitCode=${git.data.exitCode} `);
    expect(line).toContain(`durationMs=${git.data.durationMs}`);
    const wide = (await inScene('log', '--wide', '--tail', '0')).stdout.split('\n').find((l) => l.startsWith(String(git.seq).padStart(6)))!;
    expect(wide).toContain(`argv="${git.data.argv.join(' ')}"`);
    expect(wide).toContain(` exitCode=${git.data.exitCode} `);
  });
});

describe('formatEventLine', () => {
  const event = {
    seq: 42,
    at: Date.UTC(2026, 11, 7, 9, 0, 0),
    type: 'exec',
    conversation: 'alpha',
    data: {
      tag: 'lander.check',
      argv: ['/bin/sh', '-c', 'npx vitest run --reporter=verbose test/a.test.ts test/b.test.ts'],
      exitCode: 137,
      signal: 'SIGKILL',
      limit: 'memory',
      sandboxed: true,
    },
  };

  it('wraps long details under the DETAILS column at the given width, cutting nothing', () => {
    const text = formatEventLine(event, { width: 130 });
    const lines = text.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(130);
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {80}\S/);
    const joined = lines.map((l, i) => (i === 0 ? l.slice(80) : l.trim())).join(' ');
    expect(joined).toBe(formatEventLine(event).slice(80));
    expect(joined).toContain('exitCode=137 signal=SIGKILL limit=memory');
    // A shell's single -c is the command itself: never folded like git's settings.
    expect(joined).toContain('argv="/bin/sh -c npx vitest run --reporter=verbose test/a.test.ts test/b.test.ts"');
  });

  it('on a narrow terminal puts the details under a short indent; --wide ignores the width', () => {
    const lines = formatEventLine(event, { width: 60 }).split('\n');
    expect(lines[0]).toMatch(/^ {4}42 {2}2026-12-07T09:00:00Z {2}exec {20}alpha$/);
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {8}\S/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(formatEventLine(event, { width: 60, wide: true }).split('\n')).toHaveLength(1);
  });
});
