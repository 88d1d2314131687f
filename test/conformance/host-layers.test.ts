/**
 * Conformance on real disk: the host layer alone and under every composition of this issue —
 * overlay(memory over host), overlay(host over host) with history, sparse(host), readOnly(host),
 * the host layer's lstat fallback walk, and its walk keeping a single folder handle. Each setup gets a fresh temp folder with an
 * outside sentinel tree.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openHostLayer } from '../../vfs/host-layer.js';
import { openHostFolder } from '../../vfs/host-folder.js';
import { withPathRules } from '../../vfs/path-rules-layer.js';
import { SENTINEL } from './fixture.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { hostFixture, hashHostTree } from './host-fixture.js';
import { LOWER_LINK_MOVES, layerSuite } from './layer-suite.js';
import { withHistory } from './overlay-history.js';
import { HIDDEN_INSIDE, disclosingLinks, fixtureVisibleSet, plantHiddenFiles } from './sparse-fixture.js';

layerSuite({
  name: 'host',
  writable: true,
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    const layer = openHostLayer(root);
    return { layer, symlinks: fx.symlinks(root), cleanup: async () => (layer.close(), fx.cleanup()) };
  },
});

layerSuite({
  name: 'host (lstat fallback walk)',
  writable: true,
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    const layer = openHostLayer(root, { forceFallback: true });
    return { layer, symlinks: fx.symlinks(root), cleanup: async () => (layer.close(), fx.cleanup()) };
  },
});

// Every return to a folder reopens it from the start folder (checked by dev/ino): the walk's
// bounded-descriptor path must give exactly what the plain one does.
layerSuite({
  name: 'host (walk keeping one folder handle)',
  writable: true,
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    const layer = openHostLayer(root, { walkHandles: { window: 1, checkpointEvery: 10_000 } });
    return { layer, symlinks: fx.symlinks(root), cleanup: async () => (layer.close(), fx.cleanup()) };
  },
});

// A folder reached from a held anchor one component at a time (how every workspace folder and
// mount is opened): the same layer as one opened by its path, in both walks.
for (const forceFallback of [false, true]) {
  layerSuite({
    name: `host opened below a held anchor (openHostFolder${forceFallback ? ', lstat fallback' : ''})`,
    writable: true,
    async setup() {
      const fx = hostFixture();
      const root = fx.folder('anchor/mounts/root', true);
      const layer = openHostFolder(root, [join(fx.base, 'anchor')], { forceFallback });
      return { layer, symlinks: fx.symlinks(root), cleanup: async () => (layer.close(), fx.cleanup()) };
    },
  });
}

// The state directory hidden inside a workspace folder (vfs/path-rules-layer.ts): planted
// with sentinel bytes, it must never show in listings, walks or reads of the rest.
layerSuite({
  name: 'pathRules(host) hiding a state folder',
  writable: true,
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    mkdirSync(join(root, '.gatefs/worktrees/other'), { recursive: true });
    writeFileSync(join(root, '.gatefs/worktrees/other/secret.txt'), SENTINEL);
    const host = openHostLayer(root);
    return {
      layer: withPathRules(host, { hidden: '.gatefs' }),
      symlinks: fx.symlinks(root),
      cleanup: async () => (host.close(), fx.cleanup()),
    };
  },
});

layerSuite({
  name: 'readOnly(host)',
  writable: false,
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    const host = openHostLayer(root);
    return {
      layer: readOnly(host),
      symlinks: fx.symlinks(root),
      backingHash: async () => hashHostTree(root),
      cleanup: async () => (host.close(), fx.cleanup()),
    };
  },
});

layerSuite({
  name: 'overlay(memory over host)',
  writable: true,
  lacks: { linkMoves: LOWER_LINK_MOVES },
  async setup() {
    const fx = hostFixture();
    const lowerDir = fx.folder('lower', true);
    const lower = openHostLayer(lowerDir);
    const layer = overlay(new MemoryLayer(), readOnly(lower));
    return { layer, symlinks: fx.symlinks(lowerDir), cleanup: async () => (lower.close(), fx.cleanup()) };
  },
});

// Only the variant with history: it runs every check of a fresh one across copy-ups and
// whiteouts too, and each setup costs a dozen fsyncs (overlay(memory over host) above covers
// an empty upper).
layerSuite({
  name: 'overlay(host over host) with history',
  writable: true,
  lacks: { linkMoves: LOWER_LINK_MOVES },
  async setup() {
    const fx = hostFixture();
    const lowerDir = fx.folder('lower', true);
    const lower = openHostLayer(lowerDir);
    const upper = openHostLayer(fx.folder('upper', false));
    const layer = await withHistory(overlay(upper, readOnly(lower)), lower);
    return { layer, symlinks: fx.symlinks(lowerDir), cleanup: async () => (lower.close(), upper.close(), fx.cleanup()) };
  },
});

layerSuite({
  name: 'readOnly(overlay(host over host)) with history',
  writable: false,
  async setup() {
    const fx = hostFixture();
    const lowerDir = fx.folder('lower', true);
    const upperDir = fx.folder('upper', false);
    const lower = openHostLayer(lowerDir);
    const upper = openHostLayer(upperDir);
    const layer = readOnly(await withHistory(overlay(upper, readOnly(lower)), lower));
    return {
      layer,
      symlinks: fx.symlinks(lowerDir),
      backingHash: async () => `${hashHostTree(lowerDir)}:${hashHostTree(upperDir)}`,
      cleanup: async () => (lower.close(), upper.close(), fx.cleanup()),
    };
  },
});

layerSuite({
  name: 'sparse(host)',
  writable: true,
  async setup() {
    const fx = hostFixture();
    const root = fx.folder('root', true);
    const inner = openHostLayer(root);
    await plantHiddenFiles(inner);
    const layer = sparse(inner, fixtureVisibleSet());
    const links = fx.symlinks(root);
    return {
      layer,
      symlinks: disclosingLinks(links, (paths) => layer.disclose(paths)),
      refusedMoves: HIDDEN_INSIDE,
      cleanup: async () => (inner.close(), fx.cleanup()),
    };
  },
});
