/**
 * `OccupancyGuard`: occupancy as the host applies it — every record names the process that
 * took it (pid + start time, from the liveness port), and any caller that meets a holder whose
 * process is gone ends that occupancy, writes an `occupancy.holder_gone` run-log event, and
 * goes on: in `acquire`, and in the gate's write check (`blockingHolder`), so `gatefs call`
 * works right after a killed `serve` without a new one.
 *
 * One holder is never ended this way: the holder of a release in progress (`data.release`).
 * Its workspace may be half removed, so the interrupted release is finished or undone first
 * (`onInterruptedRelease`, which the host runs through its task queue; the guard learns of
 * releases through `releaseHolderOf`); until then writers
 * keep getting `OCCUPIED`.
 *
 * Cost: with nobody holding the workspace, the write check is one indexed SQLite read; the
 * liveness port is asked only when a holder blocks.
 */
import type { ProcessLiveness } from '../../ports/index.js';
import type { ActiveOccupancy, OccupancyMode, OccupancyRecord } from '../../state/index.js';
import type { StateStore } from '../../state/index.js';
import { isWorkspaceError } from '../../workspace-error.js';

/** What the guard uses: the store's occupancy records, the liveness port, and the releases recorded. */
interface OccupancyGuardParts {
  readonly store: StateStore;
  /** Who this process is, and whether a recorded process still runs. */
  readonly liveness: ProcessLiveness;
  /** The holder of the release recorded in progress for `conversation` (`data.release`), or null. */
  releaseHolderOf(conversation: string): string | null;
  /** Called when a dead process's release holds `conversation` (finish or undo it). */
  onInterruptedRelease(conversation: string): void;
}

/** Holders of a workspace whose process is gone, or a release that was interrupted. */
export class OccupancyGuard {
  private readonly store: StateStore;
  private readonly liveness: ProcessLiveness;

  constructor(private readonly parts: OccupancyGuardParts) {
    this.store = parts.store;
    this.liveness = parts.liveness;
  }

  /**
   * Occupies `conversation` for `holder` in `mode` as this process, ending gone holders
   * first; `client` names whom the holder serves (an MCP client's name). Throws
   * `WorkspaceError` `OCCUPIED` naming a live holder (or an interrupted release).
   */
  acquire(conversation: string, holder: string, mode: OccupancyMode, client?: string): OccupancyRecord {
    try {
      const { record, ended } = this.store.occupancy.acquire(
        { conversation, holder, mode, process: this.liveness.self, ...(client === undefined ? {} : { client }) },
        (r) => this.isGone(r) && !this.isReleaseHolder(r),
      );
      for (const gone of ended) this.logGone(gone, 'acquire');
      return record;
    } catch (e) {
      if (isWorkspaceError(e, 'OCCUPIED')) this.noticeInterruptedRelease(conversation);
      throw e;
    }
  }

  /**
   * The holder that blocks `holder` from writing in `conversation`, or undefined: what the
   * tool gate asks before every write. Gone holders met on the way are ended.
   */
  blockingHolder(conversation: string, holder: string | undefined): string | undefined {
    for (;;) {
      const blocker = this.store.occupancy.blockingOccupant(conversation, holder);
      if (!blocker) return undefined;
      if (!this.isGone(blocker)) return blocker.holder;
      if (this.isReleaseHolder(blocker)) {
        this.parts.onInterruptedRelease(conversation);
        return blocker.holder;
      }
      if (this.store.occupancy.end(blocker.id)) this.logGone(blocker, 'write');
    }
  }

  /** True when the record names a process (pid + start) that no longer runs. */
  isGone(record: OccupancyRecord): boolean {
    return record.process !== undefined && !this.liveness.isAlive(record.process);
  }

  /** True when `record` is worth showing as the holder: its process runs, or it is a release in progress. */
  isShown(record: OccupancyRecord): boolean {
    return !this.isGone(record) || this.isReleaseHolder(record);
  }

  private isReleaseHolder(record: OccupancyRecord): boolean {
    return this.parts.releaseHolderOf(record.conversation) === record.holder;
  }

  private noticeInterruptedRelease(conversation: string): void {
    const releaseHolder = this.parts.releaseHolderOf(conversation);
    if (releaseHolder === null) return;
    const holder = this.store.occupancy.activeRecords(conversation).find((r) => r.holder === releaseHolder);
    if (!holder || this.isGone(holder)) this.parts.onInterruptedRelease(conversation);
  }

  private logGone(record: ActiveOccupancy, by: 'acquire' | 'write'): void {
    this.store.runLog.append({
      type: 'occupancy.holder_gone',
      conversation: record.conversation,
      data: { holder: record.holder, mode: record.mode, pid: record.process?.pid ?? null, by },
    });
  }
}
