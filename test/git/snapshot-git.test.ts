/**
 * The snapshot port (src/git/snapshot-git.ts) on both implementations: `CliSnapshotGit` on the git
 * program in temp repositories, `MemorySnapshotGit` on isomorphic-git in a memfs volume. One
 * behaviour suite runs on each; the two must also write the very same objects (same shas) for the
 * same inputs. The git program's own part: a repository whose attributes, filters and
 * `core.autocrlf` would rewrite bytes still gets the exact bytes, and its branch, HEAD, index and
 * status stay as they were; and a 20,000-file snapshot and a 10-file incremental one (times logged).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import git, { type FsClient } from 'isomorphic-git';
import { Volume } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import { CliSnapshotGit } from '../../src/git/cli-snapshot-git.js';
import { MemorySnapshotGit } from '../../src/git/memory-snapshot-git.js';
import type { SnapshotChange, SnapshotGit } from '../../src/git/snapshot-git.js';
import { seedMemoryRepository } from '../../src/host/memory/memory-repository.js';
import { ManualClock } from '../../src/ports/clock.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';

const context = { tag: 'test', chain: ['c1'] };
const T = 1_700_000_000;

/** A repository and the port over it. */
interface World {
  repo: string;
  port: SnapshotGit;
  /** The parents of a commit. */
  parents(commit: string): Promise<string[]>;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** `git <args>` in `cwd` (the user's and system config kept out), its output. */
function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'u',
      GIT_AUTHOR_EMAIL: 'u@x',
      GIT_COMMITTER_NAME: 'u',
      GIT_COMMITTER_EMAIL: 'u@x',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** A temp repository with one commit on `main`. */
function diskRepo(): string {
  const repo = fs.mkdtempSync(join(tmpdir(), 'gatefs-snapshot-git-'));
  cleanups.push(() => fs.rmSync(repo, { recursive: true, force: true }));
  gitIn(repo, 'init', '-q', '-b', 'main');
  fs.writeFileSync(join(repo, 'README.md'), 'seed\n');
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', 'seed');
  return repo;
}

async function cliWorld(): Promise<World> {
  const repo = diskRepo();
  return {
    repo,
    port: new CliSnapshotGit({ exec: new NodeHostExec() }),
    parents: async (commit) => gitIn(repo, 'rev-list', '--parents', '-n1', commit).trim().split(' ').slice(1),
  };
}

async function memoryWorld(): Promise<World> {
  const volume = new Volume();
  const repo = '/repo';
  await seedMemoryRepository({ volume, dir: repo, files: { 'README.md': 'seed\n' }, clock: new ManualClock(T * 1000) });
  const fsc = volume as unknown as FsClient;
  return {
    repo,
    port: new MemorySnapshotGit({ volume }),
    parents: async (commit) => (await git.readCommit({ fs: fsc, gitdir: `${repo}/.git`, oid: commit })).commit.parent,
  };
}

const enc = (s: string) => new TextEncoder().encode(s);
const file = (path: string, content: string | Uint8Array, executable = false): SnapshotChange => ({
  path,
  kind: 'file',
  executable,
  bytes: async () => (typeof content === 'string' ? enc(content) : content),
});
const link = (path: string, target: string): SnapshotChange => ({ path, kind: 'link', target });
const del = (path: string): SnapshotChange => ({ path, kind: 'delete' });

const BINARY = new Uint8Array([0, 1, 2, 0xff, 0xfe, 13, 10, 13, 0x80, 10]);

const FIRST: SnapshotChange[] = [
  file('a.txt', 'alpha\r\nline two\n'),
  file('bin/run.sh', '#!/bin/sh\necho hi\n', true),
  link('latest', 'a.txt'),
  file('src/lib/deep/x.ts', 'export const x = 1;\n'),
  file('src/lib/y.ts', 'y\n'),
  file('src/z.bin', BINARY),
  file('empty', ''),
  file('docs/old/one.md', 'one\n'),
  file('docs/old/two.md', 'two\n'),
  file('docs/keep.md', 'keep\n'),
];

const ODD_NAMES = [
  'sub/.git/config',
  'with space.txt',
  '"quoted start',
  'has"quote',
  'new\nline',
  'back\\slash',
  'ünïcødé/日本語.txt',
  'tab\there',
  ' lead space',
];

describe.each([
  ['cli', cliWorld],
  ['memory', memoryWorld],
] as const)('%s snapshot git', (_name, makeWorld) => {
  it('writes a first snapshot whose tree, blobs, message and (no) parent read back exactly', async () => {
    const w = await makeWorld();
    const { commit, oids } = await w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/gatefs/snapshots/c1/1', parent: null, changes: FIRST, message: 'first\n\nbody', time: T },
      context,
    );
    const tree = await w.port.listTree(w.repo, commit, context);
    expect(tree.map((e) => [e.path, e.mode])).toEqual([
      ['a.txt', '100644'],
      ['bin/run.sh', '100755'],
      ['docs/keep.md', '100644'],
      ['docs/old/one.md', '100644'],
      ['docs/old/two.md', '100644'],
      ['empty', '100644'],
      ['latest', '120000'],
      ['src/lib/deep/x.ts', '100644'],
      ['src/lib/y.ts', '100644'],
      ['src/z.bin', '100644'],
    ]);
    expect(new Map(tree.map((e) => [e.path, e.oid]))).toEqual(oids);
    const blobs = await w.port.readBlobs(w.repo, [...oids.values()], context);
    expect(Buffer.from(blobs.get(oids.get('a.txt')!)!).toString()).toBe('alpha\r\nline two\n');
    expect([...blobs.get(oids.get('src/z.bin')!)!]).toEqual([...BINARY]);
    expect(blobs.get(oids.get('empty')!)!.length).toBe(0);
    expect(Buffer.from(blobs.get(oids.get('latest')!)!).toString()).toBe('a.txt');
    expect(await w.port.message(w.repo, commit, context)).toBe('first\n\nbody\n');
    expect(await w.parents(commit)).toEqual([]);
    expect(await w.port.listRefs(w.repo, 'refs/gatefs/snapshots/c1/', context)).toEqual([
      { ref: 'refs/gatefs/snapshots/c1/1', sha: commit },
    ]);
  });

  it('writes a second snapshot from the first: a change, a file and a folder deleted, an add, a file turned folder', async () => {
    const w = await makeWorld();
    const first = await w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/gatefs/snapshots/c1/1', parent: null, changes: FIRST, message: 'one', time: T },
      context,
    );
    const second = await w.port.writeSnapshot(
      w.repo,
      {
        ref: 'refs/gatefs/snapshots/c1/2',
        parent: first.commit,
        changes: [
          file('a.txt', 'changed\n'),
          del('src/lib/y.ts'),
          del('docs/old'),
          del('not/there'),
          file('new/added.txt', 'added\n'),
          file('empty/inside', 'now a folder\n'),
          link('bin/run.sh', 'elsewhere'),
        ],
        message: 'two',
        time: T + 60,
      },
      context,
    );
    expect(await w.parents(second.commit)).toEqual([first.commit]);
    const tree = await w.port.listTree(w.repo, second.commit, context);
    expect(tree.map((e) => `${e.mode} ${e.path}`)).toEqual(
      [
        '100644 a.txt',
        '120000 bin/run.sh',
        '100644 docs/keep.md',
        '120000 latest',
        '100644 empty/inside',
        '100644 new/added.txt',
        '100644 src/lib/deep/x.ts',
        '100644 src/z.bin',
      ].sort((a, b) => (a.slice(7) < b.slice(7) ? -1 : 1)),
    );
    expect([...second.oids.keys()].sort()).toEqual(['a.txt', 'bin/run.sh', 'empty/inside', 'new/added.txt']);
    const unchanged = tree.find((e) => e.path === 'src/z.bin')!;
    expect(unchanged.oid).toBe(first.oids.get('src/z.bin'));
    const blobs = await w.port.readBlobs(w.repo, [second.oids.get('a.txt')!, second.oids.get('bin/run.sh')!], context);
    expect(Buffer.from(blobs.get(second.oids.get('a.txt')!)!).toString()).toBe('changed\n');
    expect(Buffer.from(blobs.get(second.oids.get('bin/run.sh')!)!).toString()).toBe('elsewhere');
    // The first snapshot is as it was.
    expect((await w.port.listTree(w.repo, first.commit, context)).length).toBe(10);
  });

  it('deleting everything leaves the empty tree; a later change in the same list wins', async () => {
    const w = await makeWorld();
    const first = await w.port.writeSnapshot(w.repo, { ref: 'refs/s/1', parent: null, changes: FIRST, message: 'm', time: T }, context);
    const all = await w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/s/2', parent: first.commit, changes: FIRST.map((c) => del(c.path.split('/')[0]!)), message: 'm', time: T },
      context,
    );
    expect(await w.port.listTree(w.repo, all.commit, context)).toEqual([]);
    const order = await w.port.writeSnapshot(
      w.repo,
      {
        ref: 'refs/s/3',
        parent: null,
        changes: [file('x/a', '1'), del('x'), file('x/b', '2'), file('y', '3'), file('y', '4')],
        message: 'm',
        time: T,
      },
      context,
    );
    const tree = await w.port.listTree(w.repo, order.commit, context);
    expect(tree.map((e) => e.path)).toEqual(['x/b', 'y']);
    expect([...order.oids.keys()].sort()).toEqual(['x/b', 'y']);
    expect(order.oids.get('y')).toBe(tree[1]!.oid);
  });

  it('stores names with a space, a quote, a newline, a backslash, a tab and non-ASCII as they are', async () => {
    const w = await makeWorld();
    const changes = ODD_NAMES.map((name, i) => file(name, `content ${i}\n`));
    const first = await w.port.writeSnapshot(w.repo, { ref: 'refs/s/1', parent: null, changes, message: 'odd', time: T }, context);
    const tree = await w.port.listTree(w.repo, first.commit, context);
    expect(tree.map((e) => e.path)).toEqual([...ODD_NAMES].sort());
    const blobs = await w.port.readBlobs(
      w.repo,
      tree.map((e) => e.oid),
      context,
    );
    for (const [i, name] of ODD_NAMES.entries())
      expect(Buffer.from(blobs.get(tree.find((e) => e.path === name)!.oid)!).toString()).toBe(`content ${i}\n`);
    const second = await w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/s/2', parent: first.commit, changes: ODD_NAMES.filter((_, i) => i % 2 === 0).map(del), message: 'odd', time: T },
      context,
    );
    expect((await w.port.listTree(w.repo, second.commit, context)).map((e) => e.path)).toEqual(
      ODD_NAMES.filter((_, i) => i % 2 === 1).sort(),
    );
  });

  it('refuses a ref that exists and leaves it where it was', async () => {
    const w = await makeWorld();
    const first = await w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/s/1', parent: null, changes: [file('a', '1')], message: 'm', time: T },
      context,
    );
    const again = w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/s/1', parent: first.commit, changes: [file('a', '2')], message: 'm', time: T },
      context,
    );
    await expect(again).rejects.toMatchObject({ name: 'GitError', code: 'COMMAND_FAILED' });
    expect(await w.port.listRefs(w.repo, 'refs/s', context)).toEqual([{ ref: 'refs/s/1', sha: first.commit }]);
  });

  it('refuses bad refs, parents, paths and times before writing; a failing read leaves no ref', async () => {
    const w = await makeWorld();
    const write = (o: Partial<Parameters<SnapshotGit['writeSnapshot']>[1]>) =>
      w.port.writeSnapshot(w.repo, { ref: 'refs/s/1', parent: null, changes: [file('a', '1')], message: 'm', time: T, ...o }, context);
    await expect(write({ ref: 'main' })).rejects.toMatchObject({ code: 'BAD_REF' });
    await expect(write({ parent: 'HEAD~1' })).rejects.toMatchObject({ code: 'BAD_REF' });
    for (const path of ['../up', 'a//b', '/abs', 'a/./b', 'dir/', ''])
      await expect(write({ changes: [file(path, 'x')] })).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    await expect(write({ time: 1.5 })).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    const boom = new Error('the disk went away');
    const failing: SnapshotChange = { path: 'b', kind: 'file', executable: false, bytes: async () => Promise.reject(boom) };
    await expect(write({ changes: [file('a', '1'), failing] })).rejects.toBe(boom);
    expect(await w.port.listRefs(w.repo, 'refs/s/', context)).toEqual([]);
  });

  it('lists refs under a prefix (not a sibling that merely starts alike) and deletes them, missing ones fine', async () => {
    const w = await makeWorld();
    const shas: string[] = [];
    for (const ref of ['refs/gatefs/snapshots/c1/1', 'refs/gatefs/snapshots/c1/2', 'refs/gatefs/snapshots/c10/1'])
      shas.push(
        (await w.port.writeSnapshot(w.repo, { ref, parent: null, changes: [file('f', ref)], message: ref, time: T }, context)).commit,
      );
    expect(await w.port.listRefs(w.repo, 'refs/gatefs/snapshots/c1/', context)).toEqual([
      { ref: 'refs/gatefs/snapshots/c1/1', sha: shas[0] },
      { ref: 'refs/gatefs/snapshots/c1/2', sha: shas[1] },
    ]);
    expect((await w.port.listRefs(w.repo, 'refs/gatefs/snapshots/c1', context)).length).toBe(2);
    expect((await w.port.listRefs(w.repo, 'refs/gatefs/snapshots/', context)).length).toBe(3);
    await w.port.deleteRefs(w.repo, ['refs/gatefs/snapshots/c1/1', 'refs/gatefs/snapshots/c1/9', 'refs/gatefs/snapshots/c1/2'], context);
    await w.port.deleteRefs(w.repo, [], context);
    expect(await w.port.listRefs(w.repo, 'refs/gatefs/snapshots/', context)).toEqual([
      { ref: 'refs/gatefs/snapshots/c10/1', sha: shas[2] },
    ]);
    // The objects stay until git collects them; a deleted ref can be written again.
    expect((await w.port.listTree(w.repo, shas[0]!, context)).length).toBe(1);
    await w.port.writeSnapshot(
      w.repo,
      { ref: 'refs/gatefs/snapshots/c1/1', parent: null, changes: [], message: 'again', time: T },
      context,
    );
    await expect(w.port.deleteRefs(w.repo, ['HEAD'], context)).rejects.toMatchObject({ code: 'BAD_REF' });
  });

  it('reads a missing blob as OBJECT_MISSING', async () => {
    const w = await makeWorld();
    await expect(w.port.readBlobs(w.repo, ['0123456789012345678901234567890123456789'], context)).rejects.toMatchObject({
      code: 'OBJECT_MISSING',
    });
    expect(await w.port.readBlobs(w.repo, [], context)).toEqual(new Map());
  });
});

describe('both snapshot gits', () => {
  it('write the same commit for the same inputs (deterministic, and the memory one is git-exact)', async () => {
    const shas: string[][] = [];
    for (const make of [cliWorld, memoryWorld, memoryWorld]) {
      const w = await make();
      const one = await w.port.writeSnapshot(w.repo, { ref: 'refs/s/1', parent: null, changes: FIRST, message: 'same', time: T }, context);
      const two = await w.port.writeSnapshot(
        w.repo,
        {
          ref: 'refs/s/2',
          parent: one.commit,
          changes: [del('docs'), file('a.txt', 'b'), ...ODD_NAMES.map((n) => file(n, n))],
          message: 'same\r\n\n',
          time: T + 1,
        },
        context,
      );
      shas.push([one.commit, two.commit]);
    }
    expect(shas[1]).toEqual(shas[0]);
    expect(shas[2]).toEqual(shas[0]);
  });
});

describe('cli snapshot git in a repository that rewrites bytes', () => {
  it('stores exact bytes whatever the attributes, filters and autocrlf say, and leaves branch, HEAD, index and status alone', async () => {
    const repo = diskRepo();
    fs.writeFileSync(join(repo, '.gitattributes'), '* text eol=crlf filter=shout\n');
    gitIn(repo, 'config', 'core.autocrlf', 'true');
    gitIn(repo, 'config', 'filter.shout.clean', 'tr a-z A-Z');
    gitIn(repo, 'config', 'filter.shout.smudge', 'tr a-z A-Z');
    gitIn(repo, 'config', 'filter.shout.required', 'true');
    fs.mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
    const marker = join(repo, 'hook-ran');
    for (const hook of ['pre-commit', 'post-commit', 'reference-transaction', 'post-rewrite'])
      fs.writeFileSync(join(repo, '.git', 'hooks', hook), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    gitIn(repo, 'add', '.gitattributes');
    fs.writeFileSync(join(repo, 'untracked.txt'), 'u\n');
    fs.rmSync(marker, { force: true });
    const before = {
      status: gitIn(repo, 'status', '--porcelain'),
      head: gitIn(repo, 'rev-parse', 'HEAD'),
      branch: gitIn(repo, 'symbolic-ref', 'HEAD'),
      index: fs.readFileSync(join(repo, '.git', 'index')),
    };
    const port = new CliSnapshotGit({ exec: new NodeHostExec() });
    const { commit, oids } = await port.writeSnapshot(
      repo,
      {
        ref: 'refs/gatefs/snapshots/c1/1',
        parent: null,
        changes: [file('lf.txt', 'lower\nlines\n'), file('crlf.txt', 'keep\r\nthese\r\n')],
        message: 'm',
        time: T,
      },
      context,
    );
    const blobs = await port.readBlobs(repo, [...oids.values()], context);
    expect(Buffer.from(blobs.get(oids.get('lf.txt')!)!).toString()).toBe('lower\nlines\n');
    expect(Buffer.from(blobs.get(oids.get('crlf.txt')!)!).toString()).toBe('keep\r\nthese\r\n');
    expect(gitIn(repo, 'cat-file', 'blob', oids.get('lf.txt')!)).toBe('lower\nlines\n');
    // git's own hash of the bytes agrees with the oid (no filter in between).
    const hashed = execFileSync('git', ['hash-object', '--no-filters', '--stdin'], { input: 'lower\nlines\n', encoding: 'utf8' }).trim();
    expect(oids.get('lf.txt')).toBe(hashed);
    expect(gitIn(repo, 'status', '--porcelain')).toBe(before.status);
    expect(gitIn(repo, 'rev-parse', 'HEAD')).toBe(before.head);
    expect(gitIn(repo, 'symbolic-ref', 'HEAD')).toBe(before.branch);
    expect(fs.readFileSync(join(repo, '.git', 'index')).equals(before.index)).toBe(true);
    expect(fs.existsSync(marker)).toBe(false);
    expect(gitIn(repo, 'rev-parse', 'refs/gatefs/snapshots/c1/1').trim()).toBe(commit);
    expect(gitIn(repo, 'branch', '--list').trim()).toBe('* main');
  });

  it('writes a 20,000-file snapshot and a 10-file incremental one (times logged, not asserted)', async () => {
    const repo = diskRepo();
    const port = new CliSnapshotGit({ exec: new NodeHostExec() });
    const changes: SnapshotChange[] = [];
    for (let i = 0; i < 20_000; i++) changes.push(file(`d${i % 100}/sub${i % 7}/file-${i}.txt`, `file ${i}\n`.repeat(1 + (i % 20))));
    let started = performance.now();
    const first = await port.writeSnapshot(
      repo,
      { ref: 'refs/gatefs/snapshots/c1/1', parent: null, changes, message: 'big', time: T },
      context,
    );
    const fullMs = performance.now() - started;
    started = performance.now();
    const ten = Array.from({ length: 10 }, (_, i) => file(changes[i * 1999]!.path, `changed ${i}\n`));
    const second = await port.writeSnapshot(
      repo,
      { ref: 'refs/gatefs/snapshots/c1/2', parent: first.commit, changes: ten, message: 'ten', time: T },
      context,
    );
    const incrementalMs = performance.now() - started;
    started = performance.now();
    const tree = await port.listTree(repo, second.commit, context);
    const listMs = performance.now() - started;
    started = performance.now();
    const blobs = await port.readBlobs(
      repo,
      tree.map((e) => e.oid),
      context,
    );
    const readMs = performance.now() - started;
    console.log(
      `snapshot-git timings: 20,000-file snapshot ${fullMs.toFixed(0)} ms, 10-file incremental ${incrementalMs.toFixed(0)} ms, ` +
        `listTree of 20,000 ${listMs.toFixed(0)} ms, readBlobs of ${blobs.size} blobs ${readMs.toFixed(0)} ms`,
    );
    expect(first.oids.size).toBe(20_000);
    expect(tree.length).toBe(20_000);
    expect(second.oids.size).toBe(10);
    expect(Buffer.from(blobs.get(second.oids.get(changes[1999]!.path)!)!).toString()).toBe('changed 1\n');
  }, 120_000);
});
