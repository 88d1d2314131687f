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
import { MemoryGit } from '../../git/memory-git.js';
import { MemoryLandingGit } from '../../git/memory-landing-git.js';
import { createMemoryRemote } from '../../git/memory-remote.js';
import { chooseLanderSettings } from '../../manifest/index.js';
import type { CheckRunner } from '../../ports/index.js';
import { ScriptedCheckRunner } from '../../ports/index.js';
import { ScriptedSandbox, type Sandbox } from '../../ports/index.js';
import type { SavePointHook } from '../../lander/index.js';
import type { SnapshotSavePoint } from '../snapshots/index.js';
import { loadManifest } from '../../manifest/index.js';
import { ManualClock, type Clock } from '../../ports/index.js';
import { SequentialIds, type IdSource } from '../../ports/index.js';
import { ManualLiveness, type ProcessLiveness } from '../../ports/index.js';
import { StateStore } from '../../state/index.js';
import { MemoryPlatform } from './memory-platform.js';
import { seedMemoryRepository, writeFiles } from './memory-repository.js';
import type { Host } from '../composition/index.js';
import { WorkspaceHost } from '../composition/index.js';

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
  /** Lander settings (an object or a JSON file path; default: the manifest's `lander:` key). */
  settings?: string | object;
  /** The lander's checks (default: a `ScriptedCheckRunner` where every check passes). */
  checks?: CheckRunner;
  /** Remotes to create as bare repositories in the volume (`/remotes/<name>.git`), e.g. `['origin']`. */
  remotes?: readonly string[];
  /** Called at each lander save point. */
  savePoint?: SavePointHook;
  /** Called at each snapshot and restore save point (the crash tests kill the process there). */
  snapshotSavePoint?: (point: SnapshotSavePoint) => void;
  /** Agents' commands (default: a `ScriptedSandbox` where every command exits 0 with no output). */
  sandbox?: Sandbox;
}

/** The memory host, with its volume exposed so tests can look at the "disk". */
export type MemoryHost = Host & { readonly volume: InstanceType<typeof Volume> };

/**
 * Builds a memory host. Throws what `loadManifest` throws (`BACKEND_UNAVAILABLE` for a
 * container role) before anything is built.
 */
export async function createMemoryHost(options: CreateMemoryHostOptions): Promise<MemoryHost> {
  const manifest = loadManifest(options.manifest);
  const settings = chooseLanderSettings(options.settings, manifest);
  const clock = options.clock ?? new ManualClock();
  const volume = new Volume();
  await seedMemoryRepository({ volume, dir: '/repo', files: options.files, clock, git: options.git });
  for (const [dir, files] of Object.entries(options.folders ?? {})) writeFiles(volume, dir, files);
  volume.mkdirSync('/state/worktrees', { recursive: true });
  volume.mkdirSync('/state/copies', { recursive: true });
  const git = new MemoryGit({ volume, dir: '/repo' });
  for (const name of options.remotes ?? []) await createMemoryRemote(volume, name);
  const liveness = options.liveness ?? new ManualLiveness();
  const store = StateStore.open(':memory:', { clock, liveness });
  const platform = new MemoryPlatform(volume, '/repo', '/state', git, new MemoryLandingGit({ volume, dir: '/repo' }));
  const host = await WorkspaceHost.start({
    platform,
    store,
    manifest,
    clock,
    ids: options.ids ?? new SequentialIds(),
    liveness,
    settings,
    checks: options.checks ?? new ScriptedCheckRunner(),
    sandbox: options.sandbox ?? new ScriptedSandbox(),
    commandEnv: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' },
    wait: async () => undefined,
    ...(options.savePoint ? { savePoint: options.savePoint } : {}),
    ...(options.snapshotSavePoint ? { snapshotSavePoint: options.snapshotSavePoint } : {}),
  });
  return Object.assign(host, { volume });
}
