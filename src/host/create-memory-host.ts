/**
 * `createMemoryHost`: the same host as `createHost`, entirely in memory — a memfs volume for
 * every folder, isomorphic-git over memfs, SQLite `:memory:`, a manual clock and sequential ids
 * by default. No disk, no processes: the same scenario gives a byte-identical run log.
 *
 * Layout inside the volume: the integration checkout at `/repo` (a git repository on `main`
 * with one commit of `files`, or a plain folder with `git: false`), the state directory at
 * `/state`, and any `folders` (for absolute mounts) at their own paths.
 */
import { Volume } from 'memfs';
import { MemoryGit } from '../git/memory-git.js';
import { loadManifest } from '../manifest/load.js';
import { ManualClock, type Clock } from '../ports/clock.js';
import { SequentialIds, type IdSource } from '../ports/ids.js';
import { ManualLiveness, type ProcessLiveness } from '../ports/process-liveness.js';
import { StateStore } from '../state/store.js';
import { MemoryPlatform } from './memory-platform.js';
import { seedMemoryRepository, writeFiles } from './memory-repository.js';
import { WorkspaceHost } from './workspace-host.js';

export interface CreateMemoryHostOptions {
  /** The repository's files: path → content. */
  files: Readonly<Record<string, string | Uint8Array>>;
  /** A manifest object (or a path readable from the real disk); default: the default role. */
  manifest?: string | object;
  /** Default: a `ManualClock` at 2026-01-01T00:00:00Z. */
  clock?: Clock;
  /** Default: `SequentialIds`. */
  ids?: IdSource;
  /** Make the repository a git repository (default true); false gives a plain folder. */
  git?: boolean;
  /** Extra volume folders (absolute path → files), e.g. for absolute mounts. */
  folders?: Readonly<Record<string, Readonly<Record<string, string | Uint8Array>>>>;
  /** Default: a `ManualLiveness` (pid 1; every process alive until told otherwise). */
  liveness?: ProcessLiveness;
}

/** The memory host, with its volume exposed so tests can look at the "disk". */
export type MemoryHost = WorkspaceHost & { readonly volume: InstanceType<typeof Volume> };

/**
 * Builds a memory host. Throws what `loadManifest` throws (`BACKEND_UNAVAILABLE` for a
 * container role) before anything is built.
 */
export async function createMemoryHost(options: CreateMemoryHostOptions): Promise<MemoryHost> {
  const manifest = loadManifest(options.manifest);
  const clock = options.clock ?? new ManualClock();
  const volume = new Volume();
  await seedMemoryRepository({ volume, dir: '/repo', files: options.files, clock, git: options.git });
  for (const [dir, files] of Object.entries(options.folders ?? {})) writeFiles(volume, dir, files);
  volume.mkdirSync('/state/worktrees', { recursive: true });
  volume.mkdirSync('/state/copies', { recursive: true });
  const git = new MemoryGit({ volume, dir: '/repo' });
  const liveness = options.liveness ?? new ManualLiveness();
  const store = StateStore.open(':memory:', { clock, liveness });
  const platform = new MemoryPlatform(volume, '/repo', '/state', git);
  const host = await WorkspaceHost.start({ platform, store, manifest, clock, ids: options.ids ?? new SequentialIds(), liveness });
  return Object.assign(host, { volume });
}
