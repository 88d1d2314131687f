/**
 * Snapshots and restore on disk, as a user who needs their work back would try them: a worktree's
 * snapshot is a commit on `refs/gatefs/snapshots/<conversation>/<n>` (the branch, HEAD and index
 * untouched) holding tracked, untracked and ignored files; a copy's and an empty workspace's go to
 * the content store. A restore gives back exact bytes (CRLF under `eol=crlf` too), modes, empty
 * folders and links as links, never writes through a link planted since, and never touches
 * another conversation or a shared `/archive`.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { makeTempRepo, type TempRepo } from './temp-repo.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tools = ['read', 'write', 'list', 'delete', 'checkpoint', 'rollback'];

async function setup(backend: 'worktree' | 'copy' | 'empty') {
  const repo: TempRepo = makeTempRepo({
    'README.md': '# demo\n',
    'src/a.ts': 'export const a = 1;\n',
    '.gitignore': 'node_modules/\n',
    '.gitattributes': '*.txt text eol=crlf\n',
  });
  cleanups.push(() => repo.cleanup());
  const archive = mkdtempSync(join(tmpdir(), 'gatefs-archive-'));
  cleanups.push(() => rmSync(archive, { recursive: true, force: true }));
  writeFileSync(join(archive, 'shared.md'), 'shared\n');
  const manifest = { roles: [{ name: 'r', tools, workspace: { backend, mounts: [{ path: archive, writable: true }] } }] };
  const host = await createHost({ repo: repo.dir, manifest });
  cleanups.push(() => host.close());
  await host.prepare({ conversation: 'a' });
  await host.prepare({ conversation: 'b' });
  const stateDir = join(repo.dir, '.gatefs');
  const area = backend === 'worktree' ? 'worktrees' : backend === 'copy' ? 'copies' : 'scratch';
  const folderOf = (c: string) => join(stateDir, area, c);
  return { repo, archive, host, folderOf };
}

/** Writes straight into the workspace folder, as a command in the sandbox would (modes, links, empty folders). */
function plant(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

describe.each(['worktree', 'copy', 'empty'] as const)('a %s workspace', (backend) => {
  it('comes back exactly: bytes, modes, empty folders, links as links, ignored files; what came after is gone', async () => {
    const { host, folderOf } = await setup(backend);
    const root = folderOf('a');
    plant(root, { 'notes/crlf.txt': 'line\r\nline\n', 'node_modules/pkg/index.js': 'module.exports = 1;\n', 'bin/run': '#!/bin/sh\n' });
    chmodSync(join(root, 'bin/run'), 0o755);
    writeFileSync(join(root, 'secret.key'), 'k');
    chmodSync(join(root, 'secret.key'), 0o600);
    mkdirSync(join(root, 'empty/inner'), { recursive: true });
    mkdirSync(join(root, 'private'), { mode: 0o700 });
    chmodSync(join(root, 'private'), 0o700);
    symlinkSync('../README.md', join(root, 'notes/readme-link'));
    symlinkSync('/etc/hostname', join(root, 'outside-link'));
    const snap = await host.snapshot('a', { label: 'good state' });
    expect(snap.snapshotId).toBe('1');

    // The mess a command might make.
    writeFileSync(join(root, 'notes/crlf.txt'), 'rewritten\n');
    rmSync(join(root, 'node_modules'), { recursive: true });
    rmSync(join(root, 'empty'), { recursive: true });
    chmodSync(join(root, 'bin/run'), 0o644);
    chmodSync(join(root, 'secret.key'), 0o644);
    rmSync(join(root, 'notes/readme-link'));
    writeFileSync(join(root, 'notes/readme-link'), 'now a file\n');
    plant(root, { 'later/added.txt': 'added later\n' });

    const r = await host.restore('a', '1');
    expect(r.before.reason).toBe('restore');
    expect(readFileSync(join(root, 'notes/crlf.txt'), 'utf8')).toBe('line\r\nline\n');
    expect(readFileSync(join(root, 'node_modules/pkg/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(lstatSync(join(root, 'bin/run')).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(root, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(root, 'empty/inner')).isDirectory()).toBe(true);
    expect(lstatSync(join(root, 'private')).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(root, 'notes/readme-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, 'notes/readme-link'))).toBe('../README.md');
    expect(readlinkSync(join(root, 'outside-link'))).toBe('/etc/hostname');
    expect(existsSync(join(root, 'later'))).toBe(false);
  });

  it('never writes through a link planted where a folder was: the link is replaced, its target untouched', async () => {
    const { host, folderOf } = await setup(backend);
    const root = folderOf('a');
    plant(root, { 'd/f.txt': 'mine\n' });
    await host.snapshot('a');
    const outside = mkdtempSync(join(tmpdir(), 'gatefs-outside-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'f.txt'), 'outside\n');
    rmSync(join(root, 'd'), { recursive: true });
    symlinkSync(outside, join(root, 'd'));
    await host.restore('a', '1');
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside\n');
    expect(lstatSync(join(root, 'd')).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'd/f.txt'), 'utf8')).toBe('mine\n');
  });

  it('two conversations share a writable /archive; one restores: the other workspace and the archive are unchanged byte for byte', async () => {
    const { host, archive, folderOf } = await setup(backend);
    await host.gate.call('a', 'write', { path: 'mine.txt', content: 'a1' });
    await host.gate.call('b', 'write', { path: 'mine.txt', content: 'b1' });
    await host.gate.call('a', 'write', { path: `${archive}/from-a.md`, content: 'a wrote this' });
    await host.snapshot('a');
    await host.snapshot('b');
    await host.gate.call('a', 'write', { path: 'mine.txt', content: 'a2' });
    await host.gate.call('b', 'write', { path: 'mine.txt', content: 'b2' });
    await host.gate.call('b', 'write', { path: `${archive}/from-b.md`, content: 'b wrote this' });
    await host.gate.call('a', 'write', { path: `${archive}/from-a.md`, content: 'a changed it' });
    await host.restore('a', '1');
    expect(readFileSync(join(folderOf('a'), 'mine.txt'), 'utf8')).toBe('a1');
    expect(readFileSync(join(folderOf('b'), 'mine.txt'), 'utf8')).toBe('b2');
    expect(readFileSync(join(archive, 'from-a.md'), 'utf8')).toBe('a changed it');
    expect(readFileSync(join(archive, 'from-b.md'), 'utf8')).toBe('b wrote this');
    expect(readFileSync(join(archive, 'shared.md'), 'utf8')).toBe('shared\n');
  });

  it('the agent checkpoints and rolls back its own workspace through the tools; rollback is undone by the checkpoint it took', async () => {
    const { host } = await setup(backend);
    await host.gate.call('a', 'write', { path: 'work.md', content: 'v1' });
    const cp = await host.gate.call('a', 'checkpoint', { label: 'v1' });
    expect(cp).toMatchObject({ ok: true, value: { snapshotId: '1', label: 'v1' } });
    await host.gate.call('a', 'write', { path: 'work.md', content: 'v2' });
    const rb = await host.gate.call('a', 'rollback', { snapshotId: '1' });
    expect(rb).toMatchObject({ ok: true, value: { snapshotId: '1', before: '2' } });
    expect(await host.gate.call('a', 'read', { path: 'work.md' })).toMatchObject({
      ok: true,
      value: { content: expect.stringContaining('v1') },
    });
    // b cannot roll back to a's snapshot numbers: b has none.
    expect(await host.gate.call('b', 'rollback', { snapshotId: '1' })).toMatchObject({ ok: false, error: { code: 'SNAPSHOT_NOT_FOUND' } });
  });
});

describe.each(['worktree', 'empty'] as const)('a %s snapshot right after a write', (backend) => {
  it('sees a same-size change made in the same instant (the stamp of a file this fresh is not trusted)', async () => {
    const { host, folderOf } = await setup(backend);
    const root = folderOf('a');
    for (let round = 0; round < 5; round++) {
      writeFileSync(join(root, 'same.txt'), `v${round}-aaaa`);
      const before = await host.snapshot('a');
      writeFileSync(join(root, 'same.txt'), `v${round}-bbbb`); // same size, same second
      await host.snapshot('a');
      await host.restore('a', before.snapshotId);
      expect(readFileSync(join(root, 'same.txt'), 'utf8')).toBe(`v${round}-aaaa`);
    }
  });
});

describe('a worktree snapshot', () => {
  it('is a commit on refs/gatefs/snapshots/<conversation>/<n>: the branch, HEAD and the index are untouched; release removes it unless kept', async () => {
    const { repo, host, folderOf } = await setup('worktree');
    const root = folderOf('a');
    writeFileSync(join(root, 'README.md'), 'changed\n');
    plant(root, { 'untracked.md': 'u\n', 'node_modules/x.js': 'x\n' });
    const git = (...args: string[]) => repo.git('-C', root, ...args);
    const before = {
      head: git('rev-parse', 'HEAD'),
      branch: git('symbolic-ref', 'HEAD'),
      status: git('status', '--porcelain', '--ignored'),
    };
    const snap = await host.snapshot('a');
    expect(repo.git('rev-parse', 'refs/gatefs/snapshots/a/1')).toBe(snap.commit);
    expect(repo.git('show', `${snap.commit}:README.md`)).toBe('changed');
    expect(repo.git('show', `${snap.commit}:node_modules/x.js`)).toBe('x');
    expect({
      head: git('rev-parse', 'HEAD'),
      branch: git('symbolic-ref', 'HEAD'),
      status: git('status', '--porcelain', '--ignored'),
    }).toEqual(before);
    // A second snapshot with nothing changed adds nothing to the store.
    const again = await host.snapshot('a');
    expect(again.storedBytes).toBe(0);
    expect(host.status().find((s) => s.conversation === 'a')?.snapshots).toMatchObject({ count: 2 });
    await host.release('a', { discard: true });
    expect(() => repo.git('rev-parse', '--verify', '--quiet', 'refs/gatefs/snapshots/a/1')).toThrow();
    await host.snapshot('b');
    await host.release('b', { discard: true, keepSnapshots: true });
    expect(repo.git('rev-parse', 'refs/gatefs/snapshots/b/1')).toMatch(/^[0-9a-f]{40}$/);
    expect(host.snapshots('b')).toHaveLength(1);
  });
});

describe('a snapshot while a process rewrites files through temp names and renames', () => {
  it('is taken (the folder read again) or refused BUSY, never a failure from a file that moved under it', async () => {
    const { host, folderOf } = await setup('worktree');
    const root = folderOf('a');
    const { spawn } = await import('node:child_process');
    const churn = spawn(
      'sh',
      ['-c', 'i=0; while [ $i -lt 4000 ]; do echo $i > t.tmp; mv t.tmp t; ln -sf t l.tmp; mv -T l.tmp link; i=$((i+1)); done'],
      {
        cwd: root,
        stdio: 'ignore',
      },
    );
    const ended = new Promise((r) => churn.on('close', r));
    cleanups.push(() => {
      churn.kill('SIGKILL');
      return ended;
    });
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++)
      outcomes.push(
        await host.snapshot('a').then(
          () => 'ok',
          (e: { code?: string }) => e.code ?? String(e),
        ),
      );
    churn.kill('SIGKILL');
    await ended;
    expect(outcomes.filter((o) => o !== 'ok' && o !== 'BUSY')).toEqual([]);
    expect(outcomes).toContain('ok');
  });
});

describe('entries a snapshot cannot hold', () => {
  it('a FIFO and a name that is not UTF-8 are counted as left out and named in the run log; a restore leaves them as they are', async () => {
    const { host, folderOf } = await setup('empty');
    const root = folderOf('a');
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(root, 'pipe')]);
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xff, 0xfe]), Buffer.from('bad')]), 'precious');
    writeFileSync(join(root, 'ok.txt'), 'fine');
    const snap = await host.snapshot('a');
    expect(snap).toMatchObject({ files: 1, skipped: 2 });
    const taken = host
      .events()
      .filter((e) => e.type === 'snapshot.taken')
      .at(-1);
    expect((taken?.data as { skipped?: string[] } | undefined)?.skipped).toHaveLength(2);
    expect(host.snapshots('a')[0]?.skipped).toBe(2);
  });
});
