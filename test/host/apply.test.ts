/**
 * `host.apply` on real disk: a copy workspace's changes written back to the folder it was copied
 * from (a plain folder, a git checkout), each path only if the source still holds what the copy
 * started from, all or nothing; the overlay reset afterwards; hostile paths never leave the
 * source folder. The crash cases are in apply-crash.test.ts.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import type { Host } from '../../src/host/composition/host.js';
import { makeTempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOOLS = ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'];

async function copyHost(repo: string): Promise<Host> {
  const host = await createHost({ repo, manifest: { roles: [{ name: 'cp', tools: TOOLS, workspace: { backend: 'copy' } }] } });
  cleanups.push(() => host.close());
  return host;
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A plain folder (not a git repository) holding `files`. */
function plainFolder(files: Record<string, string>): string {
  const dir = join(tempDir('gatefs-apply-'), 'src');
  mkdirSync(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** Every entry below `dir` but the state directory and `.git`: path → bytes, `->target` for a link, `/` for a folder. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, p: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (p === '' && (e.name === '.gatefs' || e.name === '.git')) continue;
      const full = join(d, e.name);
      if (e.isSymbolicLink()) out[p + e.name] = `->${readlinkSync(full)}`;
      else if (e.isDirectory()) {
        out[`${p}${e.name}/`] = '/';
        walk(full, `${p}${e.name}/`);
      } else out[p + e.name] = readFileSync(full, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

function hashOf(dir: string): string {
  return createHash('sha256')
    .update(JSON.stringify(tree(dir)))
    .digest('hex');
}

const upperOf = (repo: string, conversation: string) => join(repo, '.gatefs/copies', conversation);

/** The workspace's namespace, through which a command's changes are kept (src/host/commands/overlay-changes.ts). */
function namespaceOf(host: Host, conversation: string): { remove(path: string): Promise<void> } {
  return (host as unknown as { parts: { views: Map<string, { namespace: { remove(path: string): Promise<void> } }> } }).parts.views.get(
    conversation,
  )!.namespace;
}

async function call(host: Host, tool: string, args: object, conversation = 'c') {
  const result = await host.gate.call(conversation, tool, args);
  expect(result, `${tool} ${JSON.stringify(args)}`).toMatchObject({ ok: true });
  return result;
}

describe('gatefs apply over a plain folder', () => {
  it('writes added, changed and deleted files, folders and modes back, then resets the overlay', async () => {
    const src = plainFolder({ 'README.md': 'hello\n', 'docs/a.md': 'a\n', 'old/gone.txt': 'bye\n', 'run.sh': 'echo hi\n' });
    chmodSync(join(src, 'run.sh'), 0o644);
    const host = await copyHost(src);
    await host.prepare({ conversation: 'c' });
    await call(host, 'edit', { path: 'README.md', oldString: 'hello', newString: 'hello, world' });
    await call(host, 'write', { path: 'new/deep/file.ts', content: 'export {};\n' });
    await call(host, 'delete', { path: 'docs/a.md' });
    await call(host, 'delete', { path: 'old/gone.txt' });
    // The agent's shell removed the emptied folder (`rmdir old`): kept through the namespace, as a command's changes are.
    await namespaceOf(host, 'c').remove('/worktrees/c/old');
    // The agent's shell made run.sh executable and a link in its copy.
    await call(host, 'write', { path: 'run.sh', content: 'echo hello\n' });
    chmodSync(join(upperOf(src, 'c'), 'run.sh'), 0o755);
    symlinkSync('README.md', join(upperOf(src, 'c'), 'readme-link'));

    const dry = await host.apply('c', { dryRun: true });
    expect(tree(src)).toEqual({
      'README.md': 'hello\n',
      'docs/': '/',
      'docs/a.md': 'a\n',
      'old/': '/',
      'old/gone.txt': 'bye\n',
      'run.sh': 'echo hi\n',
    });
    expect(dry.entries.filter((e) => e.status === 'would-apply').map((e) => e.path)).toEqual([
      'README.md',
      'docs/a.md',
      'new',
      'new/deep',
      'new/deep/file.ts',
      'old',
      'old/gone.txt',
      'run.sh',
    ]);

    const before = host.events().length;
    const report = await host.apply('c');
    expect(report).toMatchObject({ complete: true, dryRun: false, overlayReset: false, resumed: false });
    expect(report.entries.find((e) => e.path === 'readme-link')).toMatchObject({ kind: 'link', status: 'skipped' });
    expect(report.counts).toMatchObject({ applied: 8, conflicts: 0, skipped: 1 });
    expect(tree(src)).toEqual({
      'README.md': 'hello, world\n',
      'docs/': '/',
      'new/': '/',
      'new/deep/': '/',
      'new/deep/file.ts': 'export {};\n',
      'run.sh': 'echo hello\n',
    });
    expect(statSync(join(src, 'run.sh')).mode & 0o777).toBe(0o755);
    // One record, paths without contents.
    const records = host
      .events()
      .slice(before)
      .filter((e) => e.type === 'work.apply');
    expect(records).toHaveLength(1);
    expect(records[0]!.data).toMatchObject({ applied: 8, conflicts: 0, skipped: 1, resumed: false });
    expect(JSON.stringify(records[0])).not.toContain('hello, world');
    // The overlay holds only the link it could not apply; the workspace reads the same bytes.
    expect(readdirSync(upperOf(src, 'c')).sort()).toEqual(['.gatefs-overlay', 'readme-link']);
    expect(await host.gate.call('c', 'read', { path: 'README.md' })).toMatchObject({ ok: true, value: { content: 'hello, world\n' } });
    expect(await host.gate.call('c', 'read', { path: 'old/gone.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // A second apply has nothing left to do (the link stays skipped).
    const again = await host.apply('c');
    expect(again.counts).toMatchObject({ applied: 0, conflicts: 0, skipped: 1 });
    expect(tree(src)['README.md']).toBe('hello, world\n');
  });

  it('applies a file replaced by a folder and a folder replaced by a file', async () => {
    const src = plainFolder({ x: 'file x\n', 'y/z.txt': 'z\n', 'keep.txt': 'k\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'c' });
    await call(host, 'delete', { path: 'x' });
    await call(host, 'write', { path: 'x/a.txt', content: 'a in x\n' });
    await call(host, 'delete', { path: 'y/z.txt' });
    await namespaceOf(host, 'c').remove('/worktrees/c/y');
    await call(host, 'write', { path: 'y', content: 'file y\n' });
    const report = await host.apply('c');
    expect(report).toMatchObject({ complete: true, counts: { conflicts: 0 } });
    expect(tree(src)).toEqual({ 'keep.txt': 'k\n', 'x/': '/', 'x/a.txt': 'a in x\n', y: 'file y\n' });
    expect(await host.gate.call('c', 'read', { path: 'x/a.txt' })).toMatchObject({ ok: true, value: { content: 'a in x\n' } });
    expect(await host.gate.call('c', 'read', { path: 'y' })).toMatchObject({ ok: true, value: { content: 'file y\n' } });
    expect((await host.apply('c')).entries).toEqual([]);
  });

  it('resets the overlay to empty when everything was applied; a file the source gains later shows in the workspace', async () => {
    const src = plainFolder({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'c' });
    await call(host, 'write', { path: 'a.txt', content: 'A\n' });
    await call(host, 'delete', { path: 'b.txt' });
    expect(await host.apply('c')).toMatchObject({ complete: true, overlayReset: true, counts: { applied: 2 } });
    expect(readdirSync(upperOf(src, 'c'))).toEqual(['.gatefs-overlay']);
    // The whiteout of b.txt is gone: a b.txt the person makes in the source shows in the copy.
    writeFileSync(join(src, 'b.txt'), 'new b\n');
    expect(await host.gate.call('c', 'read', { path: 'b.txt' })).toMatchObject({ ok: true, value: { content: 'new b\n' } });
    // The base followed the apply: the next change of a.txt applies against A.
    await call(host, 'write', { path: 'a.txt', content: 'AA\n' });
    expect(await host.apply('c')).toMatchObject({ complete: true, counts: { applied: 1, conflicts: 0 } });
    expect(readFileSync(join(src, 'a.txt'), 'utf8')).toBe('AA\n');
    expect((await host.apply('c')).entries).toEqual([]);
  });

  it('writes nothing when a file changed in the source since the copy started, naming it CONFLICT', async () => {
    const src = plainFolder({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'c' });
    await call(host, 'write', { path: 'a.txt', content: 'mine a\n' });
    await call(host, 'write', { path: 'b.txt', content: 'mine b\n' });
    await call(host, 'delete', { path: 'c.txt' });
    writeFileSync(join(src, 'b.txt'), 'theirs b\n');
    const before = hashOf(src);
    for (const dryRun of [true, false]) {
      const report = await host.apply('c', { dryRun });
      expect(report.complete).toBe(false);
      expect(report.entries).toEqual([
        { path: 'a.txt', kind: 'file', change: 'modified', status: 'skipped', reason: expect.stringContaining('all or nothing') },
        {
          path: 'b.txt',
          kind: 'file',
          change: 'modified',
          status: 'conflict',
          code: 'CONFLICT',
          reason: 'the source changed since the copy started',
        },
        { path: 'c.txt', kind: 'file', change: 'deleted', status: 'skipped', reason: expect.stringContaining('all or nothing') },
      ]);
      expect(hashOf(src)).toBe(before);
    }
    expect(
      host
        .events()
        .filter((e) => e.type === 'work.apply')
        .map((e) => e.data),
    ).toEqual([{ applied: 0, conflicts: 1, skipped: 2, unchanged: 0, resumed: false, paths: ['b.txt'] }]);
    // The copy keeps its work. Once the copy holds what the source holds, b.txt is settled and the rest applies.
    await call(host, 'write', { path: 'b.txt', content: 'theirs b\n' });
    expect(await host.apply('c')).toMatchObject({ complete: true, counts: { applied: 2, conflicts: 0 } });
    expect(tree(src)).toEqual({ 'a.txt': 'mine a\n', 'b.txt': 'theirs b\n' });
  });

  it('refuses a file the source gained where the copy adds one, and a deleted file the source changed', async () => {
    const src = plainFolder({ 'keep.txt': 'k\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'c' });
    await call(host, 'write', { path: 'added.txt', content: 'copy\n' });
    await call(host, 'delete', { path: 'keep.txt' });
    writeFileSync(join(src, 'added.txt'), 'source\n');
    writeFileSync(join(src, 'keep.txt'), 'k2\n');
    const report = await host.apply('c');
    expect(report.entries.map((e) => [e.path, e.status])).toEqual([
      ['added.txt', 'conflict'],
      ['keep.txt', 'conflict'],
    ]);
    expect(tree(src)).toEqual({ 'added.txt': 'source\n', 'keep.txt': 'k2\n' });
  });
});

describe('writes during an apply', () => {
  it('are refused with OCCUPIED while the apply holds the workspace, and land nothing', async () => {
    const src = plainFolder({ 'a.txt': 'a\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'c' });
    await call(host, 'write', { path: 'a.txt', content: 'A\n' });
    let during: Promise<unknown> | undefined;
    const report = await host.apply('c', {
      savePoint: (point) => {
        if (point === 'apply.journaled') during = host.gate.call('c', 'write', { path: 'b.txt', content: 'late\n' });
      },
    });
    expect(report).toMatchObject({ complete: true, overlayReset: true });
    expect(await during).toMatchObject({ ok: false, error: { code: 'OCCUPIED' } });
    expect(tree(src)).toEqual({ 'a.txt': 'A\n' });
    expect(await host.gate.call('c', 'read', { path: 'b.txt' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // Once it is done, writes are served again.
    await call(host, 'write', { path: 'b.txt', content: 'after\n' });
  });
});

describe('release after apply', () => {
  it('releases an untouched plain copy, and one whose changes were all applied, without calling them work', async () => {
    const src = plainFolder({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'u' });
    expect(await host.release('u')).toMatchObject({ removed: true });
    await host.prepare({ conversation: 'd' });
    await call(host, 'write', { path: 'a.txt', content: 'A\n' }, 'd');
    await call(host, 'delete', { path: 'b.txt' }, 'd');
    await expect(host.release('d')).rejects.toMatchObject({ code: 'DIRTY_WORKTREE' });
    expect(await host.apply('d')).toMatchObject({ complete: true, overlayReset: true });
    expect(await host.release('d')).toMatchObject({ removed: true });
    expect(tree(src)).toEqual({ 'a.txt': 'A\n' });
  });

  it('keeps the base of a copy whose release was refused, so its later changes still apply', async () => {
    const src = plainFolder({ 'a.txt': 'a\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'o' });
    host.acquire('o', 'someone-else');
    await expect(host.release('o')).rejects.toMatchObject({ code: 'OCCUPIED' });
    host.releaseOccupancy('o', 'someone-else');
    await call(host, 'write', { path: 'a.txt', content: 'A\n' }, 'o');
    expect(await host.apply('o')).toMatchObject({ complete: true, counts: { applied: 1, conflicts: 0 } });
    expect(readFileSync(join(src, 'a.txt'), 'utf8')).toBe('A\n');
  });
});

describe('gatefs apply over a git checkout', () => {
  it('writes into the working tree against the pinned commit; the copy keeps showing its files and a second apply has nothing to do', async () => {
    const repo = makeTempRepo({ 'README.md': 'one\n', 'src/x.ts': 'x\n', 'src/y.ts': 'y\n' });
    repo.commit('init');
    cleanups.push(() => repo.cleanup());
    const host = await copyHost(repo.dir);
    await host.prepare({ conversation: 'g' });
    await call(host, 'write', { path: 'src/x.ts', content: 'x2\n' }, 'g');
    await call(host, 'delete', { path: 'src/y.ts' }, 'g');
    await call(host, 'write', { path: 'src/z.ts', content: 'z\n' }, 'g');
    const report = await host.apply('g');
    expect(report).toMatchObject({ complete: true, overlayReset: false, counts: { applied: 3, conflicts: 0 } });
    expect(tree(repo.dir)).toEqual({ 'README.md': 'one\n', 'src/': '/', 'src/x.ts': 'x2\n', 'src/z.ts': 'z\n' });
    expect(repo.git('status', '--porcelain')).toBe(' M src/x.ts\n D src/y.ts\n?? src/z.ts'.trim());
    expect(await host.gate.call('g', 'read', { path: 'src/x.ts' }, {})).toMatchObject({ ok: true, value: { content: 'x2\n' } });
    expect((await host.apply('g')).entries).toEqual([]);
    // The base follows: a further change applies over what the first apply wrote.
    await call(host, 'write', { path: 'src/x.ts', content: 'x3\n' }, 'g');
    expect(await host.apply('g')).toMatchObject({ complete: true, counts: { applied: 1 } });
    expect(readFileSync(join(repo.dir, 'src/x.ts'), 'utf8')).toBe('x3\n');
    // A working-tree change the person made is a conflict.
    writeFileSync(join(repo.dir, 'README.md'), 'person\n');
    await call(host, 'write', { path: 'README.md', content: 'agent\n' }, 'g');
    expect((await host.apply('g')).entries).toEqual([
      {
        path: 'README.md',
        kind: 'file',
        change: 'modified',
        status: 'conflict',
        code: 'CONFLICT',
        reason: 'the source changed since the copy started',
      },
    ]);
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('person\n');
  });

  it('is refused for a worktree workspace with a hint naming commit and submit', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n' });
    repo.commit('init');
    cleanups.push(() => repo.cleanup());
    const host = await createHost({ repo: repo.dir });
    cleanups.push(() => host.close());
    await host.prepare({ conversation: 'w' });
    await expect(host.apply('w')).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      data: { hint: expect.stringContaining('gatefs commit w') },
    });
    await expect(host.apply('nobody')).rejects.toMatchObject({ code: 'UNKNOWN_CONVERSATION' });
  });
});

describe('gatefs apply with hostile paths', () => {
  it('never writes .git, the state directory, or through a link swapped into the source', async () => {
    const outside = tempDir('gatefs-outside-');
    writeFileSync(join(outside, 'f.txt'), 'outside\n');
    const src = plainFolder({ 'sub/f.txt': 'inside\n', 'ok.txt': 'ok\n' });
    const host = await copyHost(src);
    await host.prepare({ conversation: 'h' });
    await call(host, 'write', { path: 'sub/f.txt', content: 'agent\n' }, 'h');
    // What the agent's shell could leave in its upper folder.
    const upper = upperOf(src, 'h');
    mkdirSync(join(upper, '.git'));
    writeFileSync(join(upper, '.git/config'), '[core]\n\tfsmonitor = evil\n');
    mkdirSync(join(upper, '.gatefs'));
    writeFileSync(join(upper, '.gatefs/evil'), 'x\n');
    writeFileSync(join(upper, 'gatefs.yaml'), 'roles: []\n');
    const stateBefore = readdirSync(join(src, '.gatefs')).sort();
    // The source's folder is swapped for a link to a folder outside after the copy started.
    rmSync(join(src, 'sub'), { recursive: true });
    symlinkSync(outside, join(src, 'sub'));
    const outsideBefore = hashOf(outside);
    const report = await host.apply('h');
    expect(report.complete).toBe(false);
    expect(report.entries.find((e) => e.path === 'sub/f.txt')).toMatchObject({ status: 'conflict', code: 'SYMLINK_ESCAPE' });
    for (const p of ['.git', '.git/config', '.gatefs', '.gatefs/evil', 'gatefs.yaml'])
      expect(report.entries.find((e) => e.path === p)).toMatchObject({ status: 'skipped', code: 'PROTECTED_PATH' });
    expect(hashOf(outside)).toBe(outsideBefore);
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside\n');
    expect(existsSync(join(src, '.git'))).toBe(false);
    expect(existsSync(join(src, 'gatefs.yaml'))).toBe(false);
    expect(readdirSync(join(src, '.gatefs')).sort()).toEqual(stateBefore);
    expect(JSON.stringify(report)).not.toContain(outside);
  });

  it('refuses whiteout records that climb out of the source, touching nothing outside', async () => {
    const parent = tempDir('gatefs-apply-parent-');
    const src = join(parent, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'a.txt'), 'a\n');
    writeFileSync(join(parent, 'victim.txt'), 'victim\n');
    const host = await copyHost(src);
    await host.prepare({ conversation: 'w' });
    await call(host, 'write', { path: 'a.txt', content: 'A\n' }, 'w');
    // A tampered record in the copy's reserved folder.
    writeFileSync(join(upperOf(src, 'w'), '.gatefs-overlay/whiteouts.json'), JSON.stringify({ version: 1, whiteouts: ['../victim.txt'] }));
    const report = await host.apply('w');
    expect(report.complete).toBe(false);
    expect(report.entries.find((e) => e.path === '../victim.txt')).toMatchObject({ status: 'conflict' });
    expect(readFileSync(join(parent, 'victim.txt'), 'utf8')).toBe('victim\n');
    expect(readFileSync(join(src, 'a.txt'), 'utf8')).toBe('a\n');
    expect(lstatSync(join(parent, 'victim.txt')).isFile()).toBe(true);
  });
});
