/** Conformance: the memfs-backed MemoryLayer, and readOnly() over it. */
import { Volume } from 'memfs';
import { readOnly } from '../../vfs/read-only-layer.js';
import { memoryFixture } from './fixture.js';
import { layerSuite } from './layer-suite.js';
import { memorySymlinks } from './memory-symlinks.js';

layerSuite({
  name: 'memory',
  writable: true,
  async setup() {
    const volume = new Volume();
    const layer = await memoryFixture({ volume, root: '/layer' });
    return { layer, symlinks: memorySymlinks(volume, '/layer'), cleanup: async () => {} };
  },
});

layerSuite({
  name: 'readOnly(memory)',
  writable: false,
  async setup() {
    const volume = new Volume();
    const inner = await memoryFixture({ volume, root: '/layer' });
    return { layer: readOnly(inner), symlinks: memorySymlinks(volume, '/layer'), cleanup: async () => {} };
  },
});
