/**
 * `HostContext`: what the preparation, release and recovery tasks share inside one host —
 * the platform, the store, the registry, the manifest, the id and liveness ports, occupancy,
 * the open workspace views (folder handles) per conversation, and the releases running here.
 */
import type { Manifest } from '../../manifest/types.js';
import type { IdSource } from '../../ports/ids.js';
import type { StateStore } from '../../state/store.js';
import type { WorkspaceRecord } from '../../state/workspace-table.js';
import type { MountSpec } from '../../manifest/types.js';
import type { Registry } from '../../gate/registry.js';
import type { HostPlatform } from '../platform/platform.js';
import type { WorkspaceView } from '../views/workspace-view.js';
import type { DisclosureState } from '../../disclosure/disclosure-state.js';
import type { ProcessLiveness } from '../../ports/process-liveness.js';
import type { LockOwner } from '../../state/preparation-lock.js';
import type { OccupancyGuard } from '../occupancy/occupancy-guard.js';
import type { WriteDoors } from '../../ports/write-door.js';
import type { LandingGit } from '../../git/landing-git.js';
import type { LanderSettings } from '../../manifest/settings.js';
import type { Clock } from '../../ports/clock.js';
import type { LowerFolders } from '../lower/lower-folders.js';

export interface HostContext {
  readonly platform: HostPlatform;
  readonly store: StateStore;
  readonly registry: Registry;
  readonly manifest: Manifest;
  readonly ids: IdSource;
  readonly clock: Clock;
  /** Git for diff, commit, the lander and subagents (src/git/landing-git.ts). */
  readonly landing: LandingGit;
  /** The lander's settings (checks, push remote, target branch). */
  readonly settings: LanderSettings;
  /** This process's id, for the preparation lock. */
  readonly pid: number;
  /** Who this process is (pid + start time) and whether a recorded process still runs. */
  readonly liveness: ProcessLiveness;
  /** Occupancy with gone holders ended (see `OccupancyGuard`). */
  readonly occupancy: OccupancyGuard;
  /** Open views by conversation; closed on release and on host close. */
  readonly views: Map<string, WorkspaceView>;
  /** Conversations a release of this process is taking down (the registry refresh leaves them alone). */
  readonly releasing: Set<string>;
  /** Resolves once no tool call of the conversation is in flight in this process. */
  drain(conversation: string): Promise<void>;
  /** The write doors every process's gated writes pass (disk host); a release shuts one. */
  readonly doors?: WriteDoors;
  /** The lower folders of `copy` workspaces (disk host over a git repository); absent: served from git objects. */
  lowers?: LowerFolders;
}

/** The preparation-lock owner for one attempt of this process. */
export function lockOwner(ctx: HostContext, token: string): LockOwner {
  return { pid: ctx.pid, token, start: ctx.liveness.self.start };
}

/** What gatefs created during a preparation, so a rollback removes exactly that. */
export interface CreatedByPreparation {
  branch?: boolean;
  worktree?: boolean;
  folder?: boolean;
}

/** The JSON `data` gatefs keeps in a workspace record. */
export interface WorkspaceData {
  tools: string[];
  mounts: MountSpec[];
  created: CreatedByPreparation;
  reused?: boolean;
  /** Progressive disclosure (worktree roles with a policy); see `src/disclosure/disclosure-state.ts`. */
  disclosure?: DisclosureState;
}

/** Reads a record's `data` with defaults for fields an older record may lack. */
export function workspaceData(record: WorkspaceRecord): WorkspaceData {
  const d = record.data as Partial<WorkspaceData>;
  return { tools: d.tools ?? [], mounts: d.mounts ?? [], created: d.created ?? {}, ...(d.reused ? { reused: true } : {}) };
}
