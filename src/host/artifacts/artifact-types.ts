/**
 * What the artifacts room takes of a host (`ArtifactParts`), its save points, and the shapes
 * `host.runs` answers (`RunStatus`, `RunArtifact`).
 */
import type { HandoffRow, PatchRow, RunRow, StateStore, VisitRow } from '../../state/index.js';
import type { Clock, ProcessLiveness } from '../../ports/index.js';
import type { Manifest } from '../../manifest/index.js';
import type { Registry } from '../../gate/index.js';
import type { HostPlatform } from '../platform/index.js';
import type { AutoPatchReason } from './auto-patch.js';

/** What handoffs, ends and their recovery take of the host. */
export interface ArtifactParts {
  readonly manifest: Manifest;
  readonly platform: HostPlatform;
  readonly store: StateStore;
  /** The gate's registry: a conversation's namespace is its registration's. */
  readonly registry: Pick<Registry, 'lookup'>;
  readonly clock: Clock;
  /** Who this process is, and whether another process that holds a visit's lock still runs. */
  readonly liveness: ProcessLiveness;
  /** Waits between tries of a lock another process holds. */
  wait(ms: number): Promise<void>;
  /** The holder that keeps `holder` out of `conversation` (another session's exclusive write), or null. */
  blockingHolder(conversation: string, holder: string | undefined): string | null;
  /** Makes and records the auto-patch of a worktree visit (src/host/artifacts/auto-patch.ts); absent: none is kept. */
  autoPatch?(conversation: string, reason: AutoPatchReason): Promise<PatchRow | null>;
  /** Called at each save point of a handoff (the crash test ends the process there). */
  savePoint?: (point: ArtifactSavePoint) => void;
}

/** The save points of a handoff, in order: objects stored and durable; the folder renamed into place; the record committed. */
export const ARTIFACT_SAVE_POINTS = ['artifacts.stored', 'artifacts.renamed', 'artifacts.recorded'] as const;
export type ArtifactSavePoint = (typeof ARTIFACT_SAVE_POINTS)[number];

/** What `host.runs.handoff` takes. */
export interface HandoffRequest {
  /** The role handed to: a role of the manifest. */
  to: string;
  /** Declared files: workspace-relative or absolute namespace paths (at most 256). */
  files?: readonly string[];
  /** At most 4000 characters. */
  message?: string;
}

/** A run as `host.runs.status` shows it: its row, visits, handoffs (with their artifact records) and auto-patches. */
export interface RunStatus {
  run: RunRow;
  visits: VisitRow[];
  handoffs: HandoffRow[];
  patches: PatchRow[];
}

/** One declared file of a run's handoffs, as `host.runs.artifacts` lists it. */
export interface RunArtifact {
  handoff: number;
  /** The emitting conversation, its role and visit. */
  conversation: string;
  role: string;
  visit: number;
  /** The role it was handed to. */
  to: string | null;
  /** Workspace-relative path (as declared, for a rejected one). */
  path: string;
  record: 'artifact_collected' | 'artifact_rejected';
  sha256: string | null;
  bytes: number | null;
  code: string | null;
  reason: string | null;
  /** Host path of a collected file, `<stateDir>/artifacts/<run>/<role>-v<visit>/<path>` (null for a rejected one). */
  storePath: string | null;
}
