import * as fs from 'node:fs';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IsoObjectReader } from '../../src/git/iso-object-reader.js';
import { GitTreeLayer } from '../../vfs/git-tree-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import type { GitObjectReader } from '../../vfs/git-object-reader.js';
import { makeTempRepo, type TempRepo } from '../host/temp-repo.js';

const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.cleanup()));

function setup() {
  const repo = makeTempRepo({ 'README.md': '# r\n', 'src/a.ts': 'A\n', 'src/deep/b.ts': 'BB\n', '.campaign/plan.md': 'plan v1\n' });
  repos.push(repo);
  symlinkSync('../README.md', join(repo.dir, 'src/link'));
  fs.chmodSync(join(repo.dir, 'src/a.ts'), 0o755);
  const sha = repo.commit('with link');
  const reader = new IsoObjectReader({ fs, gitdir: join(repo.dir, '.git') });
  return { repo, sha, reader };
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('GitTreeLayer', () => {
  it('serves a commit tree: stat, readdir and readFile, links reported and never followed', async () => {
    const { sha, reader } = setup();
    const layer = new GitTreeLayer(reader, sha);
    expect(await layer.readdir('')).toEqual([
      { name: '.campaign', type: 'directory' },
      { name: 'README.md', type: 'file' },
      { name: 'src', type: 'directory' },
    ]);
    expect(await layer.readdir('src')).toEqual([
      { name: 'a.ts', type: 'file' },
      { name: 'deep', type: 'directory' },
      { name: 'link', type: 'symlink' },
    ]);
    expect(text(await layer.readFile('src/deep/b.ts'))).toBe('BB\n');
    expect(await layer.stat('src/deep/b.ts')).toMatchObject({ type: 'file', size: 3, mode: 0o644 });
    expect(await layer.stat('src/a.ts')).toMatchObject({ mode: 0o755 });
    await expect(layer.readFile('src/link')).rejects.toMatchObject({ code: 'SYMLINK_ESCAPE' });
    await expect(layer.readFile('src/link/x')).rejects.toMatchObject({ code: 'SYMLINK_ESCAPE' });
    await expect(layer.readFile('src')).rejects.toMatchObject({ code: 'IS_DIRECTORY' });
    await expect(layer.readdir('README.md')).rejects.toMatchObject({ code: 'NOT_DIRECTORY' });
    await expect(layer.readFile('README.md/x')).rejects.toMatchObject({ code: 'NOT_DIRECTORY' });
    await expect(layer.readFile('missing')).rejects.toMatchObject({ code: 'NOT_FOUND', path: 'missing' });
    await expect(layer.readFile('src/deep/b.ts', { maxBytes: 2 })).rejects.toMatchObject({ code: 'TOO_LARGE' });
  });

  it('reads a committed link target, and a namespace over it follows the link while it stays inside', async () => {
    const { sha, reader } = setup();
    const layer = new GitTreeLayer(reader, sha);
    expect(await layer.readLink('src/link')).toBe('../README.md');
    await expect(layer.readLink('src/a.ts')).rejects.toMatchObject({ code: 'NOT_SYMLINK' });
    await expect(layer.readLink('src/none')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const ns = new Namespace({ root: '/worktrees/g', mounts: [{ path: '/worktrees/g', layer, writable: false }] });
    const r = await ns.resolveLinks('src/link');
    expect(r.path).toBe('/worktrees/g/README.md');
    expect(text(await ns.readFile(r))).toBe('# r\n');
    // Rooted at src/, the same link climbs out of the mount.
    const sub = new Namespace({
      root: '/worktrees/s',
      mounts: [{ path: '/worktrees/s', layer: new GitTreeLayer(reader, sha, 'src'), writable: false }],
    });
    await expect(sub.resolveLinks('link')).rejects.toMatchObject({ code: 'SYMLINK_ESCAPE' });
  });

  it('stays on the pinned commit while the branch moves, and can be rooted at a sub-folder', async () => {
    const { repo, sha, reader } = setup();
    repo.write({ '.campaign/plan.md': 'plan v2\n' });
    repo.commit('moves');
    const campaign = new GitTreeLayer(reader, sha, '.campaign');
    expect(text(await campaign.readFile('plan.md'))).toBe('plan v1\n');
    expect(await campaign.readdir('')).toEqual([{ name: 'plan.md', type: 'file' }]);
    const missing = new GitTreeLayer(reader, sha, 'nope');
    await expect(missing.readdir('')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is O(1) to create: nothing is read before the first call', async () => {
    let reads = 0;
    const { sha, reader } = setup();
    const counting: GitObjectReader = {
      commitTree: (c) => (reads++, reader.commitTree(c)),
      readTree: (t) => (reads++, reader.readTree(t)),
      readBlob: (b) => (reads++, reader.readBlob(b)),
    };
    const layers = Array.from({ length: 1000 }, () => new GitTreeLayer(counting, sha));
    expect(reads).toBe(0);
    await layers[0].readFile('README.md');
    expect(reads).toBe(3);
  });

  it('has no writing extension', () => {
    const layer = new GitTreeLayer({} as GitObjectReader, 'x') as unknown as Record<string, unknown>;
    expect(layer.writeFile).toBeUndefined();
  });
});
