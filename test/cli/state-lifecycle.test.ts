/**
 * The trust boundary and the lifecycle through the built binary, as an operator meets them:
 * every command refuses a state directory that came with the repository (STATE_UNTRUSTED, one
 * line with what was found and what to do, exit 1, nothing touched); `release` keeps ignored
 * work unless `--discard`, refuses a live session unless `--force`; and `gatefs call` works
 * right after a `gatefs serve` was killed with SIGKILL, without a new server.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, gatefs, git, sampleRepo } from './run-gatefs.js';
import { hashTree } from '../security/sandbox.js';

let repo: ReturnType<typeof sampleRepo>;
const run = (...args: string[]) => gatefs(args, { cwd: repo.dir });
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .*\(/);

beforeAll(() => {
  repo = sampleRepo();
});
afterAll(() => repo?.cleanup());

describe('release --help', () => {
  it('documents --discard and --force', async () => {
    const help = await gatefs(['release', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('gatefs release <conversation> [--delete-branch] [--discard] [--force]');
    expect(help.stdout).toMatch(/--discard\s+delete uncommitted work too/);
    expect(help.stdout).toMatch(/--force\s+release even while a live session/);
  });
});

describe('a state directory that came with the repository', () => {
  it('every command refuses it with STATE_UNTRUSTED and changes nothing', async () => {
    expect((await run('prepare', 'c1')).code).toBe(0);
    git(repo.dir, 'add', '-f', '.gatefs/gatefs.db');
    git(repo.dir, 'commit', '--quiet', '-m', 'oops, the state database');
    const root = mkdtempSync(join(tmpdir(), 'gatefs-clone-'));
    try {
      const clone = join(root, 'clone');
      execFileSync('git', ['clone', '--quiet', repo.dir, clone]);
      const before = hashTree(join(clone, '.gatefs'));
      for (const args of [['status'], ['prepare', 'c2'], ['call', 'c1', 'read', '{"path":"README.md"}'], ['release', 'c1'], ['serve', '--conversation', 'c1']]) {
        const r = await gatefs([...args, '--repo', clone]);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr).toMatch(/^gatefs: error: STATE_UNTRUSTED: the state directory '.*\.gatefs' is tracked by git \(\.gatefs\/gatefs\.db\)/);
        expect(r.stderr).toContain('git rm -r --cached');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stdout).toBe('');
        noStack(r.stderr);
      }
      expect(hashTree(join(clone, '.gatefs'))).toBe(before);
      expect(existsSync(join(clone, '.gatefs/worktrees'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
      git(repo.dir, 'rm', '--quiet', '--cached', '.gatefs/gatefs.db');
      git(repo.dir, 'commit', '--quiet', '-m', 'untrack it again');
    }
  });
});

describe('release keeps work', () => {
  it('an ignored file refuses the release, naming it and --discard; --discard releases and keeps the branch', async () => {
    writeFileSync(join(repo.dir, '.gitignore'), 'scratch/\n');
    git(repo.dir, 'add', '.gitignore');
    git(repo.dir, 'commit', '--quiet', '-m', 'ignore scratch/');
    expect((await run('prepare', 'c3')).code).toBe(0);
    const w = await run('call', 'c3', 'write', '{"path":"scratch/cache/x.js","content":"ignored but work"}');
    expect(w.code).toBe(0);
    const refused = await run('release', 'c3');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^gatefs: error: DIRTY_WORKTREE: .*scratch\/.*--discard/);
    expect((await run('call', 'c3', 'read', '{"path":"scratch/cache/x.js"}')).code).toBe(0);
    const discarded = await run('release', 'c3', '--discard');
    expect(discarded.code).toBe(0);
    expect(discarded.stdout).toContain('uncommitted work was discarded (the branch and its commits are kept)');
    expect(git(repo.dir, 'branch', '--list', 'gatefs/c3')).toContain('gatefs/c3');
  });
});

describe('a killed server', () => {
  it('gatefs call writes right after gatefs serve was SIGKILLed; release --force ends a live one', async () => {
    expect((await run('prepare', 'c4')).code).toBe(0);
    const serve = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir, '--conversation', 'c4'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    await new Promise<void>((resolve, reject) => {
      serve.stderr.on('data', (d) => {
        err += d;
        if (err.includes('serving conversation')) resolve();
      });
      serve.once('exit', () => reject(new Error(`serve exited: ${err}`)));
    });
    const holderOf = async () => (JSON.parse((await run('status', '--json')).stdout) as { conversation: string; holder: string | null }[]).find((r) => r.conversation === 'c4')?.holder;
    for (let i = 0; i < 50 && !(await holderOf()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await holderOf()).toMatch(/^mcp-/);
    const blocked = await run('call', 'c4', 'write', '{"path":"x.txt","content":"x"}');
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/^gatefs: OCCUPIED: /);
    const refused = await run('release', 'c4');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^gatefs: error: OCCUPIED: .*not released/);
    serve.kill('SIGKILL');
    await new Promise((r) => serve.once('exit', r));
    const after = await run('call', 'c4', 'write', '{"path":"x.txt","content":"after the crash"}');
    expect(after.code).toBe(0);
    expect(await holderOf()).toBeNull();
    // --force: a live holder (a second server) is ended by the release
    const second = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir, '--conversation', 'c4'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      for (let i = 0; i < 100 && !(await holderOf()); i++) await new Promise((r) => setTimeout(r, 100));
      const forced = await run('release', 'c4', '--force', '--discard');
      expect(forced.code).toBe(0);
      expect(forced.stdout).toMatch(/ended the occupancy of mcp-/);
    } finally {
      second.kill('SIGKILL');
    }
  });
});
