/**
 * The write policy of the host layer (`HostLayerOptions.fsync`) and of a disk host (the
 * manifest's `writes: { fsync }`): which changes reach stable storage before they are reported
 * done. A power loss cannot be staged in a test, so this counts the fsync(2) and fdatasync(2)
 * calls node:fs makes on the way, and checks what every policy keeps: the bytes a reader sees.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const syncs = vi.hoisted(() => ({ fsync: 0, fdatasync: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const fsyncSync = (fd: number) => {
    syncs.fsync++;
    return real.fsyncSync(fd);
  };
  const fdatasyncSync = (fd: number) => {
    syncs.fdatasync++;
    return real.fdatasyncSync(fd);
  };
  // isomorphic-git probes `_original_unwrapped_fs` on the fs it is given (the module namespace
  // here); vitest's mock answers an export it lacks with an error, so the probe gets one.
  return { ...real, _original_unwrapped_fs: undefined, default: { ...real, fsyncSync, fdatasyncSync }, fsyncSync, fdatasyncSync };
});

const { openHostLayer } = await import('../../vfs/host-layer.js');
const { createHost } = await import('../../src/host/composition/create-host.js');
const { makeTempRepo } = await import('../host/temp-repo.js');

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const counted = () => ({ ...syncs });

let base: string;
beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'gatefs-fsync-'));
  fs.mkdirSync(path.join(base, 'd'));
  fs.writeFileSync(path.join(base, 'd/old.txt'), 'old');
  syncs.fsync = 0;
  syncs.fdatasync = 0;
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

describe('the host layer write policy', () => {
  it('fsync: true (the layer default) syncs the new file before the rename and its folder after every change', async () => {
    const layer = openHostLayer(base);
    try {
      await layer.writeFile('d/old.txt', bytes('new'));
      expect(counted()).toEqual({ fdatasync: 1, fsync: 1 });
      await layer.mkdir('d/sub');
      await layer.rename('d/old.txt', 'd/sub/moved.txt');
      await layer.remove('d/sub/moved.txt');
      // mkdir: the parent; rename: both parents; remove: the parent.
      expect(counted()).toEqual({ fdatasync: 1, fsync: 5 });
    } finally {
      layer.close();
    }
  });

  it('fsync: false syncs nothing and still replaces atomically: a reader sees the old or the new bytes', async () => {
    const layer = openHostLayer(base, { fsync: false });
    try {
      const before = fs.statSync(path.join(base, 'd/old.txt')).ino;
      await layer.writeFile('d/old.txt', bytes('replaced'));
      await layer.writeFile('d/made.txt', bytes('made'), { exclusive: true });
      await layer.mkdir('d/sub');
      await layer.rename('d/made.txt', 'd/sub/made.txt');
      await layer.remove('d/sub/made.txt');
      expect(counted()).toEqual({ fdatasync: 0, fsync: 0 });
      // A new inode under the name: the old file was never written in place.
      expect(fs.statSync(path.join(base, 'd/old.txt')).ino).not.toBe(before);
      expect(text(await layer.readFile('d/old.txt'))).toBe('replaced');
      expect(fs.readdirSync(path.join(base, 'd')).sort()).toEqual(['old.txt', 'sub']);
    } finally {
      layer.close();
    }
  });

  it('a write asked not to be durable is never synced, whatever the policy', async () => {
    const layer = openHostLayer(base);
    try {
      await layer.writeFile('d/checked-out.txt', bytes('from git'), { durable: false });
      expect(counted()).toEqual({ fdatasync: 0, fsync: 0 });
      expect(fs.readFileSync(path.join(base, 'd/checked-out.txt'), 'utf8')).toBe('from git');
    } finally {
      layer.close();
    }
  });
});

describe('the disk host write policy (manifest writes: { fsync })', () => {
  const role = { name: 'agent', tools: ['read', 'write', 'edit'], workspace: { backend: 'worktree' } };

  it.each([
    { manifest: { roles: [role] }, synced: false, what: 'no writes key: no fsync (the default)' },
    { manifest: { roles: [role], writes: { fsync: false } }, synced: false, what: 'fsync: false' },
    { manifest: { roles: [role], writes: { fsync: true } }, synced: true, what: 'fsync: true' },
  ])('$what', async ({ manifest, synced }) => {
    const repo = makeTempRepo({ 'README.md': '# r\n' });
    const host = await createHost({ repo: repo.dir, manifest });
    try {
      await host.prepare({ conversation: 'c' });
      syncs.fsync = 0;
      syncs.fdatasync = 0;
      const written = await host.gate.call('c', 'write', { path: 'notes.md', content: 'one\n' });
      expect(written).toMatchObject({ ok: true });
      const edited = await host.gate.call('c', 'edit', { path: 'notes.md', oldString: 'one', newString: 'two' });
      expect(edited).toMatchObject({ ok: true });
      // What was reported ok is in the file, under every policy.
      expect(fs.readFileSync(path.join(repo.dir, '.gatefs/worktrees/c/notes.md'), 'utf8')).toBe('two\n');
      const fileSyncs = syncs.fdatasync;
      if (synced) expect(fileSyncs).toBe(2);
      else expect(fileSyncs).toBe(0);
    } finally {
      await host.close();
      repo.cleanup();
    }
  });
});
