/**
 * Conformance: the disclosure hint layer over a sparse projection of memory layers, run
 * through the shared layer suite (as `sparse(memory)` is), so the wrapper keeps every rule of a
 * layer. The hints vouch for one hidden file the suite never names; a second block checks
 * what the hints change for it.
 */
import { Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { withDisclosureHints } from '../../vfs/disclosure-hint-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse, type SparseProjection } from '../../vfs/sparse-layer.js';
import { hashLayer, memoryFixture } from '../conformance/fixture.js';
import { layerSuite } from '../conformance/layer-suite.js';
import { memorySymlinks } from '../conformance/memory-symlinks.js';
import { HIDDEN_INSIDE, disclosingLinks, fixtureVisibleSet, plantHiddenFiles } from '../conformance/sparse-fixture.js';

const HINTED = 'private/notes.md';

async function build(writable: boolean, changes: string[][] = []) {
  const volume = new Volume();
  const inner = await memoryFixture({ volume, root: '/inner' });
  await plantHiddenFiles(inner);
  const projection = sparse(writable ? inner : readOnly(inner), fixtureVisibleSet());
  const layer = withDisclosureHints(projection, {
    isUndisclosed: async (path) => path === HINTED && !projection.isVisible(path),
    onVisibleChange: (p: SparseProjection) => void changes.push(p.visiblePaths()),
  });
  return { volume, inner, projection, layer };
}

for (const writable of [true, false]) {
  layerSuite({
    name: writable ? 'hinted(sparse(memory))' : 'hinted(sparse(readOnly(memory)))',
    writable,
    async setup() {
      const { volume, inner, projection, layer } = await build(writable);
      const links = memorySymlinks(volume, '/inner');
      return {
        layer,
        symlinks: disclosingLinks(links, (paths) => projection.disclose(paths)),
        backingHash: () => hashLayer(inner),
        refusedMoves: HIDDEN_INSIDE,
        cleanup: async () => {},
      };
    },
  });
}

describe('disclosure hints', () => {
  it('turns NOT_FOUND into NOT_DISCLOSED only where the hints vouch, and refuses to overwrite', async () => {
    const { layer, inner } = await build(true);
    await expect(layer.readFile(HINTED)).rejects.toMatchObject({ code: 'NOT_DISCLOSED', path: HINTED });
    await expect(layer.stat(HINTED)).rejects.toMatchObject({ code: 'NOT_DISCLOSED' });
    await expect(layer.readFile('secret/key.pem')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(layer.readFile('private/absent.md')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const before = await hashLayer(inner);
    await expect(layer.writeFile(HINTED, new TextEncoder().encode('x'))).rejects.toMatchObject({ code: 'NOT_DISCLOSED' });
    expect(await hashLayer(inner)).toBe(before);
  });

  it('reports visible-set changes from creates and removes, not from plain rewrites', async () => {
    const changes: string[][] = [];
    const { layer } = await build(true, changes);
    await layer.writeFile('src/a.ts', new TextEncoder().encode('rewritten'));
    expect(changes).toHaveLength(0);
    await layer.writeFile('src/new.ts', new TextEncoder().encode('n'));
    expect(changes.at(-1)).toContain('src/new.ts');
    await layer.remove('src/new.ts');
    expect(changes.at(-1)).not.toContain('src/new.ts');
  });
});
