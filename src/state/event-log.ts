/**
 * The run log: append-only events in the `events` table. `seq` is assigned by SQLite
 * (AUTOINCREMENT: strictly increasing, never reused, shared by every process on the database);
 * `at` comes from the clock; `data` is stored as deterministic JSON. What may be appended is the
 * catalogue's (`EventDraft`, src/state/run-log-events.ts).
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import type { EventDraft } from './run-log-events.js';
import { stableStringify } from './stable-json.js';

/**
 * One run-log record, oldest first, as plain data, read back as it was written: its `type` is
 * one of the catalogue's (src/state/run-log-events.ts) unless an older gatefs wrote it.
 */
export interface RunEvent {
  seq: number;
  at: number;
  type: string;
  conversation: string | null;
  data: Record<string, unknown>;
}

/** An event whose time is taken and data serialized, not yet written (`EventLog.stamp`). */
export interface StampedEvent {
  type: string;
  conversation: string | null;
  json: string;
  at: number;
}

/** Which events to read; every field narrows, all are optional. */
export interface EventFilter {
  conversation?: string;
  type?: string;
  /** Only events with `seq` greater than this (for tailing). */
  afterSeq?: number;
  /** At most this many (the oldest matching ones). */
  limit?: number;
  /** Only the newest this many matching ones, still returned oldest first (`limit` is then ignored): a log's tail. */
  last?: number;
}

interface Row {
  seq: number;
  at: number;
  type: string;
  conversation: string | null;
  data: string;
}

function fromRow(r: Row): RunEvent {
  return { seq: r.seq, at: r.at, type: r.type, conversation: r.conversation, data: JSON.parse(r.data) as Record<string, unknown> };
}

/** Prepared statements over `events`. Construct once per connection. */
export class EventLog {
  private readonly insert: Statement;
  private readonly queries = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.insert = db.prepare('INSERT INTO events (at, type, conversation, data) VALUES (?, ?, ?, ?)');
  }

  /**
   * Appends one event in its own autocommit transaction (durable at the next WAL checkpoint
   * with synchronous=NORMAL; safe against process crashes). Result: the stored event with its
   * `seq`. Throws `TypeError` when `data` holds a bigint or a cycle (nothing is written).
   */
  append(draft: EventDraft): RunEvent {
    return this.write(this.stamp(draft));
  }

  /**
   * `draft` with its time taken now and its data serialized, to be written later by `write`
   * (the order of writes is the order of `seq`). Throws `TypeError` as `append` does.
   */
  stamp(draft: EventDraft): StampedEvent {
    const json = stableStringify(draft.data);
    return { type: draft.type, conversation: draft.conversation, json, at: this.clock.now() };
  }

  /** Writes one stamped event in its own autocommit transaction. Result: the stored event. */
  write(event: StampedEvent): RunEvent {
    const seq = Number(this.insert.run(event.at, event.type, event.conversation, event.json).lastInsertRowid);
    return {
      seq,
      at: event.at,
      type: event.type,
      conversation: event.conversation,
      data: JSON.parse(event.json) as Record<string, unknown>,
    };
  }

  /** Writes stamped events in order, in one transaction (one commit for all of them). */
  writeAll(events: readonly StampedEvent[]): void {
    this.db.transaction(() => {
      for (const e of events) this.insert.run(e.at, e.type, e.conversation, e.json);
    })();
  }

  /** Events matching `filter`, oldest first. */
  read(filter: EventFilter = {}): RunEvent[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (filter.conversation !== undefined) {
      where.push('conversation = ?');
      params.push(filter.conversation);
    }
    if (filter.type !== undefined) {
      where.push('type = ?');
      params.push(filter.type);
    }
    if (filter.afterSeq !== undefined) {
      where.push('seq > ?');
      params.push(filter.afterSeq);
    }
    const count = filter.last ?? filter.limit;
    const limit = count !== undefined ? ' LIMIT ?' : '';
    if (count !== undefined) params.push(Math.max(0, Math.floor(count)));
    const order = filter.last !== undefined ? ' DESC' : '';
    const sql = `SELECT seq, at, type, conversation, data FROM events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq${order}${limit}`;
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.queries.set(sql, stmt);
    }
    const rows = (stmt.all(...params) as Row[]).map(fromRow);
    return filter.last !== undefined ? rows.reverse() : rows;
  }
}
