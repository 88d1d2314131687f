/**
 * Occupancy: who is working in a conversation's workspace, and how (and, when known, for which
 * client: the MCP client's name from initialize). Any number of holders may
 * hold `shared-read` together; `exclusive-write` excludes every other holder. Records are kept
 * after release (with `releasedAt`) as history. Each record names the process that took it
 * (pid and start time), so a holder whose process is gone can be ended by the next caller.
 * The tool gate asks `blockingOccupant` on every write, so that is a single prepared statement
 * on a partial index.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import type { ProcessIdentity } from '../ports/index.js';
import { WorkspaceError } from '../workspace-error.js';

/** The two access modes. */
export type OccupancyMode = 'shared-read' | 'exclusive-write';

/** One occupancy record. `releasedAt` is null while it is active. */
export interface OccupancyRecord {
  conversation: string;
  holder: string;
  mode: OccupancyMode;
  acquiredAt: number;
  releasedAt: number | null;
  /** The process that took it; absent when none was given (or the record predates them). */
  process?: ProcessIdentity;
  /** The client the holder serves (an MCP client's `clientInfo.name`), when known: what people call the holder. */
  client?: string;
}

/** A request to occupy a conversation. */
interface OccupancyRequest {
  conversation: string;
  holder: string;
  mode: OccupancyMode;
  /** The process taking it (recorded so a later caller can tell when it is gone). */
  process?: ProcessIdentity;
  /** The client the holder serves (`OccupancyRecord.client`); given again for a held record, it replaces the name. */
  client?: string;
}

/** An active record as `blockingOccupant` and `acquire` see it (with its row id). */
export interface ActiveOccupancy extends OccupancyRecord {
  id: number;
}

/** Answers whether an active record's holder is gone (its process ended) and may be ended. */
type IsHolderGone = (record: ActiveOccupancy) => boolean;

/** The result of `acquire`: the holder's record, and the gone holders it ended on the way. */
interface Acquired {
  record: OccupancyRecord;
  ended: ActiveOccupancy[];
}

interface Row {
  id: number;
  conversation: string;
  holder: string;
  mode: OccupancyMode;
  acquired_at: number;
  released_at: number | null;
  pid: number | null;
  pid_start: string | null;
  client: string | null;
}

function fromRow(r: Row): OccupancyRecord {
  return {
    conversation: r.conversation,
    holder: r.holder,
    mode: r.mode,
    acquiredAt: r.acquired_at,
    releasedAt: r.released_at,
    ...(r.pid === null ? {} : { process: { pid: r.pid, start: r.pid_start } }),
    ...(r.client === null ? {} : { client: r.client }),
  };
}

function activeFromRow(r: Row): ActiveOccupancy {
  return { ...fromRow(r), id: r.id };
}

/** Prepared statements over `occupancy`. Construct once per connection. */
export class OccupancyTable {
  private readonly active: Statement;
  private readonly history: Statement;
  private readonly insert: Statement;
  private readonly releaseById: Statement;
  private readonly releaseHolder: Statement;
  private readonly blocker: Statement;
  private readonly renameClient: Statement;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    const cols = 'id, conversation, holder, mode, acquired_at, released_at, pid, pid_start, client';
    this.active = db.prepare(`SELECT ${cols} FROM occupancy WHERE conversation = ? AND released_at IS NULL ORDER BY id`);
    this.history = db.prepare(`SELECT ${cols} FROM occupancy WHERE conversation = ? ORDER BY id`);
    this.insert = db.prepare(
      `INSERT INTO occupancy (conversation, holder, mode, acquired_at, pid, pid_start, client) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${cols}`,
    );
    this.renameClient = db.prepare(`UPDATE occupancy SET client = ? WHERE id = ? RETURNING ${cols}`);
    this.releaseById = db.prepare('UPDATE occupancy SET released_at = ? WHERE id = ? AND released_at IS NULL');
    this.releaseHolder = db.prepare('UPDATE occupancy SET released_at = ? WHERE conversation = ? AND holder = ? AND released_at IS NULL');
    this.blocker = db.prepare(
      `SELECT ${cols} FROM occupancy WHERE conversation = ? AND released_at IS NULL AND mode = 'exclusive-write' AND holder IS NOT ? ORDER BY id LIMIT 1`,
    );
  }

  /**
   * Occupies `conversation` for `holder` in `mode`, in one IMMEDIATE transaction (so two
   * processes cannot both win). Other holders for which `isGone` answers true are ended first,
   * in the same transaction, and returned in `ended`. Re-acquiring the same mode returns the
   * existing record; a different mode closes the holder's record and opens a new one (upgrade
   * or downgrade). Throws `WorkspaceError` `OCCUPIED` (data: conversation, holder, mode,
   * requestedBy, requestedMode) when another live holder has `exclusive-write`, or when
   * `exclusive-write` is asked while another live holder holds any mode.
   */
  acquire(request: OccupancyRequest, isGone: IsHolderGone = () => false): Acquired {
    const { conversation, holder, mode } = request;
    return this.db
      .transaction(() => {
        const now = this.clock.now();
        const ended: ActiveOccupancy[] = [];
        const rows: Row[] = [];
        for (const row of this.active.all(conversation) as Row[]) {
          const record = activeFromRow(row);
          if (row.holder !== holder && isGone(record)) {
            this.releaseById.run(now, row.id);
            ended.push(record);
          } else {
            rows.push(row);
          }
        }
        const others = rows.filter((r) => r.holder !== holder);
        const blocking = others.find((r) => r.mode === 'exclusive-write') ?? (mode === 'exclusive-write' ? others[0] : undefined);
        if (blocking) {
          throw new WorkspaceError(
            'OCCUPIED',
            `conversation '${conversation}' is occupied by '${blocking.holder}' (${blocking.mode}); '${holder}' cannot take ${mode}`,
            { conversation, holder: blocking.holder, mode: blocking.mode, requestedBy: holder, requestedMode: mode },
          );
        }
        const mine = rows.find((r) => r.holder === holder);
        const client = request.client ?? mine?.client ?? null;
        if (mine && mine.mode === mode) {
          const kept = client === mine.client ? mine : (this.renameClient.get(client, mine.id) as Row);
          return { record: fromRow(kept), ended };
        }
        if (mine) this.releaseById.run(now, mine.id);
        const p = request.process;
        return {
          record: fromRow(this.insert.get(conversation, holder, mode, now, p?.pid ?? null, p?.start ?? null, client) as Row),
          ended,
        };
      })
      .immediate();
  }

  /** Ends `holder`'s occupancy of `conversation`. Result: true when it held one. */
  release(conversation: string, holder: string): boolean {
    return this.releaseHolder.run(this.clock.now(), conversation, holder).changes > 0;
  }

  /** Ends one active record by id (a gone holder). Result: true when it was still active. */
  end(id: number): boolean {
    return this.releaseById.run(this.clock.now(), id).changes > 0;
  }

  /** Active records of `conversation`, oldest first. */
  current(conversation: string): OccupancyRecord[] {
    return (this.active.all(conversation) as Row[]).map(fromRow);
  }

  /** Active records of `conversation` with their row ids, oldest first. */
  activeRecords(conversation: string): ActiveOccupancy[] {
    return (this.active.all(conversation) as Row[]).map(activeFromRow);
  }

  /** Every record of `conversation`, released ones included, oldest first. */
  historyOf(conversation: string): OccupancyRecord[] {
    return (this.history.all(conversation) as Row[]).map(fromRow);
  }

  /** The oldest active `exclusive-write` record of `conversation` not held by `holder`, or null. */
  blockingOccupant(conversation: string, holder: string | undefined): ActiveOccupancy | null {
    const row = this.blocker.get(conversation, holder ?? null) as Row | undefined;
    return row ? activeFromRow(row) : null;
  }

  /** The holder with `exclusive-write` on `conversation` when it is not `holder`; else null. */
  blockingHolder(conversation: string, holder: string | undefined): string | null {
    return this.blockingOccupant(conversation, holder)?.holder ?? null;
  }
}
