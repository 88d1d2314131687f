/**
 * Conformance: overlay over memory layers, in two states — a fresh overlay (the fixture all in
 * the lower) and one with history (the lower differs from the fixture, and the overlay's own
 * writes, deletes and a re-created folder bring the view back to it).
 */
import { Volume } from 'memfs';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { hashLayer, memoryFixture } from './fixture.js';
import { LOWER_LINK_MOVES, layerSuite } from './layer-suite.js';
import { memorySymlinks } from './memory-symlinks.js';
import { withHistory } from './overlay-history.js';

layerSuite({
  name: 'overlay(memory over memory)',
  writable: true,
  lacks: { linkMoves: LOWER_LINK_MOVES },
  async setup() {
    const volume = new Volume();
    const lower = await memoryFixture({ volume, root: '/lower' });
    const layer = overlay(new MemoryLayer(), readOnly(lower));
    return { layer, symlinks: memorySymlinks(volume, '/lower'), cleanup: async () => {} };
  },
});

layerSuite({
  name: 'overlay(memory over memory) with history',
  writable: true,
  lacks: { linkMoves: LOWER_LINK_MOVES },
  async setup() {
    const volume = new Volume();
    const lower = await memoryFixture({ volume, root: '/lower' });
    const upper = new MemoryLayer();
    const layer = await withHistory(overlay(upper, readOnly(lower)), lower);
    return {
      layer,
      symlinks: memorySymlinks(volume, '/lower'),
      backingHash: async () => `${await hashLayer(lower)}:${await hashLayer(upper)}`,
      cleanup: async () => {},
    };
  },
});

layerSuite({
  name: 'readOnly(overlay(memory over memory))',
  writable: false,
  async setup() {
    const volume = new Volume();
    const lower = await memoryFixture({ volume, root: '/lower' });
    const upper = new MemoryLayer();
    const layer = readOnly(await withHistory(overlay(upper, readOnly(lower)), lower));
    return {
      layer,
      symlinks: memorySymlinks(volume, '/lower'),
      backingHash: async () => `${await hashLayer(lower)}:${await hashLayer(upper)}`,
      cleanup: async () => {},
    };
  },
});
