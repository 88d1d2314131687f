import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { ManualClock } from '../../src/ports/clock.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';
import { SwitchableExec } from './switchable-exec.js';
import { gitWords, isGitCommand } from './git-words.js';

const files = { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' };
const open: { repo: TempRepo; host?: Host }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.host?.close();
    o.repo.cleanup();
  }
});

async function setup(exec = new SwitchableExec()) {
  const repo = makeTempRepo(files);
  const entry: { repo: TempRepo; host?: Host } = { repo };
  open.push(entry);
  const host = await createHost({ repo: repo.dir, exec });
  entry.host = host;
  return { repo, host, exec, worktree: (id: string) => join(repo.dir, '.gatefs/worktrees', id) };
}

const isAdd = (argv: readonly string[]) => isGitCommand(argv, 'worktree', 'add');

describe('createHost with the worktree backend', () => {
  it('checks out branch gatefs/<id> at the pinned commit and keeps the state dir out of git status', async () => {
    const { repo, host, worktree } = await setup();
    const head = repo.git('rev-parse', 'HEAD');
    const status = await host.prepare({ conversation: 'a' });
    expect(status).toEqual({
      conversation: 'a',
      role: 'agent',
      backend: 'worktree',
      guarantee: 'confined',
      state: 'ready',
      branch: 'gatefs/a',
      pinnedSha: head,
      holder: null,
      confinement: 'procfs',
      parent: null,
      landed: 0,
      snapshots: { count: 0, bytes: 0 },
      patches: 0,
      latestPatch: null,
      run: 'default',
      visit: 1,
      agent: 'agent',
      active: 'a',
      bindings: [{ workspace: 'a', mode: 'exclusive-write', own: true, acquiredAt: expect.any(Number) }],
      heldBy: [],
    });
    expect(repo.git('-C', worktree('a'), 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('gatefs/a');
    expect(existsSync(join(repo.dir, '.gatefs/gatefs.db'))).toBe(true);
    expect(readFileSync(join(repo.dir, '.git/info/exclude'), 'utf8')).toContain('/.gatefs/');
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(JSON.stringify(host.status())).not.toContain(repo.dir);
    // The host's own looks at start (is this a repository, what git tracks under the state
    // directory) are not the operator's business: the log opens with host.start.
    expect(host.events().filter((e) => e.type === 'exec' && e.data.tag === 'start')).toEqual([]);
    expect(host.events()[0]).toMatchObject({ type: 'host.start', conversation: null, data: { confinement: 'procfs', workspaces: 0 } });
  });

  it('serves tools in the worktree, isolated per conversation, from a base ref', async () => {
    const { repo, host, worktree } = await setup();
    const first = repo.git('rev-parse', 'HEAD');
    repo.write({ 'src/a.ts': 'export const a = 100;\n' });
    repo.commit('second');
    const [a, b] = await Promise.all([host.prepare({ conversation: 'a', baseRef: first }), host.prepare({ conversation: 'b' })]);
    expect(a.pinnedSha).toBe(first);
    expect(b.pinnedSha).toBe(repo.git('rev-parse', 'HEAD'));
    expect(await host.gate.call('a', 'read', { path: 'src/a.ts' })).toMatchObject({
      ok: true,
      value: { content: 'export const a = 1;\n' },
    });
    expect(await host.gate.call('b', 'read', { path: 'src/a.ts' })).toMatchObject({
      ok: true,
      value: { content: 'export const a = 100;\n' },
    });
    expect((await host.gate.call('a', 'write', { path: 'notes/n.md', content: 'only a' })).ok).toBe(true);
    expect(readFileSync(join(worktree('a'), 'notes/n.md'), 'utf8')).toBe('only a');
    expect(await host.gate.call('b', 'read', { path: 'notes/n.md' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await host.gate.call('a', 'read', { path: '/worktrees/b/src/a.ts' })).toMatchObject({
      ok: false,
      error: { code: 'OUTSIDE_MOUNTS' },
    });
    expect(await host.gate.call('a', 'write', { path: '.git', content: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'PROTECTED_PATH' },
    });
  });

  it('reuses an existing worktree on the same branch without resetting it', async () => {
    const { repo, host, worktree } = await setup();
    const pinned = (await host.prepare({ conversation: 'a' })).pinnedSha;
    writeFileSync(join(worktree('a'), 'src/a.ts'), 'edited\n');
    repo.write({ 'README.md': 'moved on\n' });
    repo.commit('main moves');
    const again = await host.prepare({ conversation: 'a' });
    expect(again.pinnedSha).toBe(pinned);
    expect(readFileSync(join(worktree('a'), 'src/a.ts'), 'utf8')).toBe('edited\n');
    await host.close();
    const restarted = await createHost({ repo: repo.dir });
    open.push({ repo: { cleanup: () => undefined } as TempRepo, host: restarted });
    expect((await restarted.prepare({ conversation: 'a' })).pinnedSha).toBe(pinned);
    expect(readFileSync(join(worktree('a'), 'src/a.ts'), 'utf8')).toBe('edited\n');
    expect(restarted.events().filter((e) => e.type === 'prepare.reused')).toHaveLength(2);
  });

  it('materializes a vanished worktree again from its kept branch, commits included', async () => {
    const { repo, host, worktree } = await setup();
    const pinned = (await host.prepare({ conversation: 'a' })).pinnedSha;
    await host.gate.call('a', 'write', { path: 'work.txt', content: 'committed work' });
    repo.git('-C', worktree('a'), 'add', '-A');
    repo.git('-C', worktree('a'), 'commit', '-qm', 'work');
    await host.close();
    rmSync(worktree('a'), { recursive: true, force: true });
    const again = await createHost({ repo: repo.dir });
    open.push({ repo: { cleanup: () => undefined } as TempRepo, host: again });
    expect(await again.gate.call('a', 'read', { path: 'work.txt' })).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CONVERSATION' } });
    expect(await again.prepare({ conversation: 'a' })).toMatchObject({ state: 'ready', pinnedSha: pinned, branch: 'gatefs/a' });
    expect(await again.gate.call('a', 'read', { path: 'work.txt' })).toMatchObject({ ok: true, value: { content: 'committed work' } });
    expect(again.events().map((e) => e.type)).toEqual(
      expect.arrayContaining(['recover.unavailable', 'prepare.checkout_missing', 'prepare.ready']),
    );
  });

  it('answers WORKSPACE_NOT_READY while preparing and records every git command with its tag and chain', async () => {
    const { host, exec } = await setup();
    const held = exec.holdNext(isAdd);
    const preparing = host.prepare({ conversation: 'a', chain: ['lead'] });
    await held.reached;
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'preparing' }]);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_NOT_READY' } });
    held.release();
    await preparing;
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
    const execs = host.events().filter((e) => e.type === 'exec' && e.data.tag === 'prepare');
    expect(execs.length).toBeGreaterThan(0);
    for (const e of execs) {
      expect(e).toMatchObject({
        conversation: 'a',
        data: { chain: ['lead', 'a'], cwd: expect.stringMatching(/^(\.|\.gatefs\/worktrees\/a)$/), exitCode: expect.any(Number) },
      });
      expect(e.data).not.toHaveProperty('stdout');
    }
    expect(
      execs.map((e) =>
        gitWords(e.data.argv as string[])
          .slice(0, 2)
          .join(' '),
      ),
    ).toContain('worktree add');
  });

  it('rolls back a failed preparation: no worktree, no branch, no registration, a typed error', async () => {
    const { repo, host, exec, worktree } = await setup();
    exec.after = (req, res) => (isAdd(req.argv) ? { ...res, exitCode: 128, stderr: 'fatal: simulated failure after checkout' } : res);
    const failure = await host.prepare({ conversation: 'a' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      name: 'WorkspaceError',
      code: 'PREPARATION_FAILED',
      data: { conversation: 'a', reason: 'GIT_COMMAND_FAILED' },
    });
    expect((failure as Error).message).toContain('simulated failure');
    expect(existsSync(worktree('a'))).toBe(false);
    expect(repo.git('branch', '--list', 'gatefs/*')).toBe('');
    expect(repo.git('worktree', 'list', '--porcelain')).not.toContain('worktrees/a');
    expect(host.status()).toEqual([]);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CONVERSATION' } });
    exec.after = undefined;
    expect((await host.prepare({ conversation: 'a' })).state).toBe('ready');
  });

  it('refuses a bad base ref, a bad id and an unknown role with typed errors and leaves nothing behind', async () => {
    const { repo, host } = await setup();
    await expect(host.prepare({ conversation: 'a', baseRef: 'no-such-ref' })).rejects.toMatchObject({
      code: 'BAD_REF',
      data: { ref: 'no-such-ref' },
    });
    await expect(host.prepare({ conversation: '../x' })).rejects.toMatchObject({
      code: 'PREPARATION_FAILED',
      data: { reason: 'BAD_CONVERSATION_ID' },
    });
    await expect(host.prepare({ conversation: 'a', role: 'nobody' })).rejects.toMatchObject({
      name: 'ManifestError',
      code: 'UNKNOWN_ROLE',
    });
    expect(host.status()).toEqual([]);
    expect(repo.git('branch', '--list', 'gatefs/*')).toBe('');
  });

  it('works through a symlinked repository path (reuse compares real paths) and explains an empty repository', async () => {
    const { repo } = await setup();
    const link = join(repo.dir, '..', 'link-to-repo');
    symlinkSync(repo.dir, link);
    const host = await createHost({ repo: link });
    open.push({ repo: { cleanup: () => undefined } as TempRepo, host });
    const first = await host.prepare({ conversation: 'l' });
    expect(await host.prepare({ conversation: 'l' })).toEqual(first);
    const empty = makeTempRepo();
    open.push({ repo: empty });
    const emptyHost = await createHost({ repo: empty.dir });
    open.push({ repo: { cleanup: () => undefined } as TempRepo, host: emptyHost });
    const error = await emptyHost.prepare({ conversation: 'e' }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'BAD_REF', data: { ref: 'HEAD' } });
    expect((error as Error).message).toContain('without commits');
  });

  it('never spawns once prepared: every tool works with a host-exec port that throws', async () => {
    const { host, exec, worktree } = await setup();
    await host.prepare({ conversation: 'a' });
    exec.forbidden = true;
    const before = exec.seen.length;
    expect(await host.gate.call('a', 'read', { path: 'src/a.ts' })).toMatchObject({ ok: true });
    expect(await host.gate.call('a', 'list', { path: 'src' })).toMatchObject({
      ok: true,
      value: { entries: [{ path: 'src/a.ts' }, { path: 'src/b.ts' }] },
    });
    expect(await host.gate.call('a', 'grep', { pattern: 'const b' })).toMatchObject({ ok: true, value: { files: ['src/b.ts'] } });
    expect(await host.gate.call('a', 'edit', { path: 'src/b.ts', oldString: '= 2', newString: '= 3' })).toMatchObject({ ok: true });
    expect(await host.gate.call('a', 'write', { path: 'src/c.ts', content: 'c' })).toMatchObject({ ok: true });
    expect(readFileSync(join(worktree('a'), 'src/b.ts'), 'utf8')).toBe('export const b = 3;\n');
    expect(exec.seen.length).toBe(before);
  });
});

describe('release of a worktree', () => {
  it('refuses a dirty worktree naming the files, then removes it once clean, keeping a tombstone', async () => {
    const { repo, host, worktree } = await setup();
    await host.prepare({ conversation: 'a' });
    await host.gate.call('a', 'write', { path: 'new.txt', content: 'n' });
    await host.gate.call('a', 'edit', { path: 'README.md', oldString: 'demo', newString: 'changed' });
    const refused = await host.release('a').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['README.md', 'new.txt'] } });
    expect(existsSync(join(worktree('a'), 'new.txt'))).toBe(true);
    expect(await host.gate.call('a', 'read', { path: 'new.txt' })).toMatchObject({ ok: true });
    repo.git('-C', worktree('a'), 'checkout', '--', 'README.md');
    repo.git('-C', worktree('a'), 'clean', '-fq');
    expect(await host.release('a')).toEqual({
      conversation: 'a',
      removed: true,
      branchDeleted: false,
      branchKeptReason: 'deleteBranch was not asked for',
    });
    expect(existsSync(worktree('a'))).toBe(false);
    expect(repo.git('branch', '--list', 'gatefs/a')).toContain('gatefs/a');
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'released' }]);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
  });

  it('is seen as released by another host over the same state directory once its clock re-checks', async () => {
    const { repo, host: releaser } = await setup();
    await releaser.prepare({ conversation: 'a' });
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const server = await createHost({ repo: repo.dir, clock });
    open.push({ repo: { cleanup: () => undefined } as TempRepo, host: server });
    expect(await server.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
    await releaser.release('a');
    clock.advance(1500);
    expect(await server.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
    expect(server.status()).toMatchObject([{ conversation: 'a', state: 'released' }]);
  });

  it('deletes the branch only when git proves it merged into the base', async () => {
    const { repo, host, worktree } = await setup();
    await host.prepare({ conversation: 'merged' });
    await host.prepare({ conversation: 'open' });
    for (const id of ['merged', 'open']) {
      await host.gate.call(id, 'write', { path: `${id}.txt`, content: id });
      repo.git('-C', worktree(id), 'add', '-A');
      repo.git('-C', worktree(id), 'commit', '-qm', `work of ${id}`);
    }
    repo.git('merge', '--quiet', '--no-edit', 'gatefs/merged');
    const merged = await host.release('merged', { deleteBranch: true });
    expect(merged).toEqual({ conversation: 'merged', removed: true, branchDeleted: true });
    expect(repo.git('branch', '--list', 'gatefs/merged')).toBe('');
    const kept = await host.release('open', { deleteBranch: true });
    expect(kept).toMatchObject({ removed: true, branchDeleted: false, branchKeptReason: expect.stringContaining('not merged into HEAD') });
    expect(repo.git('branch', '--list', 'gatefs/open')).toContain('gatefs/open');
    expect(
      host
        .events()
        .filter((e) => e.type === 'release')
        .map((e) => e.data.branchDeleted),
    ).toEqual([true, false]);
    // Prepared again: a deleted branch starts over from the current HEAD; a kept one is checked
    // out again with its commits, on its earlier pin.
    const firstPin = (await host.status()).find((w) => w.conversation === 'open')!.pinnedSha;
    expect(await host.prepare({ conversation: 'merged' })).toMatchObject({ state: 'ready', pinnedSha: repo.git('rev-parse', 'HEAD') });
    expect(await host.prepare({ conversation: 'open' })).toMatchObject({ state: 'ready', pinnedSha: firstPin });
    expect(await host.gate.call('open', 'read', { path: 'open.txt' })).toMatchObject({ ok: true, value: { content: 'open' } });
  });
});
