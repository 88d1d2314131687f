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
import { systemClock } from '../../src/ports/clock.js';
import { StateStore } from '../../src/state/index.js';

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
  it('every command refuses it with STATE_UNTRUSTED and changes nothing', { timeout: 120_000 }, async () => {
    expect((await run('prepare', 'c1')).code).toBe(0);
    git(repo.dir, 'add', '-f', '.gatefs/gatefs.db');
    git(repo.dir, 'commit', '--quiet', '-m', 'oops, the state database');
    const root = mkdtempSync(join(tmpdir(), 'gatefs-clone-'));
    try {
      const clone = join(root, 'clone');
      execFileSync('git', ['clone', '--quiet', repo.dir, clone]);
      const before = hashTree(join(clone, '.gatefs'));
      for (const args of [
        ['status'],
        ['prepare', 'c2'],
        ['call', 'c1', 'read', '{"path":"README.md"}'],
        ['release', 'c1'],
        ['serve', '--conversation', 'c1'],
      ]) {
        const r = await gatefs([...args, '--repo', clone]);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr).toMatch(
          /^gatefs: error: STATE_UNTRUSTED: the state directory '.*\.gatefs' is tracked by git \(\.gatefs\/gatefs\.db\)/m,
        );
        expect(r.stderr).toContain('git rm -r --cached');
        // serve answers its client at once and says on stderr that it started; the failure is its last line.
        const lines = r.stderr.trim().split('\n');
        if (args[0] === 'serve') expect(lines.filter((l) => l.startsWith('gatefs: error:'))).toEqual([lines.at(-1)]);
        else expect(lines).toHaveLength(1);
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
  it('an ignored file refuses the release, naming it and --discard; --discard releases and keeps the branch', {
    timeout: 120_000,
  }, async () => {
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

describe('release of the other backends says what happened to them', () => {
  it('a copy: the refusal points at its folder (no branch to commit on); --discard says its files went', { timeout: 120_000 }, async () => {
    const manifest = join(repo.root, 'backends.yaml');
    writeFileSync(
      manifest,
      'roles:\n  - name: copier\n    tools: [read, write]\n    workspace: { backend: copy }\n  - name: sharer\n    tools: [read]\n    workspace: { backend: shared }\n',
    );
    const m = (...args: string[]) => run('--manifest', manifest, ...args);
    expect((await m('prepare', 'k1', '--role', 'copier')).code).toBe(0);
    expect((await m('call', 'k1', 'write', '{"path":"README.md","content":"changed in the copy"}')).code).toBe(0);
    const refused = await m('release', 'k1');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `gatefs: error: DIRTY_WORKTREE: conversation 'k1' has changed or new files: README.md (these files exist only in the copy's folder ${join(repo.dir, '.gatefs/copies/k1')}: ` +
        'copy out what you want to keep, then release with discard (gatefs release k1 --discard) to delete them)',
    );
    const discarded = await m('release', 'k1', '--discard');
    expect(discarded.stdout).toBe('released "k1": workspace removed\nthe copy\'s changed and new files were discarded\n');
    expect((await m('prepare', 'k2', '--role', 'sharer')).code).toBe(0);
    const shared = await m('release', 'k2');
    expect(shared.stdout).toBe('released "k2": the shared checkout is left as it is\n');
    expect(existsSync(join(repo.dir, 'README.md'))).toBe(true);
  });
});

describe('a killed server', () => {
  /** The holder of `conversation` as the state database says (read in-process: polling the CLI is slow). */
  const holderOf = (conversation: string) => {
    const store = StateStore.open(join(repo.dir, '.gatefs/gatefs.db'), { clock: systemClock });
    try {
      return store.occupancy.current(conversation)[0]?.holder ?? null;
    } finally {
      store.close();
    }
  };
  const serve = async (conversation: string) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo.dir, '--conversation', conversation], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    for (let i = 0; i < 300 && !holderOf(conversation); i++) {
      if (child.exitCode !== null) throw new Error(`serve exited: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(holderOf(conversation)).toMatch(/^mcp-/);
    return child;
  };

  it('gatefs call writes right after gatefs serve was SIGKILLed, without a new server', async () => {
    expect((await run('prepare', 'c4')).code).toBe(0);
    const server = await serve('c4');
    const blocked = await run('call', 'c4', 'write', '{"path":"x.txt","content":"x"}');
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/^gatefs: OCCUPIED: /);
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    const after = await run('call', 'c4', 'write', '{"path":"x.txt","content":"after the crash"}');
    expect(after.code).toBe(0);
    expect(holderOf('c4')).toBeNull();
  }, 120_000);

  it('release refuses a live server with OCCUPIED; --force ends its occupancy', async () => {
    expect((await run('prepare', 'c5')).code).toBe(0);
    const server = await serve('c5');
    try {
      const refused = await run('release', 'c5');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^gatefs: error: OCCUPIED: .*not released \(stop that session first, or release with force \(gatefs release c5 --force\) to end its occupancy\)$/m,
      );
      const forced = await run('release', 'c5', '--force');
      expect(forced.code).toBe(0);
      expect(forced.stdout).toMatch(/ended the occupancy of mcp-/);
    } finally {
      server.kill('SIGKILL');
    }
  }, 120_000);
});
