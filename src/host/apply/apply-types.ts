/**
 * What `gatefs apply` and `host.apply` take and answer (src/host/apply/apply-copy.ts).
 */
import type { Layer, WritableLayer } from '../../../vfs/index.js';

/**
 * The moments of an apply where a crash test kills the process (test/host/apply-crash.test.ts):
 * the journal saved; one file's temp written, not yet renamed; one change made; every change
 * made; the base record saved; the overlay reset.
 */
export const APPLY_SAVE_POINTS = [
  'apply.journaled',
  'apply.temp_written',
  'apply.changed',
  'apply.changes_done',
  'apply.based',
  'apply.reset',
] as const;

/** One of `APPLY_SAVE_POINTS`. */
export type ApplySavePoint = (typeof APPLY_SAVE_POINTS)[number];

/** What `host.apply` takes. */
export interface ApplyOptions {
  /** True: report what would be applied and what conflicts; nothing is written. */
  dryRun?: boolean;
  /** Called at each save point with the path it concerns, if any (crash tests kill the process there). */
  savePoint?: (point: ApplySavePoint, path: string | null) => void;
}

/**
 * What became of one path:
 * - `applied`: the source holds the copy's version now;
 * - `would-apply`: (dry run) it would be applied;
 * - `conflict`: the source no longer holds what the copy started from (`code` `CONFLICT`, `reason`
 *   says how), or cannot be reached there (`code`: `SYMLINK_ESCAPE`, …); nothing was written for it;
 * - `skipped`: not applied, `reason` says why (a link, a protected path, another path's conflict).
 */
export type ApplyStatus = 'applied' | 'would-apply' | 'conflict' | 'skipped';

/** One path of an apply's report (source-relative, `/`-separated). */
export interface ApplyEntry {
  readonly path: string;
  readonly kind: 'file' | 'link' | 'folder';
  readonly change: 'added' | 'modified' | 'deleted';
  readonly status: ApplyStatus;
  readonly code?: string;
  readonly reason?: string;
}

/** What an apply did (or, with `dryRun`, would do). */
export interface ApplyReport {
  readonly conversation: string;
  readonly dryRun: boolean;
  /** True when the source holds every change of the copy that can be applied (no conflict). */
  readonly complete: boolean;
  /** True when an interrupted apply was found and finished first. */
  readonly resumed: boolean;
  /** True when the copy's overlay was reset to the source (a plain folder after a complete apply). */
  readonly overlayReset: boolean;
  /** Every changed path but those the source already held, sorted by path. */
  readonly entries: readonly ApplyEntry[];
  readonly counts: { readonly applied: number; readonly conflicts: number; readonly skipped: number; readonly unchanged: number };
}

/** The overlay of a `copy` workspace, as vfs/overlay-layer.ts exposes it. */
export interface CopyOverlay {
  readonly upper: WritableLayer;
  readonly lower: Layer;
  whiteouts(): Promise<string[]>;
}

/** True when `layer` is a copy's overlay. */
export function isCopyOverlay(layer: unknown): layer is CopyOverlay {
  const o = layer as Partial<CopyOverlay> | null;
  return typeof o === 'object' && o !== null && typeof o.whiteouts === 'function' && o.upper !== undefined && o.lower !== undefined;
}
