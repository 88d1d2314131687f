/**
 * Fault injection (./fault-matrix.ts) on every stack that passes operations down to a store:
 * the overlay (with history, over memory, and over a pinned commit's tree as the `copy`
 * backend serves it), the sparse projection, the read-only wrapper, the path-rules layer and
 * the disclosure-hint stack. Stores are memory layers and a memory git repository, so every
 * call index can be tried in a few seconds; the disk stacks run the same layers (./served-stacks.test.ts).
 */
import { Volume } from 'memfs';
import { beforeAll } from 'vitest';
import { withPathRules } from '../../vfs/path-rules-layer.js';
import { MemoryGit } from '../../src/git/memory-git.js';
import { seedMemoryRepository } from '../../src/host/memory/memory-repository.js';
import { ManualClock } from '../../src/ports/clock.js';
import { ManualLiveness } from '../../src/ports/process-liveness.js';
import { StateStore } from '../../src/state/store.js';
import { gitTreeLayer } from '../../vfs/git-tree-layer.js';
import type { WritableLayer } from '../../vfs/layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { sparse } from '../../vfs/sparse-layer.js';
import { disclosureStack, pinnedFiles } from './disclosure-stack.js';
import { FIXTURE_EMPTY_DIRS, SENTINEL, hashLayer, memoryFixture } from './fixture.js';
import { faultMatrix } from './fault-matrix.js';
import { faultyLayer, faultyObjects, type FaultPlan } from './faulty-layer.js';
import { withHistory } from './overlay-history.js';
import { fixtureVisibleSet, plantHiddenFiles } from './sparse-fixture.js';

let repo: { git: MemoryGit; sha: string; store: StateStore };

beforeAll(async () => {
  const volume = new Volume();
  const sha = await seedMemoryRepository({ volume, dir: '/repo', files: pinnedFiles(), clock: new ManualClock() });
  const store = StateStore.open(':memory:', { clock: new ManualClock(), liveness: new ManualLiveness() });
  repo = { git: new MemoryGit({ volume, dir: '/repo' }), sha: sha!, store };
  return () => store.close();
});

const writable = (layer: ReturnType<typeof faultyLayer>) => layer as WritableLayer;

faultMatrix({
  name: 'overlay(memory over memory) with history',
  async build(plan: FaultPlan) {
    const volume = new Volume();
    const lower = await memoryFixture({ volume, root: '/lower' });
    const upper = new MemoryLayer({ volume, root: '/upper' });
    const layer = await withHistory(overlay(writable(faultyLayer(upper, plan)), faultyLayer(readOnly(lower), plan)), lower);
    return {
      layer,
      stores: async () => [await hashLayer(lower), await hashLayer(upper)],
      reopen: async () => overlay(upper, readOnly(lower)),
    };
  },
});

faultMatrix({
  name: 'overlay(memory over git-tree), as the copy backend serves it',
  async build(plan: FaultPlan) {
    const upper = new MemoryLayer();
    const layer = overlay(writable(faultyLayer(upper, plan)), gitTreeLayer(faultyObjects(repo.git.objects, plan), repo.sha));
    for (const dir of FIXTURE_EMPTY_DIRS) await layer.mkdir(dir);
    return {
      layer,
      stores: async () => [await hashLayer(upper)],
      reopen: async () => overlay(upper, gitTreeLayer(repo.git.objects, repo.sha)),
    };
  },
});

faultMatrix({
  name: 'sparse(memory)',
  async build(plan: FaultPlan) {
    const inner = await memoryFixture();
    await plantHiddenFiles(inner);
    return { layer: sparse(faultyLayer(inner, plan), fixtureVisibleSet()), stores: async () => [await hashLayer(inner)] };
  },
});

faultMatrix({
  name: 'readOnly(memory)',
  async build(plan: FaultPlan) {
    const inner = await memoryFixture();
    return { layer: readOnly(faultyLayer(inner, plan)), stores: async () => [await hashLayer(inner)] };
  },
});

faultMatrix({
  name: 'pathRules(memory) hiding a state folder',
  async build(plan: FaultPlan) {
    const inner = await memoryFixture();
    await plantHiddenFiles(inner);
    await inner.mkdir('.gatefs');
    await inner.writeFile('.gatefs/secret.txt', new TextEncoder().encode(SENTINEL));
    const layer = withPathRules(writable(faultyLayer(inner, plan)), { hidden: '.gatefs' });
    return { layer, stores: async () => [await hashLayer(inner)] };
  },
});

faultMatrix({
  name: 'disclosure hints over sparse(memory), as a sparse worktree serves it',
  async build(plan: FaultPlan) {
    const root = await memoryFixture();
    await plantHiddenFiles(root);
    const layer = disclosureStack({
      root: writable(faultyLayer(root, plan)),
      store: repo.store,
      git: repo.git,
      objects: faultyObjects(repo.git.objects, plan),
      pinnedSha: repo.sha,
      checkoutPath: '/state/worktrees/conf',
    });
    return { layer, stores: async () => [await hashLayer(root)] };
  },
});
