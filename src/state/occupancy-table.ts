/**
 * Occupancy: who is working in a conversation's workspace, and how. Any number of holders may
 * hold `shared-read` together; `exclusive-write` excludes every other holder. Records are kept
 * after release (with `releasedAt`) as history. The tool gate asks `blockingHolder` on every
 * write, so that is a single prepared statement on a partial index.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/clock.js';
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
}

/** A request to occupy a conversation. */
export interface OccupancyRequest {
  conversation: string;
  holder: string;
  mode: OccupancyMode;
}

interface Row { id: number; conversation: string; holder: string; mode: OccupancyMode; acquired_at: number; released_at: number | null }

function fromRow(r: Row): OccupancyRecord {
  return { conversation: r.conversation, holder: r.holder, mode: r.mode, acquiredAt: r.acquired_at, releasedAt: r.released_at };
}

/** Prepared statements over `occupancy`. Construct once per connection. */
export class OccupancyTable {
  private readonly active: Statement;
  private readonly history: Statement;
  private readonly insert: Statement;
  private readonly releaseById: Statement;
  private readonly releaseHolder: Statement;
  private readonly blocker: Statement;

  constructor(private readonly db: Database, private readonly clock: Clock) {
    const cols = 'id, conversation, holder, mode, acquired_at, released_at';
    this.active = db.prepare(`SELECT ${cols} FROM occupancy WHERE conversation = ? AND released_at IS NULL ORDER BY id`);
    this.history = db.prepare(`SELECT ${cols} FROM occupancy WHERE conversation = ? ORDER BY id`);
    this.insert = db.prepare(`INSERT INTO occupancy (conversation, holder, mode, acquired_at) VALUES (?, ?, ?, ?) RETURNING ${cols}`);
    this.releaseById = db.prepare('UPDATE occupancy SET released_at = ? WHERE id = ?');
    this.releaseHolder = db.prepare('UPDATE occupancy SET released_at = ? WHERE conversation = ? AND holder = ? AND released_at IS NULL');
    this.blocker = db.prepare(
      "SELECT holder FROM occupancy WHERE conversation = ? AND released_at IS NULL AND mode = 'exclusive-write' AND holder IS NOT ? LIMIT 1",
    ).pluck();
  }

  /**
   * Occupies `conversation` for `holder` in `mode`, in one IMMEDIATE transaction (so two
   * processes cannot both win). Re-acquiring the same mode returns the existing record; a
   * different mode closes the holder's record and opens a new one (upgrade or downgrade).
   * Throws `WorkspaceError` `OCCUPIED` (data: conversation, holder, mode, requestedBy,
   * requestedMode) when another holder has `exclusive-write`, or when `exclusive-write` is
   * asked while another holder holds any mode.
   */
  acquire(request: OccupancyRequest): OccupancyRecord {
    const { conversation, holder, mode } = request;
    return this.db.transaction(() => {
      const rows = this.active.all(conversation) as Row[];
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
      if (mine && mine.mode === mode) return fromRow(mine);
      const now = this.clock.now();
      if (mine) this.releaseById.run(now, mine.id);
      return fromRow(this.insert.get(conversation, holder, mode, now) as Row);
    }).immediate();
  }

  /** Ends `holder`'s occupancy of `conversation`. Result: true when it held one. */
  release(conversation: string, holder: string): boolean {
    return this.releaseHolder.run(this.clock.now(), conversation, holder).changes > 0;
  }

  /** Active records of `conversation`, oldest first. */
  current(conversation: string): OccupancyRecord[] {
    return (this.active.all(conversation) as Row[]).map(fromRow);
  }

  /** Every record of `conversation`, released ones included, oldest first. */
  historyOf(conversation: string): OccupancyRecord[] {
    return (this.history.all(conversation) as Row[]).map(fromRow);
  }

  /** The holder with `exclusive-write` on `conversation` when it is not `holder`; else null. */
  blockingHolder(conversation: string, holder: string | undefined): string | null {
    return (this.blocker.get(conversation, holder ?? null) as string | undefined) ?? null;
  }
}
