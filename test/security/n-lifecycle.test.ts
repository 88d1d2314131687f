/**
 * Attack class N: lifecycle. Release never deletes work — changed, untracked or ignored files
 * (a repository that ignores `scratch/`, an agent that writes `.gitignore` = `*`) — unless asked
 * to discard it, and never a branch's commits; writes racing a release either land and refuse
 * the release, or are refused themselves, and the workspace never ends up answering INTERNAL;
 * a live holder keeps its workspace unless the release is forced; a failed release leaves the
 * workspace serving. Real git, real disk.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import buildOnce from '../build-once.js';
import { gatefs } from '../cli/run-gatefs.js';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import type { ToolResult } from '../../tools/result.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';
import { SwitchableExec } from '../host/switchable-exec.js';
import { hashTree } from './sandbox.js';
import { isGitCommand } from '../host/git-words.js';

const files = { 'README.md': '# demo\n', '.gitignore': 'scratch/\n*.log\n', 'src/a.ts': 'export const a = 1;\n' };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const roles = {
  roles: [
    { name: 'wt', tools: ['read', 'list', 'edit', 'write'], workspace: { backend: 'worktree' } },
    { name: 'cp', tools: ['read', 'list', 'edit', 'write'], workspace: { backend: 'copy' } },
  ],
};

async function setup(exec?: SwitchableExec): Promise<{ repo: TempRepo; host: Host; worktree: (id: string) => string; outside: string }> {
  const repo = makeTempRepo(files);
  cleanups.push(() => repo.cleanup());
  const outside = mkdtempSync(join(tmpdir(), 'gatefs-outside-'));
  writeFileSync(join(outside, 'keep.txt'), 'outside bytes\n');
  cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
  const host = await createHost({ repo: repo.dir, manifest: roles, ...(exec ? { exec } : {}) });
  cleanups.push(() => host.close());
  return { repo, host, outside, worktree: (id) => join(repo.dir, '.gatefs/worktrees', id) };
}

const write = (host: Host, id: string, path: string, content: string) => host.gate.call(id, 'write', { path, content });

describe('N: release keeps work', () => {
  it('an ignored file (the repository ignores scratch/) is work: DIRTY_WORKTREE names it, the file stays, the workspace serves', async () => {
    const { host, worktree } = await setup();
    await host.prepare({ conversation: 'a', role: 'wt' });
    expect(await write(host, 'a', 'scratch/notes.md', 'hours of notes\n')).toMatchObject({ ok: true });
    expect(await write(host, 'a', 'build.log', 'a log\n')).toMatchObject({ ok: true });
    const refused = await host.release('a').catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'WorkspaceError', code: 'DIRTY_WORKTREE', data: { files: ['build.log', 'scratch/'] } });
    expect((refused as Error).message).toContain('scratch/');
    expect(readFileSync(join(worktree('a'), 'scratch/notes.md'), 'utf8')).toBe('hours of notes\n');
    expect(await host.gate.call('a', 'read', { path: 'scratch/notes.md' })).toMatchObject({
      ok: true,
      value: { content: 'hours of notes\n' },
    });
    expect(await write(host, 'a', 'scratch/more.md', 'still serving\n')).toMatchObject({ ok: true });
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'ready', holder: null }]);
  });

  it('.gitignore = * and then new sources: every new file is named, nothing is removed', async () => {
    const { host, worktree } = await setup();
    await host.prepare({ conversation: 'a', role: 'wt' });
    await write(host, 'a', '.gitignore', '*\n');
    await write(host, 'a', 'src/new.ts', 'export const n = 1;\n');
    await write(host, 'a', 'lib/util/deep.ts', 'deep\n');
    const refused = await host.release('a').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'DIRTY_WORKTREE' });
    const named = (refused as { data: { files: string[] } }).data.files;
    expect(named).toEqual(expect.arrayContaining(['.gitignore', 'src/new.ts']));
    expect(named.some((f) => f.startsWith('lib/'))).toBe(true);
    expect(readFileSync(join(worktree('a'), 'src/new.ts'), 'utf8')).toBe('export const n = 1;\n');
    expect(readFileSync(join(worktree('a'), 'lib/util/deep.ts'), 'utf8')).toBe('deep\n');
    expect(await host.gate.call('a', 'read', { path: 'lib/util/deep.ts' })).toMatchObject({ ok: true });
  });

  it('a copy holding any file is work too, and the copy keeps serving', async () => {
    const { host, repo } = await setup();
    await host.prepare({ conversation: 'c', role: 'cp' });
    await write(host, 'c', 'scratch/x.md', 'ignored by the repo, still work\n');
    await expect(host.release('c')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['scratch/x.md'] } });
    expect(readFileSync(join(repo.dir, '.gatefs/copies/c/scratch/x.md'), 'utf8')).toBe('ignored by the repo, still work\n');
    expect(await host.gate.call('c', 'read', { path: 'scratch/x.md' })).toMatchObject({ ok: true });
  });

  it('discard deletes the work but never the branch or its commits; nothing outside is touched', async () => {
    const { host, repo, worktree, outside } = await setup();
    await host.prepare({ conversation: 'a', role: 'wt' });
    await write(host, 'a', 'done.ts', 'committed work\n');
    repo.git('-C', worktree('a'), 'add', 'done.ts');
    repo.git('-C', worktree('a'), 'commit', '-qm', 'work');
    const head = repo.git('rev-parse', 'gatefs/a');
    await write(host, 'a', 'scratch/x.md', 'thrown away\n');
    await write(host, 'a', 'src/a.ts', 'changed\n');
    const repoBefore = hashTree(join(repo.dir, 'src'));
    const outsideBefore = hashTree(outside);
    const result = await host.release('a', { discard: true });
    expect(result).toMatchObject({ conversation: 'a', removed: true, discarded: true, branchDeleted: false });
    expect(existsSync(worktree('a'))).toBe(false);
    expect(repo.git('rev-parse', 'gatefs/a')).toBe(head);
    expect(repo.git('show', 'gatefs/a:done.ts')).toBe('committed work');
    expect(repo.git('worktree', 'list', '--porcelain')).not.toContain('worktrees/a');
    expect(hashTree(join(repo.dir, 'src'))).toBe(repoBefore);
    expect(hashTree(outside)).toBe(outsideBefore);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
    // The kept branch comes back with its commit when the conversation is prepared again.
    await host.prepare({ conversation: 'a', role: 'wt' });
    expect(await host.gate.call('a', 'read', { path: 'done.ts' })).toMatchObject({ ok: true, value: { content: 'committed work\n' } });
  });

  it('commits on a detached HEAD are never left unreachable: refused even with discard', async () => {
    const { host, repo, worktree } = await setup();
    await host.prepare({ conversation: 'a', role: 'wt' });
    repo.git('-C', worktree('a'), 'checkout', '-q', '--detach');
    await write(host, 'a', 'detached.ts', 'a commit no branch holds\n');
    repo.git('-C', worktree('a'), 'add', 'detached.ts');
    repo.git('-C', worktree('a'), 'commit', '-qm', 'detached work');
    const sha = repo.git('-C', worktree('a'), 'rev-parse', 'HEAD');
    for (const options of [{}, { discard: true }]) {
      const refused = await host.release('a', options).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: [`(HEAD detached at ${sha.slice(0, 12)})`] } });
    }
    expect(existsSync(join(worktree('a'), 'detached.ts'))).toBe(true);
    expect(await host.gate.call('a', 'read', { path: 'detached.ts' })).toMatchObject({ ok: true });
  });

  it('discard of a copy removes its folder; a clean copy goes without discard', async () => {
    const { host, repo } = await setup();
    await host.prepare({ conversation: 'c', role: 'cp' });
    await host.prepare({ conversation: 'd', role: 'cp' });
    await write(host, 'c', 'x.md', 'x');
    expect(await host.release('c', { discard: true })).toMatchObject({ removed: true, discarded: true });
    expect(await host.release('d')).toMatchObject({ removed: true });
    expect(existsSync(join(repo.dir, '.gatefs/copies/c'))).toBe(false);
    expect(existsSync(join(repo.dir, '.gatefs/copies/d'))).toBe(false);
  });
});

describe('N: links the repository commits', () => {
  it('release, with or without discard, removes a committed link to an outside folder as a link', async () => {
    const { repo, host, outside, worktree } = await setup();
    symlinkSync(outside, join(repo.dir, 'outside-link'));
    symlinkSync(join(outside, 'keep.txt'), join(repo.dir, 'outside-file'));
    repo.commit('commit links out of the repository');
    const before = hashTree(outside);
    await host.prepare({ conversation: 'a', role: 'wt', baseRef: 'HEAD' });
    await host.prepare({ conversation: 'b', role: 'wt', baseRef: 'HEAD' });
    expect(lstatSync(join(worktree('a'), 'outside-link')).isSymbolicLink()).toBe(true);
    await write(host, 'b', 'scratch/x', 'work to discard');
    expect(await host.release('a')).toMatchObject({ removed: true });
    expect(await host.release('b', { discard: true })).toMatchObject({ removed: true, discarded: true });
    expect(hashTree(outside)).toBe(before);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('outside bytes\n');
  });
});

describe('N: writes racing release', () => {
  it('64 trials: every write reported ok is on disk with the workspace serving (release refused), or release won and refused every write; never INTERNAL', async () => {
    const { host, repo, worktree } = await setup();
    const outcomes = { released: 0, refused: 0, okWrites: 0 };
    for (let trial = 0; trial < 64; trial++) {
      const id = `r${trial}`;
      const role = trial % 2 === 0 ? 'wt' : 'cp';
      const folder = role === 'wt' ? worktree(id) : join(repo.dir, '.gatefs/copies', id);
      await host.prepare({ conversation: id, role });
      const writes: Promise<ToolResult>[] = [];
      const lead = trial % 7;
      for (let i = 0; i < lead; i++) writes.push(write(host, id, `w${i}.txt`, `early ${i}`));
      const release = host.release(id).then(
        (r) => ({ ok: true as const, r }),
        (e: { code?: string }) => ({ ok: false as const, code: e.code }),
      );
      for (let i = lead; i < 6; i++) {
        if (i % 2 === 0) await new Promise((r) => setImmediate(r));
        writes.push(write(host, id, `w${i}.txt`, `late ${i}`));
      }
      const results = await Promise.all(writes);
      const released = await release;
      for (const r of results) {
        if (!r.ok) expect(['OCCUPIED', 'WORKSPACE_NOT_READY', 'WORKSPACE_RELEASED']).toContain(r.error.code);
      }
      const ok = results.map((r, i) => ({ r, i })).filter(({ r }) => r.ok);
      outcomes.okWrites += ok.length;
      if (released.ok) {
        outcomes.released++;
        expect(ok).toEqual([]);
        expect(await host.gate.call(id, 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
      } else {
        outcomes.refused++;
        expect(released.code).toBe('DIRTY_WORKTREE');
        for (const { r } of ok) {
          const path = (r as { value: { path: string } }).value.path;
          expect(existsSync(join(folder, path))).toBe(true);
          expect(await host.gate.call(id, 'read', { path })).toMatchObject({ ok: true });
        }
        expect(await write(host, id, 'after.txt', 'still serving')).toMatchObject({ ok: true });
        expect(host.status().find((s) => s.conversation === id)).toMatchObject({ state: 'ready', holder: null });
      }
    }
    // Both outcomes happened: the race was live.
    expect(outcomes.released).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(host.events().filter((e) => e.type === 'tool_call' && (e.data as { outcome?: string }).outcome === 'INTERNAL')).toEqual([]);
  }, 180_000);
});

describe('N: writes from another process racing release', () => {
  beforeAll(() => buildOnce(), 300_000);

  it('an edit by another `gatefs call` that passed its checks before the release began is waited for: it lands and the release is refused, or it is refused', async () => {
    // A tree large enough that git takes a while to delete it: the window a late write hit.
    const tree: Record<string, string> = { ...files };
    for (let d = 0; d < 20; d++) for (let f = 0; f < 200; f++) tree[`bulk/d${d}/f${f}.txt`] = `${d}/${f}\n`;
    const repo = makeTempRepo(tree);
    cleanups.push(() => repo.cleanup());
    const state = join(repo.dir, '.gatefs');
    const cli = (...args: string[]) => gatefs(args, { cwd: repo.dir });
    for (let trial = 0; trial < 3; trial++) {
      const id = `w${trial}`;
      expect((await cli('prepare', id)).code).toBe(0);
      // Another gatefs process is in the middle of an edit of README.md: it holds the file's
      // cross-process lock (src/ports/lock-file-dir.ts), so the edit below waits, its checks passed.
      const folder = statSync(join(state, 'worktrees', id));
      const stripe = createHash('sha256').update(`${folder.dev}:${folder.ino}/README.md`).digest('hex').slice(0, 2);
      mkdirSync(join(state, 'locks'), { recursive: true, mode: 0o700 });
      closeSync(openSync(join(state, 'locks', `${stripe}.lock`), 'a', 0o600));
      const other = new Database(join(state, 'locks', `${stripe}.lock`), { timeout: 0 });
      other.exec('BEGIN EXCLUSIVE');
      const edit = cli('call', id, 'edit', JSON.stringify({ path: 'README.md', oldString: '# demo', newString: '# precious edit' }));
      await sleep(1000);
      const release = cli('release', id);
      // The other process finishes once the release is under way (or after 3 s if it never gets
      // there): within the 5 s the edit waits for the lock.
      const db = new Database(join(state, 'gatefs.db'), { readonly: true });
      for (let i = 0; i < 300; i++) {
        const row = db.prepare('SELECT data FROM workspaces WHERE conversation = ?').get(id) as { data: string } | undefined;
        if (row?.data.includes('"removing"')) break;
        await sleep(10);
      }
      db.close();
      other.exec('COMMIT');
      other.close();
      const [edited, released] = await Promise.all([edit, release]);
      const onDisk =
        existsSync(join(state, 'worktrees', id, 'README.md')) &&
        readFileSync(join(state, 'worktrees', id, 'README.md'), 'utf8').includes('precious');
      if (edited.code === 0) {
        // The edit reported ok: it is in the workspace, which still serves, and the release was refused.
        expect({ trial, onDisk, release: released.code, stderr: released.stderr.includes('DIRTY_WORKTREE') }).toEqual({
          trial,
          onDisk: true,
          release: 1,
          stderr: true,
        });
        expect((await cli('call', id, 'read', JSON.stringify({ path: 'README.md' }))).stdout).toContain('precious');
      } else {
        // Refused (the release got there first, or the lock wait ran out): nothing changed.
        expect(edited.stderr).toMatch(/OCCUPIED|WORKSPACE_RELEASED|BUSY/);
        expect(onDisk).toBe(false);
      }
    }
  }, 240_000);
});

describe('N: live holders and failures', () => {
  it('a live session holding the workspace refuses release with OCCUPIED; --force ends its occupancy', async () => {
    const { repo, host } = await setup();
    await host.prepare({ conversation: 'a', role: 'wt' });
    const other = await createHost({ repo: repo.dir, manifest: roles });
    cleanups.push(() => other.close());
    other.acquire('a', 'mcp-session-1');
    const refused = await host.release('a').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'OCCUPIED', data: { holder: 'mcp-session-1' } });
    expect((refused as Error).message).toContain('not released');
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'ready', holder: 'mcp-session-1' }]);
    expect(
      await other.gate.call('a', 'write', { path: 'x.txt', content: 'the session writes on' }, { holder: 'mcp-session-1' }),
    ).toMatchObject({ ok: true });
    await other.gate.call('a', 'write', { path: 'x.txt', content: '' }, { holder: 'mcp-session-1' });
    const forced = await host.release('a', { force: true, discard: true });
    expect(forced).toMatchObject({ removed: true, forcedHolders: ['mcp-session-1'] });
    expect(host.events().filter((e) => e.type === 'occupancy.forced_end')).toMatchObject([
      { conversation: 'a', data: { holder: 'mcp-session-1' } },
    ]);
    expect(await other.gate.call('a', 'write', { path: 'y.txt', content: 'late' }, { holder: 'mcp-session-1' })).toMatchObject({
      ok: false,
    });
  });

  it('a long-running host serves a workspace another process released and prepared again, whenever it looks', async () => {
    const { repo, host } = await setup();
    for (const [id, seenBetween] of [
      ['quick', false],
      ['slow', true],
    ] as const) {
      await host.prepare({ conversation: id, role: 'wt' });
      expect(await host.gate.call(id, 'read', { path: 'README.md' })).toMatchObject({ ok: true });
      const other = await createHost({ repo: repo.dir, manifest: roles });
      await other.release(id);
      if (seenBetween) {
        await sleep(1100);
        expect(await host.gate.call(id, 'read', { path: 'README.md' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_RELEASED' } });
      }
      await other.prepare({ conversation: id, role: 'wt' });
      await other.gate.call(id, 'write', { path: 'fresh.txt', content: 'in the new worktree' });
      await other.close();
      await sleep(1100);
      expect({ id, read: await host.gate.call(id, 'read', { path: 'fresh.txt' }) }).toMatchObject({
        id,
        read: { ok: true, value: { content: 'in the new worktree' } },
      });
      expect(await write(host, id, 'mine.txt', 'from the long-running host')).toMatchObject({ ok: true });
      expect(readFileSync(join(repo.dir, '.gatefs/worktrees', id, 'mine.txt'), 'utf8')).toBe('from the long-running host');
    }
  });

  it('a failed removal leaves the workspace serving: registered ready over an open view, occupancy returned', async () => {
    const exec = new SwitchableExec();
    const { host, worktree } = await setup(exec);
    await host.prepare({ conversation: 'a', role: 'wt' });
    exec.failing = { match: (argv) => isGitCommand(argv, 'worktree', 'remove'), stderr: 'fatal: simulated failure' };
    const error = await host.release('a').catch((e: unknown) => e);
    exec.failing = undefined;
    expect(error).toMatchObject({ name: 'GitError', code: 'COMMAND_FAILED' });
    expect(existsSync(join(worktree('a'), 'README.md'))).toBe(true);
    expect(host.status()).toMatchObject([{ conversation: 'a', state: 'ready', holder: null }]);
    expect(await host.gate.call('a', 'read', { path: 'README.md' })).toMatchObject({ ok: true });
    expect(await write(host, 'a', 'after.txt', 'serving')).toMatchObject({ ok: true });
    expect(host.events().map((e) => e.type)).toEqual(expect.arrayContaining(['release.start', 'release.aborted']));
    // and once the cause is gone, release works (the new file is work now: discard it)
    expect(await host.release('a', { discard: true })).toMatchObject({ removed: true });
  });
});
