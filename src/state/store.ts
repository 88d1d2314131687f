/**
 * `StateStore`: gatefs's durable state on better-sqlite3 — workspaces, the run log, occupancy
 * and preparation locks — in one SQLite database (`<stateDir>/gatefs.db`, or ':memory:').
 *
 * Several processes may open the same file: WAL journal mode lets readers run beside one
 * writer, a 5 s busy timeout makes writers wait instead of failing with SQLITE_BUSY, and every
 * read-then-write step runs in an IMMEDIATE transaction (taking the write lock up front, so it
 * cannot fail half-way on a lock upgrade). All methods are synchronous, like better-sqlite3.
 */
import Database from 'better-sqlite3';
import type { Clock } from '../ports/clock.js';
import { EventLog, type EventDraft, type EventFilter, type RunEvent, type StampedEvent } from './event-log.js';
import { migrate } from './migrations.js';
import {
  OccupancyTable,
  type Acquired,
  type ActiveOccupancy,
  type IsHolderGone,
  type OccupancyRecord,
  type OccupancyRequest,
} from './occupancy-table.js';
import { PreparationLocks, type IsIdentityAlive, type IsProcessAlive, type LockOwner, type PreparationLock } from './preparation-lock.js';
import { originOf, recordOrigin, type StateOrigin } from './state-origin.js';
import type { ProcessLiveness } from '../ports/process-liveness.js';
import { nodeProcessLiveness } from '../ports/node-process-liveness.js';
import { StateError } from './state-error.js';
import { codeOf } from '../../vfs/coded-error.js';
import { WorkspaceTable, type WorkspaceDraft, type WorkspacePatch, type WorkspaceRecord } from './workspace-table.js';
import { SubmissionTable, type SubmissionDraft, type SubmissionPatch, type SubmissionRecord } from './submission-table.js';
import { MessageTable, type MessageDraft, type MessageRecord } from './message-table.js';
import { LineageTable, type Lineage } from './lineage-table.js';
import { WindowClaimTable, type WindowClaim } from './window-claim-table.js';
import type { ProcessIdentity } from '../ports/process-liveness.js';

/** The lock key of a target branch's lander (a conversation id never holds a colon, so keys never meet). */
const landerKey = (target: string) => `lander:${target}`;

/** Options of `StateStore.open`. */
export interface StateStoreOptions {
  /** Source of every stored time (`createdAt`, `at`, `acquiredAt`, …). */
  clock: Clock;
  /** How long a writer waits for another process's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** Liveness of the processes that hold preparation locks (default: this machine's, pid + start time). */
  liveness?: ProcessLiveness;
  /** A pid-only liveness check for preparation locks (older option; `liveness` wins when both are given). */
  isProcessAlive?: IsProcessAlive;
}

/** The state database of one gatefs host. */
export class StateStore {
  private readonly workspaceTable: WorkspaceTable;
  private readonly log: EventLog;
  private readonly pendingEvents: StampedEvent[] = [];
  private flushTimer: NodeJS.Immediate | undefined;
  private readonly occupancyTable: OccupancyTable;
  private readonly locks: PreparationLocks;
  private readonly submissionTable: SubmissionTable;
  private readonly messageTable: MessageTable;
  private readonly lineageTable: LineageTable;
  private readonly windowClaims: WindowClaimTable;

  private constructor(
    private readonly db: Database.Database,
    /** The database file (':memory:' for an in-memory one): a host path, never shown to agents. */
    readonly file: string,
    options: StateStoreOptions,
  ) {
    this.workspaceTable = new WorkspaceTable(db, options.clock);
    this.log = new EventLog(db, options.clock);
    this.occupancyTable = new OccupancyTable(db, options.clock);
    const pidOnly = options.isProcessAlive;
    const alive: IsIdentityAlive = options.liveness
      ? (id) => options.liveness!.isAlive(id)
      : pidOnly
        ? (id) => pidOnly(id.pid)
        : (id) => nodeProcessLiveness.isAlive(id);
    this.locks = new PreparationLocks(db, options.clock, alive);
    this.submissionTable = new SubmissionTable(db, options.clock);
    this.messageTable = new MessageTable(db, options.clock);
    this.lineageTable = new LineageTable(db, options.clock);
    this.windowClaims = new WindowClaimTable(db, options.clock);
  }

  /**
   * Opens (creating if needed) the database at `file` (':memory:' for a private in-memory
   * one), sets WAL, synchronous=NORMAL and the busy timeout, and applies pending migrations.
   * The parent folder must exist. Throws `StateError` `OPEN_FAILED` naming the file (missing
   * folder, not a database, …) or `SCHEMA_TOO_NEW` (written by a newer gatefs).
   */
  static open(file: string, options: StateStoreOptions): StateStore {
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
      return new StateStore(db, file, options);
    } catch (e) {
      db?.close();
      if (e instanceof StateError) throw e;
      const reason = codeOf(e) ?? (e as Error).message;
      throw new StateError('OPEN_FAILED', `cannot open the state database '${file}' (${String(reason)})`, { file }, { cause: e });
    }
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction: every change it makes is committed together, or,
   * when it throws, none is (the error is rethrown). Nested calls become savepoints. `fn` must
   * be synchronous: better-sqlite3 throws a TypeError if it returns a promise.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Inserts or replaces a workspace record; `createdAt` is kept on replace. Result: the stored record. */
  putWorkspace(draft: WorkspaceDraft): WorkspaceRecord {
    return this.workspaceTable.put(draft);
  }

  /** The record of `conversation`, or null. */
  getWorkspace(conversation: string): WorkspaceRecord | null {
    return this.workspaceTable.get(conversation);
  }

  /** Every workspace record, sorted by conversation. */
  listWorkspaces(): WorkspaceRecord[] {
    return this.workspaceTable.list();
  }

  /** Changes some fields (`data` is replaced whole). Throws `WorkspaceError` `UNKNOWN_CONVERSATION`. */
  updateWorkspace(conversation: string, patch: WorkspacePatch): WorkspaceRecord {
    return this.workspaceTable.update(conversation, patch);
  }

  /** Removes a record (rollback of a failed preparation). Result: true when one existed. */
  deleteWorkspace(conversation: string): boolean {
    return this.workspaceTable.delete(conversation);
  }

  /** Appends one run-log event. Result: it, with `seq` and `at`. Throws `TypeError` for unserializable data. */
  appendEvent(draft: EventDraft): RunEvent {
    this.flushEvents();
    return this.log.append(draft);
  }

  /**
   * Appends one run-log event after the current turn of the event loop (the tool-call audit
   * records): its time is taken now and its order among this store's events is kept, but the
   * write (a commit, ~90 µs) happens after the caller's answer went out, and events appended
   * within one turn share one commit. Written before any other append, read or close of this
   * store; a process killed within that turn loses them. Throws `TypeError` for unserializable data.
   */
  appendEventSoon(draft: EventDraft): void {
    this.pendingEvents.push(this.log.stamp(draft));
    this.flushTimer ??= setImmediate(() => {
      try {
        this.flushEvents();
      } catch {
        // The database is busy or failing: the events stay held, and the next append, read or
        // close writes them or throws to its caller.
      }
    });
  }

  /** Writes the events `appendEventSoon` holds (nothing when there are none); on failure they stay held. */
  flushEvents(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pendingEvents.length === 0 || !this.db.open) return;
    const events = this.pendingEvents;
    if (events.length === 1) this.log.write(events[0]);
    else this.log.writeAll(events);
    events.length = 0;
  }

  /** Run-log events matching `filter`, oldest first. */
  events(filter?: EventFilter): RunEvent[] {
    this.flushEvents();
    return this.log.read(filter);
  }

  /** Occupies a conversation. Throws `WorkspaceError` `OCCUPIED` naming the current holder. */
  acquireOccupancy(request: OccupancyRequest): OccupancyRecord {
    return this.occupancyTable.acquire(request).record;
  }

  /**
   * Occupies a conversation, first ending (in the same transaction) every other holder for
   * which `isGone` answers true; see `OccupancyTable.acquire`. Result: the record and the
   * holders ended. Throws `WorkspaceError` `OCCUPIED` naming a live holder.
   */
  occupy(request: OccupancyRequest, isGone: IsHolderGone): Acquired {
    return this.occupancyTable.acquire(request, isGone);
  }

  /** Ends one active occupancy record by id (a holder whose process is gone). Result: true when it was active. */
  endOccupancy(id: number): boolean {
    return this.occupancyTable.end(id);
  }

  /** Active occupancy records of a conversation with their ids, oldest first. */
  activeOccupancy(conversation: string): ActiveOccupancy[] {
    return this.occupancyTable.activeRecords(conversation);
  }

  /** The oldest `exclusive-write` record of `conversation` not held by `holder`, or null (one indexed read). */
  blockingOccupant(conversation: string, holder: string | undefined): ActiveOccupancy | null {
    return this.occupancyTable.blockingOccupant(conversation, holder);
  }

  /** Ends a holder's occupancy. Result: true when it held one. */
  releaseOccupancy(conversation: string, holder: string): boolean {
    return this.occupancyTable.release(conversation, holder);
  }

  /** Active occupancy records of a conversation, oldest first. */
  occupancy(conversation: string): OccupancyRecord[] {
    return this.occupancyTable.current(conversation);
  }

  /** Every occupancy record of a conversation, released ones included. */
  occupancyHistory(conversation: string): OccupancyRecord[] {
    return this.occupancyTable.historyOf(conversation);
  }

  /** The holder with exclusive-write on `conversation` if it is not `holder`, else null. */
  blockingHolder(conversation: string, holder: string | undefined): string | null {
    return this.occupancyTable.blockingHolder(conversation, holder);
  }

  /** Tries to take the preparation lock (stale locks of dead pids are taken over). */
  tryLockPreparation(conversation: string, owner: LockOwner): boolean {
    return this.locks.tryLock(conversation, owner);
  }

  /** Releases the preparation lock held with `token`. Result: true when one was removed. */
  unlockPreparation(conversation: string, token: string): boolean {
    return this.locks.unlock(conversation, token);
  }

  /** The current preparation lock of a conversation (possibly stale), or null. */
  preparationLock(conversation: string): PreparationLock | null {
    return this.locks.get(conversation);
  }

  /** Appends a submission to its target's queue (`queued`). Result: the stored record. */
  insertSubmission(draft: SubmissionDraft): SubmissionRecord {
    return this.submissionTable.insert(draft);
  }

  /** The submission `id`, or null. */
  submission(id: string): SubmissionRecord | null {
    return this.submissionTable.get(id);
  }

  /** The submissions still queued on `target` (a full ref), first in line first. */
  pendingSubmissions(target: string): SubmissionRecord[] {
    return this.submissionTable.pending(target);
  }

  /** Every submission, oldest first. */
  submissions(): SubmissionRecord[] {
    return this.submissionTable.list();
  }

  /** Changes a submission. Throws `StateError` `NOT_FOUND`, `LANDED_SHA_FIXED` (see `SubmissionTable.update`). */
  updateSubmission(id: string, patch: SubmissionPatch): SubmissionRecord {
    return this.submissionTable.update(id, patch);
  }

  /** Landed submissions per lineage root conversation. */
  landedPerRoot(): Map<string, number> {
    return this.submissionTable.landedPerRoot();
  }

  /** Puts a message in the outbox unless its request id is there. Result: true when it was new. */
  deliverMessage(draft: MessageDraft): boolean {
    return this.messageTable.deliver(draft);
  }

  /** The messages for `conversation` (all when undefined), oldest first. */
  messages(conversation?: string): MessageRecord[] {
    return this.messageTable.list(conversation);
  }

  /** Records that `parent` started `conversation`. Result: its lineage. */
  recordLineage(conversation: string, parent: string): Lineage {
    return this.lineageTable.record(conversation, parent);
  }

  /** The lineage of `conversation` (a root when none is recorded). */
  lineageOf(conversation: string): Lineage {
    return this.lineageTable.of(conversation);
  }

  /** The window claims of `folderKey` (`serve --conversation auto`), by slot. */
  windowClaimsOf(folderKey: string): WindowClaim[] {
    return this.windowClaims.ofFolder(folderKey);
  }

  /** Records that `window` holds slot `slot` of `folderKey`. Result: the claim (its conversation is `<folderKey>-<slot>`). */
  claimWindow(folderKey: string, slot: number, window: ProcessIdentity): WindowClaim {
    return this.windowClaims.claim(folderKey, slot, window);
  }

  /** Tries to become the one lander of `target` across processes (a dead owner's lock is taken over). */
  tryLockLander(target: string, owner: LockOwner): boolean {
    return this.locks.tryLock(landerKey(target), owner);
  }

  /** Gives the lander lock of `target` back. Result: true when it was held with `token`. */
  unlockLander(target: string, token: string): boolean {
    return this.locks.unlock(landerKey(target), token);
  }

  /** The current lander lock of `target` (possibly stale), or null. */
  landerLock(target: string): PreparationLock | null {
    return this.locks.get(landerKey(target));
  }

  /** The proof of origin recorded when this database was created, or null (see `state-origin.ts`). */
  origin(): StateOrigin | null {
    return originOf(this.db);
  }

  /** Records the proof of origin unless one exists. Result: the origin now recorded. */
  recordOrigin(origin: StateOrigin): StateOrigin {
    return recordOrigin(this.db, origin);
  }

  /** True while the database is open. */
  get isOpen(): boolean {
    return this.db.open;
  }

  /** Closes the database. Calling it again does nothing. */
  close(): void {
    try {
      this.flushEvents();
    } finally {
      if (this.db.open) this.db.close();
    }
  }
}
