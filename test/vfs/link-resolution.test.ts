/**
 * `Namespace.resolveLinks` (vfs/link-resolution.ts) on memory layers: the hop limit, lengths
 * after splicing, nested mounts on either side of a link, names never looked into, layers that
 * read no links, and what is kept or followed at the end.
 */
import { describe, expect, it } from 'vitest';
import { isVfsError } from '../../vfs/errors.js';
import type { Layer } from '../../vfs/layer.js';
import { MAX_LINK_HOPS } from '../../vfs/link-resolution.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';

function world() {
  const root = new MemoryLayer({ root: '/ws', files: { 'a.txt': 'a\n', 'src/b.ts': 'b\n', 'f.txt': 'f\n' } });
  const nested = new MemoryLayer({ root: '/nested', volume: root.volume, files: { 'n.txt': 'n\n', 'sub/s.txt': 's\n' } });
  root.volume.mkdirSync('/outside');
  root.volume.writeFileSync('/outside/secret.txt', 'SENTINEL');
  const ns = new Namespace({
    root: '/worktrees/a',
    mounts: [
      { path: '/worktrees/a', layer: root, writable: true },
      { path: '/worktrees/a/m', layer: nested, writable: true },
      { path: '/data/out', layer: new MemoryLayer({ files: { 'o.txt': 'o\n' } }), writable: true },
    ],
  });
  const link = (at: string, target: string) => root.volume.symlinkSync(target, at);
  return { ns, root, link };
}

async function outcome(p: Promise<{ path: string }>): Promise<string> {
  try {
    return (await p).path;
  } catch (e) {
    return isVfsError(e) ? e.code : String(e);
  }
}

describe('resolveLinks', () => {
  it(`follows a chain of ${MAX_LINK_HOPS} links and refuses one more`, async () => {
    const { ns, link } = world();
    for (let i = 0; i < MAX_LINK_HOPS + 1; i++) link(`/ws/l${i}`, i === MAX_LINK_HOPS ? 'a.txt' : `l${i + 1}`);
    expect(await outcome(ns.resolveLinks('l1'))).toBe('/worktrees/a/a.txt');
    expect(await outcome(ns.resolveLinks('l0'))).toBe('SYMLINK_ESCAPE');
    link('/ws/self', 'self');
    expect(await outcome(ns.resolveLinks('self/x'))).toBe('SYMLINK_ESCAPE');
  });

  it('keeps the final link only when asked, and follows every link on the way', async () => {
    const { ns, link } = world();
    link('/ws/lnk', 'src');
    link('/ws/src/to-b', 'b.ts');
    expect(await outcome(ns.resolveLinks('lnk/to-b', 'x', { followFinal: false }))).toBe('/worktrees/a/src/to-b');
    expect(await outcome(ns.resolveLinks('lnk/to-b'))).toBe('/worktrees/a/src/b.ts');
    expect(await outcome(ns.resolveLinks('src/../lnk/to-b'))).toBe('/worktrees/a/src/b.ts');
    expect(await outcome(ns.resolveLinks('lnk/missing/deeper'))).toBe('/worktrees/a/src/missing/deeper');
    // A missing name or a file followed by '..' is taken lexically (it is no link).
    expect(await outcome(ns.resolveLinks('missing/../a.txt'))).toBe('/worktrees/a/a.txt');
    expect(await outcome(ns.resolveLinks('a.txt/../f.txt'))).toBe('/worktrees/a/f.txt');
  });

  it('never leaves a mount through a link, in either direction; an agent .. between mounts is the grammar as before', async () => {
    const { ns, root, link } = world();
    link('/ws/into-nested', 'm/n.txt');
    link('/ws/into-data', '../../data/out/o.txt');
    root.volume.symlinkSync('../f.txt', '/nested/up');
    root.volume.symlinkSync('sub', '/nested/down');
    expect(await outcome(ns.resolveLinks('into-nested'))).toBe('SYMLINK_ESCAPE');
    expect(await outcome(ns.resolveLinks('into-data'))).toBe('SYMLINK_ESCAPE');
    expect(await outcome(ns.resolveLinks('m/up'))).toBe('SYMLINK_ESCAPE');
    expect(await outcome(ns.resolveLinks('m/down/s.txt'))).toBe('/worktrees/a/m/sub/s.txt');
    expect(await outcome(ns.resolveLinks('m/down/../../f.txt'))).toBe('/worktrees/a/f.txt');
    expect(await outcome(ns.resolveLinks('m/../f.txt'))).toBe('/worktrees/a/f.txt');
    expect(await outcome(ns.resolveLinks('/data/out/../../worktrees/a/f.txt'))).toBe('PATH_ESCAPE');
    expect(await outcome(ns.resolveLinks('/data'))).toBe('/data');
  });

  it('refuses a path made too long by a link, and absolute or odd targets, naming the link, never its text', async () => {
    const { ns, link } = world();
    link('/ws/long', Array.from({ length: 17 }, () => 'd'.repeat(250)).join('/'));
    link('/ws/abs', '/outside/secret.txt');
    link('/ws/up', '../outside/secret.txt');
    expect(await outcome(ns.resolveLinks('long/x'))).toBe('NAME_TOO_LONG');
    for (const p of ['abs', 'up']) {
      const e = await ns.resolveLinks(p).catch((err: unknown) => err);
      expect(isVfsError(e) && { code: e.code, path: e.path }).toEqual({ code: 'SYMLINK_ESCAPE', path: `/worktrees/a/${p}` });
      expect(String((e as Error).message)).not.toContain('outside');
    }
  });

  it('never looks into a .git name, and a layer that reads no links never has one followed', async () => {
    const { ns, link } = world();
    link('/ws/.git', '/outside');
    expect(await outcome(ns.resolveLinks('.git/secret.txt'))).toBe('/worktrees/a/.git/secret.txt');
    await expect(ns.readFile('.git/secret.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const linkOnly: Layer = {
      kind: 'links-unread',
      stat: async () => ({ type: 'symlink', size: 3, mode: 0o777, mtimeMs: 0 }),
      readFile: async () => new Uint8Array(),
      readdir: async () => [],
    };
    const plain = new Namespace({ root: '/worktrees/b', mounts: [{ path: '/worktrees/b', layer: linkOnly, writable: false }] });
    expect(await outcome(plain.resolveLinks('x'))).toBe('SYMLINK_ESCAPE');
    expect(await outcome(plain.resolveLinks('x', 'delete', { followFinal: false }))).toBe('/worktrees/b/x');
  });
});
