/**
 * The stacks the backends serve, each built by the factory every backend goes through
 * (src/host/views/workspace-view.ts `openWorkspaceView`, with the disclosure attach for a sparse
 * worktree) and taken out of the namespace it built: the root mount's layer, or a mount's.
 * So the conformance suite runs on exactly what an agent's tools run on, not a lookalike.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliTreeCheckout } from '../../src/git/cli-tree-checkout.js';
import { checkOutLower } from '../../src/host/lower/check-out-lower.js';
import { lowerPathsOf } from '../../src/host/lower/lower-record.js';
import { NodeHostExec } from '../../src/ports/node-host-exec.js';
import { openWorkspaceView, type WorkspaceView, type WorkspaceViewSpec } from '../../src/host/views/workspace-view.js';
import { ManualClock } from '../../src/ports/clock.js';
import { ManualLiveness } from '../../src/ports/process-liveness.js';
import { StateStore } from '../../src/state/store.js';
import type { DisclosureHintLayer } from '../../vfs/disclosure-hint-layer.js';
import type { Layer, WritableLayer } from '../../vfs/layer.js';
import { disclosureStack } from './disclosure-stack.js';
import { FIXTURE_EMPTY_DIRS } from './fixture.js';
import { LOWER_LINK_MOVES, type Lacks, type LayerUnderTest } from './layer-suite.js';
import { namespacePath, namespaceView } from './namespace-view.js';
import type { PinnedCommits, ServedWorld } from './served-world.js';
import { HIDDEN_INSIDE, disclosingLinks, plantHiddenFiles } from './sparse-fixture.js';

/** One served stack: its composition, the backend (or mount kind) that serves it, how to build it. */
export interface ServedStack {
  composition: string;
  servedBy: string;
  writable: boolean;
  lacks?: Lacks;
  /** Why the memory platform never serves this stack (it runs on disk only), when it does not. */
  diskOnly?: string;
  build(world: ServedWorld, commits: PinnedCommits): Promise<Omit<LayerUnderTest, 'cleanup'> & { close(): void }>;
}

const IMMUTABLE =
  'a pinned commit cannot change after it is made, so no link can be planted; test/vfs/git-tree-layer.test.ts reads committed links';
const NO_EMPTY_FOLDERS = 'a git tree holds no empty folder';

/**
 * Makes the lower folder of `conversation` for the fixture commit the way the disk host makes it
 * (src/host/lower/check-out-lower.ts: git checkout, verification, rename) and returns its `tree` path.
 */
async function lowerFolderOf(world: ServedWorld, commits: PinnedCommits, conversation: string): Promise<string> {
  if (!commits.dir) throw new Error('a lower folder needs the commits on disk');
  const paths = lowerPathsOf(world.platform, conversation);
  mkdirSync(paths.area, { recursive: true });
  const checkout = new CliTreeCheckout({ repo: commits.dir, exec: new NodeHostExec() });
  await checkOutLower(paths, commits.fixture, {
    checkout,
    objects: commits.objects,
    openFolder: (path) => world.platform.openFolder(path),
    context: { tag: 'test', chain: [] },
    signal: new AbortController().signal,
  });
  return paths.tree;
}

/** Opens the workspace view of conversation `conf` on the world's platform. */
function open(world: ServedWorld, commits: PinnedCommits | null, spec: Omit<WorkspaceViewSpec, 'conversation'>): WorkspaceView {
  return openWorkspaceView(world.platform, commits?.objects ?? null, { conversation: 'conf', ...spec });
}

/** The layer of the mount exactly at namespace path `at` (the root by default). */
function layerAt(view: WorkspaceView, at = view.namespace.root): Layer {
  const resolved = view.namespace.resolve(at);
  if (resolved.rel !== '') throw new Error(`no mount at ${at}`);
  return resolved.mount.layer;
}

/** A worktree folder in the state directory (seeded with the fixture or empty). */
const worktree = (world: ServedWorld, seed: boolean) => world.folder(`${world.stateDir}/worktrees/conf`, seed);

/** Every stack a backend serves. */
export const SERVED_STACKS: readonly ServedStack[] = [
  {
    composition: 'host layer with the state guard',
    servedBy: 'worktree (root)',
    writable: true,
    async build(world) {
      const dir = worktree(world, true);
      const view = open(world, null, { backend: 'worktree', checkoutPath: dir, pinnedSha: null, mounts: [] });
      return { layer: layerAt(view), symlinks: world.symlinks(dir), close: view.close };
    },
  },
  {
    composition: 'hints(sparse(host)) with the pinned commit',
    servedBy: 'worktree with progressive_disclosure (root)',
    writable: true,
    async build(world, commits) {
      const dir = worktree(world, true);
      const opened = world.platform.openFolder(dir);
      await plantHiddenFiles(opened.layer);
      opened.close();
      const store = StateStore.open(':memory:', { clock: new ManualClock(), liveness: new ManualLiveness() });
      const wrapRoot = (root: WritableLayer) =>
        disclosureStack({
          root,
          store,
          git: world.platform.git,
          objects: commits.objects,
          pinnedSha: commits.withHidden,
          checkoutPath: dir,
        });
      const view = open(world, commits, { backend: 'worktree', checkoutPath: dir, pinnedSha: commits.withHidden, mounts: [], wrapRoot });
      const layer = layerAt(view) as DisclosureHintLayer;
      return {
        layer,
        symlinks: disclosingLinks(world.symlinks(dir), (paths) => layer.projection.disclose(paths)),
        refusedMoves: HIDDEN_INSIDE,
        close: () => (view.close(), store.close()),
      };
    },
  },
  {
    composition: 'pathRules(host) hiding the state directory',
    servedBy: 'shared (root)',
    writable: true,
    async build(world) {
      const view = open(world, null, { backend: 'shared', checkoutPath: world.repo, pinnedSha: null, mounts: [] });
      return { layer: layerAt(view), symlinks: world.symlinks(world.repo), backingHash: () => world.hash(world.repo), close: view.close };
    },
  },
  {
    composition: 'overlay(host over git-tree)',
    servedBy: 'copy of a git repository (root)',
    writable: true,
    async build(world, commits) {
      const dir = world.folder(`${world.stateDir}/copies/conf`, false);
      const view = open(world, commits, { backend: 'copy', checkoutPath: dir, pinnedSha: commits.fixture, mounts: [] });
      const layer = layerAt(view) as WritableLayer;
      // The fixture's empty folders, which no commit can hold, made the way an agent would.
      for (const d of FIXTURE_EMPTY_DIRS) await layer.mkdir(d);
      return { layer, symlinks: world.symlinks(dir), backingHash: () => world.hash(dir), close: view.close };
    },
  },
  {
    composition: 'overlay(host over snapshot-folder(host))',
    servedBy: 'copy of a git repository once its lower folder is made (root)',
    writable: true,
    lacks: { linkMoves: LOWER_LINK_MOVES },
    diskOnly: 'the memory host serves a copy from git objects only: it makes no lower folder',
    async build(world, commits) {
      const dir = world.folder(`${world.stateDir}/copies/conf`, false);
      const tree = await lowerFolderOf(world, commits, 'conf');
      const view = open(world, commits, { backend: 'copy', checkoutPath: dir, pinnedSha: commits.fixture, mounts: [] });
      view.lower!.serveFolder(tree);
      const layer = layerAt(view) as WritableLayer;
      for (const d of FIXTURE_EMPTY_DIRS) await layer.mkdir(d);
      // Links are planted in the lower folder, where a commit's own links are.
      const backingHash = async () => `${await world.hash(tree)}:${await world.hash(dir)}`;
      return { layer, symlinks: world.symlinks(tree), backingHash, close: view.close };
    },
  },
  {
    composition: 'overlay(host over pathRules(readOnly(host)))',
    servedBy: 'copy of a plain folder (root)',
    writable: true,
    lacks: { linkMoves: LOWER_LINK_MOVES },
    async build(world) {
      const dir = world.folder(`${world.stateDir}/copies/conf`, false);
      const view = open(world, null, { backend: 'copy', checkoutPath: dir, pinnedSha: null, mounts: [] });
      const backingHash = async () => `${await world.hash(world.repo)}:${await world.hash(dir)}`;
      return { layer: layerAt(view), symlinks: world.symlinks(world.repo), backingHash, close: view.close };
    },
  },
  {
    composition: 'readOnly(git-tree)',
    servedBy: 'relative mount of a git repository',
    writable: false,
    lacks: { symlinks: IMMUTABLE, emptyFolders: NO_EMPTY_FOLDERS },
    async build(world, commits) {
      const mounts = [{ path: 'mount', writable: false }];
      const checkoutPath = worktree(world, false);
      const view = open(world, commits, { backend: 'worktree', checkoutPath, pinnedSha: commits.withMount, mounts });
      return { layer: layerAt(view, `${view.namespace.root}/mount`), close: view.close };
    },
  },
  {
    composition: 'readOnly(readOnly(host))',
    servedBy: 'relative mount of a plain folder',
    writable: false,
    async build(world) {
      const dir = world.folder(`${world.repo}/mount`, true);
      const mounts = [{ path: 'mount', writable: false }];
      const view = open(world, null, { backend: 'worktree', checkoutPath: worktree(world, false), pinnedSha: null, mounts });
      const layer = layerAt(view, `${view.namespace.root}/mount`);
      return { layer, symlinks: world.symlinks(dir), backingHash: () => world.hash(dir), close: view.close };
    },
  },
  {
    composition: 'readOnly(pathRules(host)) hiding the state directory',
    servedBy: 'absolute read-only mount of the repository',
    writable: false,
    async build(world) {
      const mounts = [{ path: world.repo, writable: false }];
      const view = open(world, null, { backend: 'worktree', checkoutPath: worktree(world, false), pinnedSha: null, mounts });
      const backingHash = () => world.hash(world.repo);
      return { layer: layerAt(view, world.repo), symlinks: world.symlinks(world.repo), backingHash, close: view.close };
    },
  },
  {
    composition: 'pathRules(host) with a read-only folder inside, guarded',
    servedBy: 'absolute writable mount holding an absolute read-only mount (nest)',
    writable: true,
    async build(world) {
      const data = world.folder(`${dirname(world.repo)}/data`.replace(/^\/\//, '/'), true);
      const mounts = [
        { path: data, writable: true },
        { path: `${data}/nest`, writable: false },
      ];
      const view = open(world, null, { backend: 'worktree', checkoutPath: worktree(world, false), pinnedSha: null, mounts });
      return {
        layer: layerAt(view, data),
        symlinks: world.symlinks(data),
        backingHash: () => world.hash(data),
        refusedMoves: { nest: 'READ_ONLY' },
        close: view.close,
      };
    },
  },
  {
    composition: 'the whole namespace, a .git pointer file planted',
    servedBy: 'worktree (as agents address it)',
    writable: true,
    lacks: {
      badPaths: 'the namespace resolves . and .. as the agent grammar says (test/security/a-b-paths.test.ts); its layers each run the step',
    },
    async build(world) {
      const dir = worktree(world, true);
      const opened = world.platform.openFolder(dir);
      await opened.layer.writeFile('.git', new TextEncoder().encode('gitdir: /elsewhere/.git/worktrees/conf\n'));
      opened.close();
      const mounts = [{ path: world.repo, writable: false }];
      const view = open(world, null, { backend: 'worktree', checkoutPath: dir, pinnedSha: null, mounts });
      const ns = view.namespace;
      const errorPath = (rel: string) => namespacePath(ns, rel);
      return {
        layer: namespaceView(ns),
        namespace: ns,
        errorPath,
        symlinks: world.symlinks(dir),
        backingHash: () => world.hash(dir),
        close: view.close,
      };
    },
  },
];
