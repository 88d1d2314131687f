/**
 * The link step of the conformance suite: symbolic links followed beneath their mount
 * (vfs/link-resolution.ts), run through a namespace whose root mount is the layer under test
 * (or the target's own namespace), so the rule is proven on every stack, not only on one:
 * - `readLink` returns a link's stored text, `NOT_SYMLINK` for anything else;
 * - a link whose target stays inside the mount is followed (file, folder, chains), `..` after a
 *   link is taken physically, a final link is kept when asked (delete, move);
 * - a link climbing out, an absolute target, a loop are `SYMLINK_ESCAPE`; a path climbing above
 *   the mount root is `PATH_ESCAPE`; the outside tree never changes and its bytes never come back;
 * - a write through an in-mount link lands in its target, and the link stays a link.
 */
import { expect, it } from 'vitest';
import { isVfsError } from '../../vfs/errors.js';
import { isLinkReadingLayer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { FIXTURE_FILES, SENTINEL } from './fixture.js';
import { expectCode } from './read-checks.js';
import type { Lacks, LayerUnderTest } from './layer-suite.js';

const ROOT = '/worktrees/conf';
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** The namespace the checks resolve through, and how a layer path is named in it. */
function namespaceOf(t: LayerUnderTest, writable: boolean): { ns: Namespace; path: (rel: string) => string } {
  if (t.namespace) {
    const ns = t.namespace;
    return { ns, path: (rel) => (rel === '' ? ns.root : `${ns.root}/${rel}`) };
  }
  const ns = new Namespace({
    root: ROOT,
    mounts: [
      { path: ROOT, layer: t.layer, writable },
      // A neighbour a link must never reach.
      { path: '/worktrees/conf/inner-mount', layer: new MemoryLayer({ files: { 'n.txt': SENTINEL } }), writable: true },
    ],
  });
  return { ns, path: (rel) => (rel === '' ? ROOT : `${ROOT}/${rel}`) };
}

/** The code a promise fails with ('ok' when it does not). */
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return isVfsError(e) ? e.code : `not a VfsError: ${String(e)}`;
  }
}

/** Registers the link checks for the target (fresh setup per test). */
export function linkChecks(current: () => LayerUnderTest, lacks: Lacks, writable: boolean): void {
  const linkIt = (title: string, body: () => Promise<void>) =>
    lacks.symlinks ? it.skip(`${title} (lacks: ${lacks.symlinks})`, body) : it(title, body);

  linkIt("readLink returns a link's stored text; anything else is NOT_SYMLINK", async () => {
    const t = current();
    await t.symlinks!.innerLink('src/to-a', 'a.ts');
    if (!isLinkReadingLayer(t.layer)) {
      // A namespace view reads links only through the namespace's resolution (below).
      expect(t.namespace).toBeDefined();
      return;
    }
    const at = (rel: string) => (t.errorPath ? t.errorPath(rel) : rel);
    expect(await t.layer.readLink('src/to-a')).toBe('a.ts');
    await expectCode(t.layer.readLink('src/a.ts'), 'NOT_SYMLINK', [at('src/a.ts')]);
    await expectCode(t.layer.readLink('src'), 'NOT_SYMLINK', [at('src')]);
    await expectCode(t.layer.readLink('src/none'), 'NOT_FOUND', [at('src/none')]);
  });

  linkIt('links that stay inside the mount are followed, .. after a link is physical, a final link is kept on request', async () => {
    const t = current();
    const links = t.symlinks!;
    const { ns, path } = namespaceOf(t, writable);
    await links.innerLink('src/to-a', 'a.ts');
    await links.innerLink('linked', 'src/nested');
    await links.innerLink('deep-link', 'src/nested/deep');
    await links.innerLink('chain1', 'chain2');
    await links.innerLink('chain2', './linked/');
    const resolved = async (rel: string, followFinal = true) => (await ns.resolveLinks(path(rel), 'read', { followFinal })).path;
    expect(await resolved('src/to-a')).toBe(path('src/a.ts'));
    expect(text(await ns.readFile(await ns.resolveLinks(path('src/to-a'))))).toBe(text(FIXTURE_FILES.get('src/a.ts')!));
    expect(await resolved('linked/deep/c.txt')).toBe(path('src/nested/deep/c.txt'));
    expect(await resolved('chain1/deep/c.txt')).toBe(path('src/nested/deep/c.txt'));
    // Physically: deep-link is src/nested/deep, so ../.. is src (lexically it would climb out).
    expect(await resolved('deep-link/../../a.ts')).toBe(path('src/a.ts'));
    expect(await resolved('deep-link/../deep/c.txt')).toBe(path('src/nested/deep/c.txt'));
    expect(text(await ns.readFile(await ns.resolveLinks(path('deep-link/../../b.ts'))))).toBe('export const b = 2;\n');
    // A real folder's '..' is its parent, as before.
    expect(await resolved('src/nested/../a.ts')).toBe(path('src/a.ts'));
    expect(await resolved('src/to-a', false)).toBe(path('src/to-a'));
    expect(await resolved('linked', false)).toBe(path('linked'));
    expect(await resolved('linked/deep', false)).toBe(path('src/nested/deep'));
    expect((await ns.readdir(await ns.resolveLinks(path('linked')))).map((e) => e.name)).toEqual(['deep']);
  });

  linkIt('links leaving the mount, absolute targets and loops are SYMLINK_ESCAPE; climbing above the root is PATH_ESCAPE', async () => {
    const t = current();
    const links = t.symlinks!;
    const { ns, path } = namespaceOf(t, writable);
    await links.innerLink('up', '..');
    await links.innerLink('src/up2', '../../outside/secret.txt');
    await links.innerLink('src/sneak', '../src/../../outside/dir');
    await links.fileLink('abs');
    await links.innerLink('loop1', 'loop2');
    await links.innerLink('loop2', 'loop1');
    await links.innerLink('self', '.');
    const before = await links.outsideHash();
    const seen: string[] = [];
    for (const rel of ['up', 'up/secret.txt', 'src/up2', 'src/sneak/secret.txt', 'abs', 'loop1', 'loop2/x']) {
      let code: string;
      try {
        const r = await ns.resolveLinks(path(rel), 'read');
        code = `resolved to ${r.path}`;
        seen.push(text(await ns.readFile(r)));
      } catch (e) {
        code = isVfsError(e) ? e.code : String(e);
        seen.push(String((e as Error).message));
      }
      expect({ rel, code }).toEqual({ rel, code: 'SYMLINK_ESCAPE' });
    }
    expect(await codeOf(ns.resolveLinks(path('self/../x'), 'read'))).toBe('PATH_ESCAPE');
    expect(await codeOf(ns.resolveLinks(path('self/../../x'), 'read'))).toBe('PATH_ESCAPE');
    expect((await ns.resolveLinks(path('self/README.md'))).path).toBe(path('README.md'));
    if (!t.namespace) {
      // A link into another mount nested in this one is not followed either.
      await links.innerLink('to-mount', 'inner-mount/n.txt');
      expect(await codeOf(ns.resolveLinks(path('to-mount'), 'read'))).toBe('SYMLINK_ESCAPE');
    }
    expect(seen.join('\n')).not.toContain(SENTINEL.trim());
    expect(await links.outsideHash()).toBe(before);
  });

  const writeIt = writable ? linkIt : (title: string, body: () => Promise<void>) => it.skip(`${title} (read-only backend)`, body);
  writeIt('a write through an in-mount link lands in its target (a dangling one creates it); the link stays a link', async () => {
    const t = current();
    const links = t.symlinks!;
    const { ns, path } = namespaceOf(t, writable);
    await links.innerLink('src/to-a', 'a.ts');
    await links.innerLink('src/to-new', 'new.ts');
    await ns.writeFile(await ns.resolveLinks(path('src/to-a'), 'write'), new TextEncoder().encode('through the link\n'));
    expect(text(await t.layer.readFile('src/a.ts'))).toBe('through the link\n');
    expect((await t.layer.stat('src/to-a')).type).toBe('symlink');
    await ns.writeFile(await ns.resolveLinks(path('src/to-new'), 'write'), new TextEncoder().encode('made\n'));
    expect(text(await t.layer.readFile('src/new.ts'))).toBe('made\n');
    expect((await t.layer.stat('src/to-new')).type).toBe('symlink');
  });
}
