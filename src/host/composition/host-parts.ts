/**
 * `assembleParts`: the parts of one host, built once from its options — the platform, the
 * store, the registry the gate reads, the open views, occupancy, the lower folders — and the
 * options themselves (`WorkspaceHostOptions`). Each task takes only the parts it declares
 * (`PreparationParts`, `ReleaseParts`, `RecoveryParts`, `WorkParts`, `LanderParts`,
 * `StatusParts`, …); only the composition holds them all, as `HostParts`.
 */
import type { TreeCheckout } from '../../git/index.js';
import type { SavePointHook } from '../../lander/index.js';
import type { LanderSettings } from '../../manifest/index.js';
import type { Manifest } from '../../manifest/index.js';
import type { CheckRunner } from '../../ports/index.js';
import type { Sandbox } from '../../ports/index.js';
import { CommandRuns } from '../commands/index.js';
import type { Clock } from '../../ports/index.js';
import type { CrossProcessLocks } from '../../ports/index.js';
import type { IdSource } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import type { WriteDoors } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import type { PreparationParts } from '../lifecycle/index.js';
import type { RecoveryParts } from '../lifecycle/index.js';
import type { OpenViews } from '../lifecycle/index.js';
import { pendingReleaseOf } from '../lifecycle/index.js';
import type { ReleaseParts } from '../lifecycle/index.js';
import type { SyncedRegistry } from '../lifecycle/index.js';
import type { StatusParts } from '../lifecycle/index.js';
import { LowerFolders } from '../lower/index.js';
import { OccupancyGuard } from '../occupancy/index.js';
import { SnapshotService, type SnapshotSavePoint } from '../snapshots/index.js';
import { ArtifactService, type ArtifactSavePoint, makeAutoPatch, writeInventory } from '../artifacts/index.js';
import type { HostPlatform } from '../platform/index.js';
import type { LanderParts } from '../work/index.js';
import { bindingRequestsOf } from '../agents/index.js';
import { describeProbed, guardCommit, guardRollback } from '../agents/index.js';
import { WorkService, type WorkParts } from '../work/index.js';

/** What a `WorkspaceHost` is built from (the factories fill it in for the disk and the memory host). */
export interface WorkspaceHostOptions {
  platform: HostPlatform;
  store: StateStore;
  manifest: Manifest;
  clock: Clock;
  ids: IdSource;
  /** Who this process is and whether recorded processes still run (locks, occupancy). */
  liveness: ProcessLiveness;
  /** Preparations run at once in this process (default 2). */
  concurrency?: number;
  /** Called once by `close()` after the store is closed (e.g. to drop a temp folder). */
  onClose?: () => void;
  /** Cross-process locks for the gate's compare-and-swap calls (disk host); absent: in-process only. */
  crossProcessLocks?: CrossProcessLocks;
  /** The workspaces' write doors across processes (disk host); absent: a release drains this process's calls only. */
  writeDoors?: WriteDoors;
  /** The lander's settings: checks, push remote, target branch. */
  settings: LanderSettings;
  /** Runs the lander's checks (host exec on disk; scripted in memory). */
  checks: CheckRunner;
  /** Runs agents' commands (bubblewrap on disk; scripted in memory). */
  sandbox: Sandbox;
  /** The server's environment the roles' `exec.env` names pass through (the memory host gives a fixed one). */
  commandEnv: Readonly<Record<string, string | undefined>>;
  /** Called at each lander save point (the crash test kills the process there). */
  savePoint?: SavePointHook;
  /** Waits between push tries (default: a real timer). */
  wait?: (ms: number) => Promise<void>;
  /**
   * Checks pinned commits out into the lower folders of `copy` workspaces (src/host/lower/lower-folders.ts);
   * absent (the memory host): a copy's pinned tree is always served from git objects.
   */
  treeCheckout?: TreeCheckout;
  /** Called at each save point of a snapshot or restore (the crash tests end the process there). */
  snapshotSavePoint?: (point: SnapshotSavePoint) => void;
  /** Called at each save point of a handoff (the crash test ends the process there). */
  artifactSavePoint?: (point: ArtifactSavePoint) => void;
  /**
   * A host for a command that only reads (`createHost`'s `quiet`): `start` neither recovers
   * interrupted work nor appends `host.start`; the registry still follows the store on lookup.
   */
  quiet?: boolean;
}

/** Every part of one host: what each of its tasks takes a piece of, and the whole guard and liveness port the host itself uses. */
export type HostParts = PreparationParts &
  ReleaseParts &
  RecoveryParts &
  WorkParts &
  LanderParts &
  StatusParts & {
    readonly occupancy: OccupancyGuard;
    readonly liveness: ProcessLiveness;
    readonly commandRuns: CommandRuns;
    readonly snapshots: SnapshotService;
    readonly artifacts: ArtifactService;
  };

/** What the parts call back into: the host's own call tracker and task queue. */
interface HostCallbacks {
  /** Resolves once no tool call of `conversation` is in flight in this process. */
  drain(conversation: string): Promise<void>;
  /** Finishes or undoes, through the task queue, a release whose process died while it held `conversation`. */
  recoverLater(conversation: string): void;
}

/** Builds the parts of a host over `registry` (see the file comment). */
export function assembleParts(options: WorkspaceHostOptions, registry: SyncedRegistry, callbacks: HostCallbacks): HostParts {
  const { platform, store, liveness, ids, clock } = options;
  const views: OpenViews = new Map();
  const occupancy = new OccupancyGuard({
    store,
    liveness,
    releaseHolderOf: (conversation) => pendingReleaseOf(store.workspaces.get(conversation))?.holder ?? null,
    onInterruptedRelease: (conversation) => callbacks.recoverLater(conversation),
  });
  const lowers = options.treeCheckout
    ? new LowerFolders({
        platform,
        store,
        ids,
        clock,
        liveness,
        checkout: options.treeCheckout,
        viewLower: (conversation) => views.get(conversation)?.lower,
        isReleasing: (record) => pendingReleaseOf(record) !== null,
      })
    : undefined;
  const commandRuns = new CommandRuns();
  const parts = {
    platform,
    store,
    registry,
    manifest: options.manifest,
    ids,
    clock,
    settings: options.settings,
    liveness,
    occupancy,
    views,
    releasing: new Set(),
    drain: (conversation) => callbacks.drain(conversation),
    workFor: (conversation, pinnedSha) => guardCommit(new WorkService(parts, conversation, pinnedSha), store, conversation),
    commandRuns,
    commands: {
      sandbox: options.sandbox,
      env: options.commandEnv,
      runs: commandRuns,
      ids,
      checkpoint: async (conversation, label) => (await parts.snapshots.snapshot(conversation, { label, reason: 'exec' })).snapshotId,
    },
    snapshotsFor: (conversation) =>
      guardRollback(
        parts.snapshots.requestsFor(conversation, (holder) => parts.occupancy.blockingHolder(conversation, holder) ?? null),
        store,
        conversation,
      ),
    handoffsFor: (conversation) => parts.artifacts.requestsFor(conversation),
    bindingsFor: (conversation) => bindingRequestsOf(parts, conversation),
    describeFor: (conversation) => () => describeProbed({ manifest: options.manifest, store, sandbox: options.sandbox }, conversation),
    writeInventory: (conversation) => writeInventory(parts, conversation),
    ...(options.writeDoors ? { doors: options.writeDoors } : {}),
    ...(lowers ? { lowers } : {}),
  } as Omit<HostParts, 'snapshots' | 'artifacts'> as HostParts;
  (parts as { snapshots: SnapshotService }).snapshots = new SnapshotService({
    ...parts,
    drain: (conversation) => callbacks.drain(conversation),
    commandsRunning: (conversation) => commandRuns.isRunning(conversation),
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...(options.snapshotSavePoint ? { savePoint: options.snapshotSavePoint } : {}),
  });
  (parts as { artifacts: ArtifactService }).artifacts = new ArtifactService({
    manifest: parts.manifest,
    platform,
    store,
    registry,
    clock,
    liveness,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    blockingHolder: (conversation, holder) => parts.occupancy.blockingHolder(conversation, holder) ?? null,
    autoPatch: (conversation, reason) => makeAutoPatch(parts, conversation, reason),
    ...(options.artifactSavePoint ? { savePoint: options.artifactSavePoint } : {}),
  });
  return parts;
}
