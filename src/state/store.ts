/**
 * `StateStore`: gatefs's durable state on better-sqlite3 — workspaces, the run log, occupancy,
 * preparation and lander locks, the lander's submissions and messages, lineage and window
 * claims — in one SQLite database (`<stateDir>/gatefs.db`, or ':memory:'). Each table is one
 * typed object (`store.workspaces`, `store.runLog`, …), so a caller that needs a few tables
 * depends on those alone (`Pick<StateStore, 'submissions' | …>`, as the lander does).
 *
 * Several processes may open the same file: WAL journal mode lets readers run beside one
 * writer, a 5 s busy timeout makes writers wait instead of failing with SQLITE_BUSY, and every
 * read-then-write step runs in an IMMEDIATE transaction (taking the write lock up front, so it
 * cannot fail half-way on a lock upgrade). Every method is synchronous, like better-sqlite3.
 */
import Database from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import type { ProcessLiveness } from '../ports/index.js';
import { nodeProcessLiveness } from '../ports/index.js';
import { codeOf } from '../../vfs/index.js';
import { EventLog } from './event-log.js';
import { LanderLocks } from './lander-locks.js';
import { LineageTable } from './lineage-table.js';
import { SnapshotTable } from './snapshot-table.js';
import { MessageTable } from './message-table.js';
import { migrate } from './migrations.js';
import { OccupancyTable } from './occupancy-table.js';
import { BindingTable } from './binding-table.js';
import { PreparationLocks, type IsIdentityAlive, type IsProcessAlive } from './preparation-lock.js';
import { RunLog } from './run-log.js';
import { RunTable } from './run-table.js';
import { ViewStamps } from './view-stamp.js';
import { OriginRecord } from './state-origin.js';
import { StateError } from './state-error.js';
import { SubmissionTable } from './submission-table.js';
import { WindowClaimTable } from './window-claim-table.js';
import { WorkspaceTable } from './workspace-table.js';

/** Options of `StateStore.open`. */
interface StateStoreOptions {
  /** Source of every stored time (`createdAt`, `at`, `acquiredAt`, …). */
  clock: Clock;
  /** How long a writer waits for another process's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** Liveness of the processes that hold preparation locks (default: this machine's, pid + start time). */
  liveness?: ProcessLiveness;
  /** A pid-only liveness check for preparation locks (older option; `liveness` wins when both are given). */
  isProcessAlive?: IsProcessAlive;
}

/** The state database of one gatefs host: one typed object per table (see the file comment). */
export class StateStore {
  /** The workspace records, one per conversation. */
  readonly workspaces: WorkspaceTable;
  /** The run log: append-only events. */
  readonly runLog: RunLog;
  /** Who holds which conversation (shared-read, exclusive-write), with history. */
  readonly occupancy: OccupancyTable;
  /** Cross-process locks by key: a conversation's preparation, `lower:<id>` for a copy's lower folder. */
  readonly preparationLocks: PreparationLocks;
  /** One lander per target branch across processes. */
  readonly landerLocks: LanderLocks;
  /** The lander's durable queue. */
  readonly submissions: SubmissionTable;
  /** The lander's outbox: reports, notes and inputs, once per request id. */
  readonly messages: MessageTable;
  /** Which conversation started which (subagents). */
  readonly lineage: LineageTable;
  /** The slots `serve --conversation auto` windows hold. */
  readonly windowClaims: WindowClaimTable;
  /** Snapshots of workspaces, the stamps of each conversation's last one, restores in progress. */
  readonly snapshots: SnapshotTable;
  /** Runs, visits, handoffs with their artifact records, auto-patches (src/state/run-table.ts). */
  readonly runs: RunTable;
  /** The agent model: agent identities, active workspaces and bindings (migration 11). */
  readonly bindings: BindingTable;
  /** A view's per-call freshness read: the run's newest handoff and the bindings version in one statement. */
  readonly viewStamps: ViewStamps;
  /** The proof of origin recorded when the database was created (see `state-origin.ts`). */
  readonly origin: OriginRecord;
  /** `readTogether`'s transaction function, made once (better-sqlite3 builds four wrappers per `transaction`). */
  private readonly reading: Database.Transaction<(fn: () => unknown) => unknown>;

  private constructor(
    private readonly db: Database.Database,
    /** The database file (':memory:' for an in-memory one): a host path, never shown to agents. */
    readonly file: string,
    options: StateStoreOptions,
  ) {
    const { clock } = options;
    this.workspaces = new WorkspaceTable(db, clock);
    this.runLog = new RunLog(new EventLog(db, clock), () => db.open);
    this.occupancy = new OccupancyTable(db, clock);
    this.preparationLocks = new PreparationLocks(db, clock, livenessOf(options));
    this.landerLocks = new LanderLocks(this.preparationLocks);
    this.submissions = new SubmissionTable(db, clock);
    this.messages = new MessageTable(db, clock);
    this.lineage = new LineageTable(db, clock);
    this.windowClaims = new WindowClaimTable(db, clock);
    this.snapshots = new SnapshotTable(db);
    this.runs = new RunTable(db, clock);
    this.bindings = new BindingTable(db, clock);
    this.viewStamps = new ViewStamps(db);
    this.origin = new OriginRecord(db);
    this.reading = db.transaction((fn: () => unknown) => fn());
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

  /**
   * Runs `fn`'s reads in one DEFERRED transaction: they see one consistent state of every table
   * and pay for one read lock instead of one each (a WAL read-mark lock and unlock per statement
   * otherwise). `fn` must be synchronous and must not write. Nested calls become savepoints.
   */
  readTogether<T>(fn: () => T): T {
    return this.reading.deferred(fn) as T;
  }

  /** True while the database is open. */
  get isOpen(): boolean {
    return this.db.open;
  }

  /** Closes the database, first writing the run-log events still held. Calling it again does nothing. */
  close(): void {
    try {
      this.runLog.flush();
    } finally {
      if (this.db.open) this.db.close();
    }
  }
}

/** The liveness check of preparation and lander locks: `liveness`, else the pid-only check, else this machine's. */
function livenessOf(options: StateStoreOptions): IsIdentityAlive {
  const { liveness, isProcessAlive } = options;
  if (liveness) return (id) => liveness.isAlive(id);
  if (isProcessAlive) return (id) => isProcessAlive(id.pid);
  return (id) => nodeProcessLiveness.isAlive(id);
}
