/**
 * Bringing work home from the command line, through the built binary on a real repository:
 * `gatefs diff`, `commit`, `submit`, `lander run|status`, `messages` and `subagent
 * start|land|discard`, as tables and as `--json`; usage mistakes exit 2 before anything
 * changes; `GATEFS_LANDER_CRASH_AT` kills `lander run` at a save point and the next run
 * finishes the landing exactly once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/run-cli.js';
import { spawn } from 'node:child_process';
import { BIN, gatefs, git, sampleRepo } from './run-gatefs.js';

let repo: ReturnType<typeof sampleRepo>;
const run = (args: string[], env?: Record<string, string>) => gatefs(args, { cwd: repo.dir, ...(env ? { env } : {}) });
const MANIFEST = [
  'roles:',
  '  - name: agent',
  '    tools: [read, write, edit, diff, commit, submit]',
  '    workspace: { backend: worktree }',
  'lander:',
  '  checks: ["true"]',
  '',
].join('\n');

beforeEach(() => {
  repo = sampleRepo();
  writeFileSync(join(repo.dir, 'gatefs.yaml'), MANIFEST);
  git(repo.dir, 'add', 'gatefs.yaml');
  git(repo.dir, 'commit', '--quiet', '-m', 'manifest');
});
afterEach(() => repo?.cleanup());

async function ok(args: string[], env?: Record<string, string>) {
  const r = await run(args, env);
  expect(r.code, `gatefs ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

async function editedWorkspace(conversation: string, file: string) {
  await ok(['prepare', conversation]);
  await ok(['call', conversation, 'write', JSON.stringify({ path: file, content: `${conversation}\n` })]);
}

describe('diff, commit, submit, lander, messages', () => {
  it('takes an edit from a workspace to main, with a report and a LANDED count', async () => {
    await editedWorkspace('fix', 'fixed.txt');
    const diff = await ok(['diff', 'fix']);
    expect(diff.stdout).toContain('A fixed.txt');
    expect(diff.stdout).toContain('+fix');
    const diffJson = JSON.parse((await ok(['diff', 'fix', '--json'])).stdout);
    expect(diffJson).toMatchObject({ base: 'pinned', files: [{ path: 'fixed.txt', status: 'added' }], truncated: false });
    const commit = await ok(['commit', 'fix', '-m', 'Fix it']);
    expect(commit.stdout).toMatch(/^committed [0-9a-f]{12} on gatefs\/fix: 1 file\(s\)\nadded fixed.txt/);
    expect(git(repo.dir, 'log', '-1', '--format=%an <%ae>|%s', 'gatefs/fix').trim()).toBe('fix <fix@gatefs.invalid>|Fix it');
    expect((await ok(['diff', 'fix', '--base', 'head'])).stdout).toContain('(no changes)');
    const submit = JSON.parse((await ok(['submit', 'fix', '--divergence', 'None', '--summary', 'fixes it', '--json'])).stdout);
    expect(submit).toMatchObject({ queuePosition: 1, target: 'main', requestId: `req-${submit.submissionId}` });
    expect((await ok(['lander', 'status'])).stdout).toMatch(new RegExp(`${submit.submissionId}\\s+fix\\s+main\\s+queued`));
    const landed = await ok(['lander', 'run']);
    expect(landed.stdout).toContain(`landed ${submit.submissionId} from fix on main`);
    expect(git(repo.dir, 'show', 'main:fixed.txt')).toBe('fix\n');
    expect((await ok(['lander', 'run'])).stdout).toBe('nothing to land\n');
    const queue = JSON.parse((await ok(['lander', 'status', '--json'])).stdout);
    expect(queue).toMatchObject([{ id: submit.submissionId, state: 'done', landedSha: git(repo.dir, 'rev-parse', 'main').trim() }]);
    const messages = await ok(['messages', 'fix']);
    expect(messages.stdout).toContain(`[${submit.requestId}] report to fix: ${submit.submissionId} landed on main`);
    expect(messages.stdout).toContain('fixes it');
    const status = await ok(['status']);
    expect(status.stdout.split('\n')[0]).toMatch(/PARENT\s+LANDED\s+SNAPSHOTS$/);
    expect(status.stdout.split('\n')[1]).toMatch(/\s1\s+-$/);
  });

  it('a failed check shows in lander status and messages with the output tail', async () => {
    writeFileSync(join(repo.dir, 'lander.json'), JSON.stringify({ lander: { checks: ["sh -c 'echo the tests broke; exit 4'"] } }));
    await editedWorkspace('fix', 'fixed.txt');
    await ok(['commit', 'fix', '-m', 'Fix it']);
    await ok(['submit', 'fix', '--divergence', 'None', '--settings', 'lander.json']);
    const ran = await ok(['lander', 'run', '--settings', 'lander.json']);
    expect(ran.stdout).toMatch(/^failed sub-[0-9a-f]+ from fix: CHECK_FAILED/);
    expect((await ok(['lander', 'status'])).stdout).toMatch(/failed\s+[0-9a-f]{12}\s+-\s+-\s+CHECK_FAILED/);
    const messages = (await ok(['messages'])).stdout;
    expect(messages).toContain('input to fix');
    expect(messages).toContain("check 'sh -c 'echo the tests broke; exit 4'' failed with exit code 4");
    expect(messages).toContain('    the tests broke');
  });

  it('refuses usage mistakes with exit 2 and changes nothing', async () => {
    await editedWorkspace('fix', 'fixed.txt');
    const before = git(repo.dir, 'rev-parse', 'gatefs/fix');
    let said = '';
    const out = {
      print: () => undefined,
      json: () => undefined,
      jsonLine: () => undefined,
      progress: (line: string) => void (said += `gatefs: ${line}\n`),
      problem: (text: string) => void (said += `${text}\n`),
    };
    for (const args of [
      ['commit', 'fix'],
      ['commit', 'fix', '-m', '   '],
      ['submit', 'fix'],
      ['submit', 'fix', '--divergence', ''],
      ['diff', 'fix', '--path', '../outside'],
      ['diff', 'fix', '--path', '/etc'],
      ['diff', 'fix', '--base', 'yesterday'],
      ['lander'],
      ['lander', 'land'],
      ['lander', 'run', '--interval', 'soon'],
      ['subagent', 'adopt', 'fix'],
      ['subagent', 'start', 'fix'],
      ['subagent', 'start', 'fix', 'kid', '--isolate', 'container'],
      ['subagent', 'land', 'fix', 'extra'],
      ['messages', '../x'],
    ]) {
      said = '';
      // In this process (a usage error is refused before any host opens), with --repo for the folder.
      const code = await runCli([...args, '--repo', repo.dir], COMMANDS, out);
      expect(code, `gatefs ${args.join(' ')}: ${said}`).toBe(2);
      expect(said).toMatch(/^gatefs: .*\nRun "gatefs [a-z]+ --help" for usage\.\n$/);
    }
    const crash = await run(['lander', 'run'], { GATEFS_LANDER_CRASH_AT: 'nowhere' });
    expect(crash.code).toBe(2);
    expect(crash.stderr).toContain('merging, checking');
    expect(git(repo.dir, 'rev-parse', 'gatefs/fix')).toBe(before);
  });

  it('submitting uncommitted work is DIRTY_WORKTREE (exit 1) naming the file', async () => {
    await editedWorkspace('fix', 'fixed.txt');
    const r = await run(['submit', 'fix', '--divergence', 'None']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('DIRTY_WORKTREE');
    expect(r.stderr).toContain('fixed.txt');
  });

  it('a lander killed at a save point by GATEFS_LANDER_CRASH_AT lands exactly once on the next run', async () => {
    await editedWorkspace('fix', 'fixed.txt');
    await ok(['commit', 'fix', '-m', 'Fix it']);
    await ok(['submit', 'fix', '--divergence', 'None']);
    const killed = await run(['lander', 'run'], { GATEFS_LANDER_CRASH_AT: 'fast-forwarded' });
    expect(killed.code).toBeNull();
    expect(git(repo.dir, 'show', 'main:fixed.txt')).toBe('fix\n');
    expect(JSON.parse((await ok(['lander', 'status', '--json'])).stdout)).toMatchObject([{ state: 'checked', landedSha: null }]);
    expect((await ok(['lander', 'run'])).stdout).toMatch(/^landed /);
    const queue = JSON.parse((await ok(['lander', 'status', '--json'])).stdout);
    expect(queue).toMatchObject([{ state: 'done', landedSha: git(repo.dir, 'rev-parse', 'main').trim() }]);
    expect(JSON.parse((await ok(['messages', '--json'])).stdout).map((m: { kind: string }) => m.kind)).toEqual(['report', 'note']);
  });
});

describe('lander run --watch', () => {
  it('lands what is submitted while it runs, and stops on SIGTERM with exit 0', async () => {
    await editedWorkspace('fix', 'fixed.txt');
    await ok(['commit', 'fix', '-m', 'Fix it']);
    const watcher = spawn(process.execPath, [BIN, 'lander', 'run', '--watch', '--interval', '0.2'], { cwd: repo.dir });
    let stdout = '';
    watcher.stdout.on('data', (d) => (stdout += d));
    const ended = new Promise<number | null>((resolve) => watcher.on('close', (code) => resolve(code)));
    await ok(['submit', 'fix', '--divergence', 'None']);
    for (let i = 0; i < 300 && !stdout.includes('landed '); i++) await new Promise((r) => setTimeout(r, 100));
    expect(stdout).toMatch(/^landed sub-[0-9a-f]+ from fix on main/);
    watcher.kill('SIGTERM');
    expect(await ended).toBe(0);
    expect(git(repo.dir, 'show', 'main:fixed.txt')).toBe('fix\n');
  });
});

describe('subagent', () => {
  it('start, land and discard from the command line', async () => {
    await editedWorkspace('parent', 'parent.txt');
    await ok(['commit', 'parent', '-m', 'parent work']);
    const started = await ok(['subagent', 'start', 'parent', 'child']);
    expect(started.stdout).toMatch(
      /child\s+agent\s+default\/v2\s+worktree\s+confined\s+ready\s+gatefs\/child\s+[0-9a-f]{12}\s+-\s+parent\s+-/,
    );
    await ok(['call', 'child', 'write', JSON.stringify({ path: 'child.txt', content: 'child\n' })]);
    await ok(['commit', 'child', '-m', 'child work']);
    const refused = await run(['release', 'child']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('NOT_CLEAN');
    const landed = await ok(['subagent', 'land', 'child']);
    expect(landed.stdout).toMatch(/^landed "child" on "parent": 1 commit\(s\), the parent's branch is at [0-9a-f]{12}; "child" released/);
    expect(git(repo.dir, 'show', 'gatefs/parent:child.txt')).toBe('child\n');
    await ok(['subagent', 'start', 'parent', 'other']);
    const discarded = JSON.parse((await ok(['subagent', 'discard', 'other', '--json'])).stdout);
    expect(discarded).toMatchObject({ conversation: 'other', removed: true, branchDeleted: false });
    expect(git(repo.dir, 'branch', '--list', 'gatefs/other').trim()).toBe('gatefs/other');
  });
});
