/**
 * Conformance of the namespace view: a Namespace whose root mount `/worktrees/conf` is one of
 * the layers, addressed through absolute namespace paths, with neighbour mounts around it
 * (another conversation's root, a `/data` mount) that must never show through. Errors must name
 * namespace paths.
 */
import type { Layer } from '../../vfs/layer.js';
import { openHostLayer } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { Namespace } from '../../vfs/namespace.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SENTINEL, hashLayer, memoryFixture } from './fixture.js';
import { hostFixture, hashHostTree } from './host-fixture.js';
import { LOWER_LINK_MOVES, layerSuite } from './layer-suite.js';
import { namespacePath, namespaceView } from './namespace-view.js';
import { memorySymlinks } from './memory-symlinks.js';
import { Volume } from 'memfs';
import { disclosingLinks, fixtureVisibleSet, plantHiddenFiles } from './sparse-fixture.js';

const ROOT = '/worktrees/conf';

/** The namespace resolves `..` and `.` as the agent grammar says: the layer bad-path step does not apply. */
const NAMESPACE_PATHS =
  'the namespace takes agent paths and resolves . and .. itself (test/vfs/path*.test.ts, test/security/a-b-paths.test.ts); ' +
  'its layers each run the step';

function namespaceOver(layer: Layer, writable: boolean) {
  const ns = new Namespace({
    root: ROOT,
    mounts: [
      { path: ROOT, layer, writable },
      { path: '/worktrees/conf-other', layer: new MemoryLayer({ files: { 'README.md': 'other conversation\n' } }), writable: true },
      { path: '/data/out', layer: new MemoryLayer({ files: { 'x.txt': 'data\n' } }), writable: true },
    ],
  });
  return { layer: namespaceView(ns), errorPath: (rel: string) => namespacePath(ns, rel), namespace: ns };
}

for (const writable of [true, false]) {
  layerSuite({
    name: `namespace(memory, ${writable ? 'writable' : 'read-only'} mount)`,
    writable,
    lacks: { badPaths: NAMESPACE_PATHS },
    async setup() {
      const volume = new Volume();
      const inner = await memoryFixture({ volume, root: '/root' });
      return {
        ...namespaceOver(inner, writable),
        symlinks: memorySymlinks(volume, '/root'),
        backingHash: () => hashLayer(inner),
        cleanup: async () => {},
      };
    },
  });
}

// Names git treats as .git, planted in the backing folder (a worktree's pointer file, a nested
// repository, NTFS and HFS+ aliases): the namespace shows exactly the fixture, never them.
layerSuite({
  name: 'namespace(host) with .git names planted',
  writable: true,
  lacks: { badPaths: NAMESPACE_PATHS },
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    writeFileSync(join(root, '.git'), `gitdir: ${fx.base}/repo/.git/worktrees/conf\n`);
    for (const name of ['src/.git', 'nest/again/.GIT', 'nest/git~1', 'src/nested/.g\u200cit']) {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, 'config'), SENTINEL);
    }
    const layer = openHostLayer(root);
    return {
      ...namespaceOver(layer, true),
      symlinks: fx.symlinks(root),
      // Both hold .git names: moving them would carry those off.
      refusedMoves: { src: 'PROTECTED_PATH', nest: 'PROTECTED_PATH' },
      cleanup: async () => (layer.close(), fx.cleanup()),
    };
  },
});

layerSuite({
  name: 'namespace(overlay(memory over host))',
  writable: true,
  lacks: { badPaths: NAMESPACE_PATHS, linkMoves: LOWER_LINK_MOVES },
  async setup() {
    const fx = hostFixture();
    const lowerDir = fx.folder('lower', true);
    const lower = openHostLayer(lowerDir);
    return {
      ...namespaceOver(overlay(new MemoryLayer(), readOnly(lower)), true),
      symlinks: fx.symlinks(lowerDir),
      cleanup: async () => (lower.close(), fx.cleanup()),
    };
  },
});

layerSuite({
  name: 'namespace(sparse(host), read-only mount)',
  writable: false,
  lacks: { badPaths: NAMESPACE_PATHS },
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    const inner = openHostLayer(root);
    await plantHiddenFiles(inner);
    const projection = sparse(inner, fixtureVisibleSet());
    const links = fx.symlinks(root);
    return {
      ...namespaceOver(projection, false),
      symlinks: disclosingLinks(links, (paths) => projection.disclose(paths)),
      backingHash: async () => hashHostTree(root),
      cleanup: async () => (inner.close(), fx.cleanup()),
    };
  },
});
