/**
 * Conformance: sparse projections over memory layers. The inner layer holds the fixture plus
 * hidden files beside and inside it; the visible set is exactly the fixture, so the suite's
 * "nothing extra" listing checks prove the hidden files never show.
 */
import { Volume } from 'memfs';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { hashLayer, memoryFixture } from './fixture.js';
import { layerSuite } from './layer-suite.js';
import { memorySymlinks } from './memory-symlinks.js';
import { HIDDEN_INSIDE, disclosingLinks, fixtureVisibleSet, plantHiddenFiles } from './sparse-fixture.js';

for (const writable of [true, false]) {
  layerSuite({
    name: writable ? 'sparse(memory)' : 'sparse(readOnly(memory))',
    writable,
    async setup() {
      const volume = new Volume();
      const inner = await memoryFixture({ volume, root: '/inner' });
      await plantHiddenFiles(inner);
      const layer = sparse(writable ? inner : readOnly(inner), fixtureVisibleSet());
      const links = memorySymlinks(volume, '/inner');
      return {
        layer,
        symlinks: disclosingLinks(links, (paths) => layer.disclose(paths)),
        backingHash: () => hashLayer(inner),
        refusedMoves: HIDDEN_INSIDE,
        cleanup: async () => {},
      };
    },
  });
}
