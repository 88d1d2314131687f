/**
 * Snapshots and restores under SIGKILL: the operation runs in a real child process that kills
 * itself at each save point (`SNAPSHOT_SAVE_POINTS`). After the kill and a new host, the workspace
 * holds either the old state or the new one, never a mix: a snapshot cut short is no snapshot (the
 * workspace untouched, the next one takes its number); a restore cut short after its journal is
 * finished by the next host, and the state before it is still a snapshot that brings it back.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/composition/create-host.js';
import { SNAPSHOT_SAVE_POINTS } from '../../src/host/snapshots/snapshot-parts.js';
import { runChildScript } from './run-child-script.js';
import { makeTempRepo } from './temp-repo.js';

/** What a test undoes when it ends (the tests of this file run at once, each with its own repository). */
type Cleanup = (fn: () => unknown) => void;

const manifestOf = (backend: string) => ({ roles: [{ name: 'r', tools: ['read', 'write'], workspace: { backend } }] });

/** Everything below `root` but `.git`: type, bytes or target, and mode, by path. */
function stateOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      if (name === '.git') continue;
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, path));
      const mode = (st.mode & 0o777).toString(8);
      if (st.isSymbolicLink()) out[path] = `link ${readlinkSync(join(root, path))}`;
      else if (st.isDirectory()) {
        out[path] = `dir ${mode}`;
        walk(path);
      } else out[path] = `file ${mode} ${readFileSync(join(root, path), 'utf8')}`;
    }
  };
  walk('');
  return out;
}

function write(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A workspace holding state A as snapshot 1, then changed to state B; the host closed again. */
async function prepared(backend: 'worktree' | 'copy' | 'empty', cleanup: Cleanup) {
  const repo = makeTempRepo({ 'README.md': '# demo\n', 'keep.txt': 'kept\n', 'd/x.txt': 'x\n' });
  cleanup(() => repo.cleanup());
  const manifest = manifestOf(backend);
  const area = backend === 'worktree' ? 'worktrees' : backend === 'copy' ? 'copies' : 'scratch';
  const root = join(repo.dir, '.gatefs', area, 'a');
  const host = await createHost({ repo: repo.dir, manifest });
  await host.prepare({ conversation: 'a' });
  // State A: many files, so a restore is cut in the middle of its writes.
  const many: Record<string, string> = {};
  for (let i = 0; i < 30; i++) many[`gen/f${i}.txt`] = `A ${i}\n`;
  write(root, { ...many, 'mode.sh': '#!/bin/sh\n', 'empty-dir/.keep-no': 'x' });
  rmSync(join(root, 'empty-dir/.keep-no'));
  chmodSync(join(root, 'mode.sh'), 0o755);
  symlinkSync('keep.txt', join(root, 'link'));
  await host.snapshot('a');
  const stateA = stateOf(root);
  // State B: every generated file changed, some gone, new ones, a link now a file, the folder removed.
  for (let i = 0; i < 30; i++) if (i % 3 === 0) rmSync(join(root, `gen/f${i}.txt`));
  for (let i = 0; i < 30; i++) if (i % 3 !== 0) writeFileSync(join(root, `gen/f${i}.txt`), `B ${i}\n`);
  write(root, { 'new/b.txt': 'only in B\n' });
  rmSync(join(root, 'link'));
  writeFileSync(join(root, 'link'), 'a file now\n');
  rmSync(join(root, 'empty-dir'), { recursive: true });
  chmodSync(join(root, 'mode.sh'), 0o644);
  const stateB = stateOf(root);
  await host.close();
  return { repo: repo.dir, manifest, root, stateA, stateB };
}

/** Runs one snapshot or restore in a child process. */
const runChild = (input: object) => runChildScript('snapshot-child.ts', input);

// Each test waits on child processes and git, so the tests of this file run at once.
describe.concurrent.each(['worktree', 'copy', 'empty'] as const)('a %s workspace', (backend) => {
  it('a snapshot killed before its record is no snapshot: the workspace is untouched and the next snapshot takes its number', async ({
    onTestFinished,
  }) => {
    const p = await prepared(backend, (fn) => onTestFinished(async () => void (await fn())));
    const run = await runChild({ repo: p.repo, manifest: p.manifest, conversation: 'a', op: 'snapshot', crashAt: 'snapshot.objects' });
    expect(run.signal, run.stderr).toBe('SIGKILL');
    const host = await createHost({ repo: p.repo, manifest: p.manifest });
    onTestFinished(() => host.close());
    expect(stateOf(p.root)).toEqual(p.stateB);
    expect(host.snapshots('a').map((s) => s.snapshotId)).toEqual(['1']);
    expect((await host.snapshot('a')).snapshotId).toBe('2');
    await host.restore('a', '1');
    expect(stateOf(p.root)).toEqual(p.stateA);
    await host.restore('a', '2');
    expect(stateOf(p.root)).toEqual(p.stateB);
  }, 60_000);

  it.for(SNAPSHOT_SAVE_POINTS.filter((p) => p.startsWith('restore.')))(
    'a restore killed at %s is finished by the next host; the state before it is snapshot 2',
    { timeout: 60_000 },
    async (crashAt, { onTestFinished }) => {
      const p = await prepared(backend, (fn) => onTestFinished(async () => void (await fn())));
      const run = await runChild({ repo: p.repo, manifest: p.manifest, conversation: 'a', op: 'restore', snapshotId: '1', crashAt });
      expect(run.signal, run.stderr).toBe('SIGKILL');
      const host = await createHost({ repo: p.repo, manifest: p.manifest });
      onTestFinished(() => host.close());
      expect(stateOf(p.root)).toEqual(p.stateA);
      expect(
        host
          .events()
          .filter((e) => e.type === 'snapshot.restored')
          .at(-1)?.data,
      ).toMatchObject({ snapshot: 1, resumed: true });
      expect(host.snapshots('a').map((s) => [s.snapshotId, s.reason])).toEqual([
        ['1', 'manual'],
        ['2', 'restore'],
      ]);
      await host.restore('a', '2');
      expect(stateOf(p.root)).toEqual(p.stateB);
    },
  );

  it.runIf(backend === 'worktree')(
    'a restore killed before its journal leaves the old state; the next host has nothing to finish',
    async ({ onTestFinished }) => {
      const p = await prepared(backend, (fn) => onTestFinished(async () => void (await fn())));
      const run = await runChild({
        repo: p.repo,
        manifest: p.manifest,
        conversation: 'a',
        op: 'restore',
        snapshotId: '1',
        crashAt: 'snapshot.objects',
      });
      expect(run.signal, run.stderr).toBe('SIGKILL');
      const host = await createHost({ repo: p.repo, manifest: p.manifest });
      onTestFinished(() => host.close());
      expect(stateOf(p.root)).toEqual(p.stateB);
      expect(host.snapshots('a').map((s) => s.snapshotId)).toEqual(['1']);
    },
    60_000,
  );
});

describe('two processes', () => {
  it('taking a snapshot of one conversation at once all succeed, numbered one after the other', async ({ onTestFinished }) => {
    const p = await prepared('worktree', (fn) => onTestFinished(async () => void (await fn())));
    // Each child opens its host, then all three snapshot at the same instant.
    const input = { repo: p.repo, manifest: p.manifest, conversation: 'a', op: 'snapshot', startAt: Date.now() + 8000 };
    const runs = await Promise.all([runChild(input), runChild(input), runChild(input)]);
    const ids = runs.map((r) => (JSON.parse(r.stdout.trim()) as { out?: { snapshotId: string } }).out?.snapshotId).sort();
    expect(ids, runs.map((r) => r.stdout + r.stderr).join('\n')).toEqual(['2', '3', '4']);
    const host = await createHost({ repo: p.repo, manifest: p.manifest });
    onTestFinished(() => host.close());
    for (const id of ids) {
      await host.restore('a', id!);
      expect(stateOf(p.root)).toEqual(p.stateB);
    }
  }, 60_000);
});

describe('a restore the next host cannot finish', () => {
  it('(its snapshot objects gone) is named by recover.failed; the host still opens and serves; the journal stays for the next start', async ({
    onTestFinished,
  }) => {
    const p = await prepared('empty', (fn) => onTestFinished(async () => void (await fn())));
    const run = await runChild({
      repo: p.repo,
      manifest: p.manifest,
      conversation: 'a',
      op: 'restore',
      snapshotId: '1',
      crashAt: 'restore.journaled',
    });
    expect(run.signal, run.stderr).toBe('SIGKILL');
    rmSync(join(p.repo, '.gatefs/snapshots/objects'), { recursive: true, force: true });
    const host = await createHost({ repo: p.repo, manifest: p.manifest });
    onTestFinished(() => host.close());
    const failed = host.events().filter((e) => e.type === 'recover.failed' && e.conversation === 'a');
    expect(failed.at(-1)?.data).toMatchObject({ message: expect.stringContaining('restore of snapshot 1 not finished') });
    expect(stateOf(p.root)).toEqual(p.stateB); // nothing was changed before the journal's first removal
    expect(await host.gate.call('a', 'read', { path: 'mode.sh' })).toMatchObject({ ok: true });
    await host.close();
    const again = await createHost({ repo: p.repo, manifest: p.manifest });
    onTestFinished(() => again.close());
    expect(again.events().filter((e) => e.type === 'recover.failed' && e.conversation === 'a')).toHaveLength(2);
  }, 60_000);
});
