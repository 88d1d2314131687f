/**
 * `backend: empty` on disk, through a real host over a plain folder that is not a git
 * repository: each conversation gets its own initially empty scratch folder
 * `<stateDir>/scratch/<id>`, every file tool works there (and `exec` in bubblewrap, where it can
 * run), the repository tools answer `BACKEND_UNAVAILABLE`, a release refuses files unless
 * discarded, and a second host on the same state directory serves what the first left. Hostile
 * cases: a link planted in the folder, an id with `..`, two conversations side by side.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { withPendingRelease } from '../../src/host/lifecycle/release-record.js';
import { BubblewrapSandbox } from '../../src/ports/bubblewrap-sandbox.js';
import { systemClock } from '../../src/ports/clock.js';
import { nodeProcessLiveness } from '../../src/ports/node-process-liveness.js';
import { StateStore } from '../../src/state/index.js';
import { makeTempRepo } from './temp-repo.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping exec in empty workspaces: ${support.cause}; ${support.fix}`);

const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move', 'diff', 'commit', 'submit', 'exec'];
const T = 30_000;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A temp folder, removed after the test. */
function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A plain folder (no git) holding one file that no empty workspace may show. */
function plainRepo(): string {
  const dir = tempFolder('gatefs-empty-');
  writeFileSync(join(dir, 'source.txt'), 'the source folder\n');
  return dir;
}

function manifestWith(mounts: { path: string; writable: boolean }[] = []) {
  return { roles: [{ name: 'scratch', tools: TOOLS, workspace: { backend: 'empty', mounts }, exec: { timeout: 30 } }] };
}

async function open(repo: string, mounts: { path: string; writable: boolean }[] = []): Promise<Host> {
  const host = await createHost({ repo, manifest: manifestWith(mounts) });
  cleanups.push(() => host.close());
  return host;
}

/** The value of a tool call that must succeed. */
async function value<V = Record<string, unknown>>(host: Host, conversation: string, tool: string, args: unknown): Promise<V> {
  const r = await host.gate.call(conversation, tool, args);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
  return r.value as V;
}

/** The error code of a tool call that must fail. */
async function failure(host: Host, conversation: string, tool: string, args: unknown): Promise<{ code: string; message: string }> {
  const r = await host.gate.call(conversation, tool, args);
  if (r.ok) throw new Error(`${tool} succeeded: ${JSON.stringify(r.value)}`);
  return r.error;
}

function paths(listed: { entries: { path: string }[] }): string[] {
  return listed.entries.map((e) => e.path).sort();
}

describe('an empty workspace over a plain folder', () => {
  it('starts empty in <stateDir>/scratch/<id>, confined, with no branch and no pin', async () => {
    const repo = plainRepo();
    const host = await open(repo);
    expect(await host.prepare({ conversation: 'e1' })).toMatchObject({
      backend: 'empty',
      guarantee: 'confined',
      branch: null,
      pinnedSha: null,
    });
    const folder = join(repo, '.gatefs/scratch/e1');
    expect(readdirSync(folder)).toEqual([]);
    // Private like the other areas of the state directory (its trust check refuses one others may write).
    expect(lstatSync(join(repo, '.gatefs/scratch')).mode & 0o077).toBe(0);
    expect(lstatSync(folder).mode & 0o077).toBe(0);
    expect(paths(await value(host, 'e1', 'list', { pattern: '**' }))).toEqual([]);
    expect((await failure(host, 'e1', 'read', { path: 'source.txt' })).code).toBe('NOT_FOUND');
    expect(host.status()).toEqual([
      expect.objectContaining({
        conversation: 'e1',
        backend: 'empty',
        guarantee: 'confined',
        state: 'ready',
        branch: null,
        pinnedSha: null,
      }),
    ]);
  });

  it('serves write, read, edit, list, grep, move and delete in the scratch folder, and nothing else of the host', async () => {
    const repo = plainRepo();
    const host = await open(repo);
    await host.prepare({ conversation: 'e1' });
    const folder = join(repo, '.gatefs/scratch/e1');
    await value(host, 'e1', 'write', { path: 'notes/a.md', content: 'alpha needle\n' });
    await value(host, 'e1', 'write', { path: 'b.txt', content: 'beta\n' });
    expect(readFileSync(join(folder, 'notes/a.md'), 'utf8')).toBe('alpha needle\n');
    expect(await value(host, 'e1', 'read', { path: 'notes/a.md' })).toMatchObject({ content: 'alpha needle\n' });
    await value(host, 'e1', 'edit', { path: 'b.txt', oldString: 'beta', newString: 'gamma' });
    expect(readFileSync(join(folder, 'b.txt'), 'utf8')).toBe('gamma\n');
    expect(paths(await value(host, 'e1', 'list', { pattern: '**' }))).toEqual(['b.txt', 'notes', 'notes/a.md']);
    expect(JSON.stringify(await value(host, 'e1', 'grep', { pattern: 'needle' }))).toContain('notes/a.md');
    await value(host, 'e1', 'move', { from: 'b.txt', to: 'done/b.txt' });
    expect(existsSync(join(folder, 'b.txt'))).toBe(false);
    expect(readFileSync(join(folder, 'done/b.txt'), 'utf8')).toBe('gamma\n');
    await value(host, 'e1', 'delete', { path: 'done/b.txt' });
    expect(existsSync(join(folder, 'done/b.txt'))).toBe(false);
    // The state directory and the source folder stay out of reach.
    expect((await failure(host, 'e1', 'read', { path: '../../gatefs.db' })).code).toBe('PATH_ESCAPE');
    expect(readFileSync(join(repo, 'source.txt'), 'utf8')).toBe('the source folder\n');
    expect(readdirSync(repo).sort()).toEqual(['.gatefs', 'source.txt']);
  });

  it('answers diff, commit and submit with BACKEND_UNAVAILABLE: it has no repository', async () => {
    const host = await open(plainRepo());
    await host.prepare({ conversation: 'e1' });
    await value(host, 'e1', 'write', { path: 'a.txt', content: 'a\n' });
    for (const [tool, args] of [
      ['diff', {}],
      ['commit', { message: 'x' }],
      ['submit', { divergence: 'none' }],
    ] as const) {
      const error = await failure(host, 'e1', tool, args);
      expect(error.code, tool).toBe('BACKEND_UNAVAILABLE');
      expect(error.message, tool).toMatch(/backend empty: a scratch folder with no repository/);
    }
  });

  it('works the same inside a git repository, pinned at nothing and never touching it', async () => {
    const repo = makeTempRepo({ 'README.md': '# demo\n' });
    cleanups.push(() => repo.cleanup());
    const host = await open(repo.dir);
    expect(await host.prepare({ conversation: 'e1' })).toMatchObject({ backend: 'empty', branch: null, pinnedSha: null });
    expect((await failure(host, 'e1', 'read', { path: 'README.md' })).code).toBe('NOT_FOUND');
    await value(host, 'e1', 'write', { path: 'x.txt', content: 'x\n' });
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(repo.git('branch', '--list', 'gatefs/*')).toBe('');
    await expect(host.prepare({ conversation: 'e2', baseRef: 'HEAD' })).rejects.toMatchObject({ code: 'BAD_REF' });
  });

  it('releases a workspace holding only folders, refuses one holding files unless discarded, and removes the folder', async () => {
    const repo = plainRepo();
    const host = await open(repo);
    await host.prepare({ conversation: 'e1' });
    const folder = join(repo, '.gatefs/scratch/e1');
    mkdirSync(join(folder, 'a/b'), { recursive: true });
    expect(await host.release('e1')).toMatchObject({ conversation: 'e1', removed: true });
    expect(existsSync(folder)).toBe(false);

    await host.prepare({ conversation: 'e1' });
    expect(readdirSync(folder)).toEqual([]);
    await value(host, 'e1', 'write', { path: 'keep/me.txt', content: 'work\n' });
    symlinkSync('/etc/passwd', join(folder, 'link'));
    await expect(host.release('e1')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE', data: { files: ['keep/me.txt', 'link'] } });
    // Refused: nothing removed, still served.
    expect(await value(host, 'e1', 'read', { path: 'keep/me.txt' })).toMatchObject({ content: 'work\n' });
    expect(await host.release('e1', { discard: true })).toMatchObject({ removed: true });
    expect(existsSync(folder)).toBe(false);
    expect(existsSync('/etc/passwd')).toBe(true);
    expect(host.status()).toEqual([expect.objectContaining({ conversation: 'e1', state: 'released' })]);
  });

  it('serves the same folder to a second host on the same state directory, and after a restart', async () => {
    const repo = plainRepo();
    const first = await open(repo);
    await first.prepare({ conversation: 'e1' });
    await value(first, 'e1', 'write', { path: 'kept.txt', content: 'across hosts\n' });
    // A second process on the same state directory sees the workspace (registry refresh).
    const second = await open(repo);
    expect(await value(second, 'e1', 'read', { path: 'kept.txt' })).toMatchObject({ content: 'across hosts\n' });
    await second.close();
    await first.close();
    // A restart recovers it.
    const third = await open(repo);
    expect(third.status()).toEqual([expect.objectContaining({ conversation: 'e1', backend: 'empty', state: 'ready' })]);
    expect(await value(third, 'e1', 'read', { path: 'kept.txt' })).toMatchObject({ content: 'across hosts\n' });
    await value(third, 'e1', 'write', { path: 'more.txt', content: 'after restart\n' });
    expect(readFileSync(join(repo, '.gatefs/scratch/e1/more.txt'), 'utf8')).toBe('after restart\n');
    // Released by another host, the folder is gone for this one too: prepared again, it is empty.
    await third.release('e1', { discard: true });
    const fourth = await open(repo);
    await fourth.prepare({ conversation: 'e1' });
    expect(paths(await value(fourth, 'e1', 'list', { pattern: '**' }))).toEqual([]);
  });

  it('prepares again from scratch when the folder vanished while the host was down', async () => {
    const repo = plainRepo();
    const first = await open(repo);
    await first.prepare({ conversation: 'e1' });
    await first.close();
    rmSync(join(repo, '.gatefs/scratch/e1'), { recursive: true });
    const again = await open(repo);
    expect(await again.prepare({ conversation: 'e1' })).toMatchObject({ backend: 'empty', state: 'ready' });
    expect(readdirSync(join(repo, '.gatefs/scratch/e1'))).toEqual([]);
  });

  it('finishes a release a crash cut short while removing, unless a file appeared: then it is undone and the file kept', async () => {
    const repo = plainRepo();
    const first = await open(repo);
    await first.prepare({ conversation: 'gone' });
    await first.prepare({ conversation: 'kept' });
    await first.close();
    // What a release killed after its check leaves: the record says `removing`.
    const store = StateStore.open(join(repo, '.gatefs/gatefs.db'), { clock: systemClock, liveness: nodeProcessLiveness });
    for (const id of ['gone', 'kept']) {
      const record = store.workspaces.get(id)!;
      store.workspaces.update(id, {
        data: withPendingRelease(record.data, { step: 'removing', holder: 'killed-release', discard: false }),
      });
    }
    store.close();
    mkdirSync(join(repo, '.gatefs/scratch/gone/only/folders'), { recursive: true });
    writeFileSync(join(repo, '.gatefs/scratch/kept/late.txt'), 'written after the check\n');
    const next = await open(repo);
    expect(next.events().filter((e) => e.type === 'release.finished')).toMatchObject([
      { conversation: 'gone', data: { backend: 'empty' } },
    ]);
    expect(next.events().filter((e) => e.type === 'release.undone')).toMatchObject([{ conversation: 'kept' }]);
    expect(existsSync(join(repo, '.gatefs/scratch/gone'))).toBe(false);
    expect(readFileSync(join(repo, '.gatefs/scratch/kept/late.txt'), 'utf8')).toBe('written after the check\n');
    expect(await value(next, 'kept', 'read', { path: 'late.txt' })).toMatchObject({ content: 'written after the check\n' });
    expect(next.status().map((w) => [w.conversation, w.state])).toEqual(
      expect.arrayContaining([
        ['gone', 'released'],
        ['kept', 'ready'],
      ]),
    );
  });

  it('rolls back a preparation a crash interrupted: its folder goes, and the next prepare starts empty', async () => {
    const repo = plainRepo();
    const first = await open(repo);
    await first.prepare({ conversation: 'e1' });
    await first.close();
    const store = StateStore.open(join(repo, '.gatefs/gatefs.db'), { clock: systemClock, liveness: nodeProcessLiveness });
    store.workspaces.update('e1', { state: 'preparing' });
    store.close();
    writeFileSync(join(repo, '.gatefs/scratch/e1/half.txt'), 'half made\n');
    const next = await open(repo);
    await next.prepare({ conversation: 'e1' });
    expect(readdirSync(join(repo, '.gatefs/scratch/e1'))).toEqual([]);
  });

  it('shows the state in gatefs status', async () => {
    const repo = plainRepo();
    const manifestFile = join(tempFolder('gatefs-empty-manifest-'), 'gatefs.yaml');
    writeFileSync(manifestFile, JSON.stringify(manifestWith()));
    const host = await createHost({ repo, manifest: manifestFile });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'e1' });
    await host.close();
    const lines: string[] = [];
    const json: unknown[] = [];
    const out = {
      print: (t: string) => void lines.push(t),
      json: (v: unknown) => void json.push(v),
      jsonLine: () => undefined,
      progress: () => undefined,
      problem: () => undefined,
    };
    expect(await runCli(['status', '--repo', repo, '--manifest', manifestFile], COMMANDS, out)).toBe(0);
    expect(lines.join('\n')).toMatch(/e1\s+scratch\s+default\/v1\s+empty\s+confined\s+ready/);
    expect(await runCli(['status', '--repo', repo, '--manifest', manifestFile, '--json'], COMMANDS, out)).toBe(0);
    expect(JSON.stringify(json)).toContain('"backend":"empty"');
  });
});

describe('mounts of an empty workspace', () => {
  it('serves absolute mounts with their write flag', async () => {
    const repo = plainRepo();
    const data = tempFolder('gatefs-empty-data-');
    const docs = tempFolder('gatefs-empty-docs-');
    writeFileSync(join(docs, 'guide.md'), 'read me\n');
    const host = await open(repo, [
      { path: data, writable: true },
      { path: docs, writable: false },
    ]);
    await host.prepare({ conversation: 'e1' });
    await value(host, 'e1', 'write', { path: `${data}/out.txt`, content: 'shared out\n' });
    expect(readFileSync(join(data, 'out.txt'), 'utf8')).toBe('shared out\n');
    expect(await value(host, 'e1', 'read', { path: `${docs}/guide.md` })).toMatchObject({ content: 'read me\n' });
    expect((await failure(host, 'e1', 'write', { path: `${docs}/guide.md`, content: 'no' })).code).toBe('READ_ONLY');
  });

  it('refuses a relative mount or a share at load: there is no pinned commit or source checkout to show', async () => {
    const repo = plainRepo();
    await expect(createHost({ repo, manifest: manifestWith([{ path: '.campaign', writable: false }]) })).rejects.toMatchObject({
      code: 'INVALID_VALUE',
      message: expect.stringContaining("the relative mount '.campaign' needs a pinned commit"),
    });
    const withShare = { roles: [{ name: 'scratch', tools: ['read'], workspace: { backend: 'empty' }, share: ['node_modules'] }] };
    await expect(createHost({ repo, manifest: withShare })).rejects.toMatchObject({ code: 'INVALID_VALUE' });
  });
});

describe('hostile cases', () => {
  it('refuses a link planted in the scratch folder that points outside (SYMLINK_ESCAPE), and never follows it', async () => {
    const repo = plainRepo();
    const outside = tempFolder('gatefs-empty-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    const host = await open(repo);
    await host.prepare({ conversation: 'e1' });
    const folder = join(repo, '.gatefs/scratch/e1');
    symlinkSync(outside, join(folder, 'out'));
    symlinkSync(join(outside, 'secret.txt'), join(folder, 'secret.txt'));
    expect((await failure(host, 'e1', 'read', { path: 'out/secret.txt' })).code).toBe('SYMLINK_ESCAPE');
    expect((await failure(host, 'e1', 'read', { path: 'secret.txt' })).code).toBe('SYMLINK_ESCAPE');
    expect((await failure(host, 'e1', 'write', { path: 'out/planted.txt', content: 'x' })).code).toBe('SYMLINK_ESCAPE');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(JSON.stringify(await host.gate.call('e1', 'grep', { pattern: 'secret' }))).not.toContain('secret\\n');
  });

  it('refuses a conversation id with ..', async () => {
    const repo = plainRepo();
    const host = await open(repo);
    for (const id of ['..', '../e1', 'a/../b', 'e1/..']) {
      await expect(host.prepare({ conversation: id })).rejects.toMatchObject({
        code: 'PREPARATION_FAILED',
        data: { reason: 'BAD_CONVERSATION_ID' },
      });
    }
    expect(readdirSync(join(repo, '.gatefs')).includes('scratch') ? readdirSync(join(repo, '.gatefs/scratch')) : []).toEqual([]);
  });

  it('gives two conversations different folders that cannot see each other', async () => {
    const repo = plainRepo();
    const host = await open(repo);
    await host.prepare({ conversation: 'a1' });
    await host.prepare({ conversation: 'b1' });
    await value(host, 'a1', 'write', { path: 'mine.txt', content: 'a\n' });
    expect(readFileSync(join(repo, '.gatefs/scratch/a1/mine.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(repo, '.gatefs/scratch/b1/mine.txt'))).toBe(false);
    expect((await failure(host, 'b1', 'read', { path: 'mine.txt' })).code).toBe('NOT_FOUND');
    const across = await failure(host, 'b1', 'read', { path: '/worktrees/a1/mine.txt' });
    expect(across.code).toBe('OUTSIDE_MOUNTS');
    expect((await failure(host, 'b1', 'write', { path: '/worktrees/a1/x.txt', content: 'x' })).code).toBe('OUTSIDE_MOUNTS');
    expect(existsSync(join(repo, '.gatefs/scratch/a1/x.txt'))).toBe(false);
    expect(paths(await value(host, 'b1', 'list', { pattern: '**' }))).toEqual([]);
  });
});

describe.skipIf(!support.available)('exec in an empty workspace', () => {
  it(
    'runs in the scratch folder at /worktrees/<id>, and what it writes is what the file tools read',
    async () => {
      const repo = plainRepo();
      const host = await open(repo);
      await host.prepare({ conversation: 'e1' });
      await host.prepare({ conversation: 'e2' });
      await value(host, 'e1', 'write', { path: 'in.txt', content: 'from a tool\n' });
      const v = await value<{ exitCode: number; stdout: string; changed: { path: string; status: string }[] }>(host, 'e1', 'exec', {
        command: 'pwd; cat in.txt; ls -A /worktrees; mkdir -p out && echo built > out/b.txt; rm in.txt; ls -A',
      });
      expect(v.exitCode).toBe(0);
      expect(v.stdout).toBe('/worktrees/e1\nfrom a tool\ne1\nout\n');
      expect(v.changed).toEqual([
        { path: 'in.txt', status: 'deleted' },
        { path: 'out/b.txt', status: 'added' },
      ]);
      expect(await value(host, 'e1', 'read', { path: 'out/b.txt' })).toMatchObject({ content: 'built\n' });
      expect(readFileSync(join(repo, '.gatefs/scratch/e1/out/b.txt'), 'utf8')).toBe('built\n');
      expect(existsSync(join(repo, '.gatefs/scratch/e2/out'))).toBe(false);
      // Nothing of the source folder or the state directory is in the sandbox.
      const look = await value<{ stdout: string }>(host, 'e1', 'exec', {
        command: `ls ${repo} 2>&1 || true; ls ${join(repo, '.gatefs')} 2>&1 || true`,
      });
      expect(look.stdout).not.toContain('source.txt');
      expect(look.stdout).not.toContain('gatefs.db');
    },
    T,
  );
});
