import { describe, expect, it } from 'vitest';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { MountTable, type Mount } from '../../vfs/mount-table.js';
import { Namespace } from '../../vfs/namespace.js';
import { readOnly } from '../../vfs/read-only-layer.js';

const mount = (path: string, writable = true): Mount => ({ path, layer: new MemoryLayer(), writable });

describe('MountTable', () => {
  const table = new MountTable([
    mount('/worktrees/a'),
    mount('/worktrees/a/.campaign', false),
    mount('/docs'),
    mount('/docs-extra'),
    mount('/data/out/deep'),
  ]);

  it('matches by whole segments, longest mount first', () => {
    expect(table.find('/worktrees/a/src/f.ts')).toMatchObject({ mount: { path: '/worktrees/a' }, rel: 'src/f.ts' });
    expect(table.find('/worktrees/a/.campaign/plan.md')).toMatchObject({ mount: { path: '/worktrees/a/.campaign' }, rel: 'plan.md' });
    expect(table.find('/worktrees/a/.campaign')).toMatchObject({ mount: { path: '/worktrees/a/.campaign' }, rel: '' });
    expect(table.find('/worktrees/a/.campaigns/x')).toMatchObject({ mount: { path: '/worktrees/a' }, rel: '.campaigns/x' });
    expect(table.find('/docs-extra/x')).toMatchObject({ mount: { path: '/docs-extra' }, rel: 'x' });
    expect(table.find('/docs/x')).toMatchObject({ mount: { path: '/docs' }, rel: 'x' });
    expect(table.find('/data/out/deep/a/b/c/d/e')).toMatchObject({ mount: { path: '/data/out/deep' }, rel: 'a/b/c/d/e' });
  });

  it('serves nothing for look-alike prefixes, parents of mounts, or the root', () => {
    for (const p of ['/docsx', '/doc', '/docs-extr/x', '/worktrees/ab/x', '/worktrees', '/', '/data/out', '/data/out/deeper', '/Docs/x']) {
      expect(table.find(p)).toBeUndefined();
      expect(table.isInside(p)).toBe(false);
    }
  });

  it('lists the mount points and the folders leading to them, sorted', () => {
    expect(table.entriesBelow('/')).toEqual([
      { name: 'data', type: 'directory' },
      { name: 'docs', type: 'directory' },
      { name: 'docs-extra', type: 'directory' },
      { name: 'worktrees', type: 'directory' },
    ]);
    expect(table.entriesBelow('/worktrees/a')).toEqual([{ name: '.campaign', type: 'directory' }]);
    expect(table.entriesBelow('/data/out')).toEqual([{ name: 'deep', type: 'directory' }]);
    expect(table.entriesBelow('/docs')).toEqual([]);
  });

  it('refuses a second mount at the same point, a mount at /, and a malformed mount path', () => {
    expect(() => new MountTable([mount('/docs'), mount('/docs/')])).toThrow(expect.objectContaining({ code: 'ALREADY_EXISTS' }));
    expect(() => new MountTable([mount('/')])).toThrow(expect.objectContaining({ code: 'BAD_NAME' }));
    expect(() => new MountTable([mount('/a\u0000b')])).toThrow(expect.objectContaining({ code: 'BAD_NAME' }));
    expect(new MountTable([mount('/x/./y//')]).list().map((m) => m.path)).toEqual(['/x/y']);
  });
});

describe('write flags by mount identity', () => {
  it('keeps a read-only mount read-only when reached through a writable one, for every write', async () => {
    const campaign = new MemoryLayer({ files: { 'plan.md': 'plan' } });
    const ns = new Namespace({
      root: '/worktrees/a',
      mounts: [
        { path: '/worktrees/a', layer: new MemoryLayer({ files: { 'f.ts': 'f' } }), writable: true },
        // A writable layer under a read-only flag: the flag, not the layer, decides.
        { path: '/worktrees/a/.campaign', layer: campaign, writable: false },
        { path: '/docs', layer: readOnly(new MemoryLayer({ files: { 'g.md': 'g' } })), writable: true },
      ],
    });
    const bytes = new Uint8Array([1]);
    for (const call of [
      () => ns.writeFile('.campaign/plan.md', bytes),
      () => ns.writeFile('.campaign/new/x.md', bytes, { createParents: true }),
      () => ns.writeFile('./src/../.campaign/plan.md', bytes),
      () => ns.mkdir('.campaign/d'),
      () => ns.remove('.campaign/plan.md'),
      () => ns.remove('.campaign'),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'READ_ONLY' });
    }
    expect(await campaign.readdir('')).toEqual([{ name: 'plan.md', type: 'file' }]);
    expect(new TextDecoder().decode(await campaign.readFile('plan.md'))).toBe('plan');
    await expect(ns.writeFile('/docs/g.md', bytes)).rejects.toMatchObject({ code: 'READ_ONLY', path: '/docs/g.md' });
  });
});
