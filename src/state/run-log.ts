/**
 * `RunLog`: the store's run log as one object — append now, append soon (the tool-call audit
 * records, many to a commit), flush, read. Writes go through `EventLog`; the
 * events `appendSoon` holds are written before any other append, read or close of the store.
 */
import type { EventFilter, EventLog, RunEvent, StampedEvent } from './event-log.js';
import type { EventDraft } from './run-log-events.js';

/**
 * How long `appendSoon` holds its events before one commit writes them all: a commit costs
 * ~80 µs of the server's CPU, as much as the rest of a small read's work, and an agent's calls
 * come in bursts. Written sooner by any other append, read or close, and when
 * `APPEND_SOON_MAX_HELD` are held.
 */
export const APPEND_SOON_MS = 20;
/** The most events `appendSoon` holds before it writes them at once. */
const APPEND_SOON_MAX_HELD = 256;

/** The run log of one `StateStore` (see the file comment). */
export class RunLog {
  private readonly pending: StampedEvent[] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  /**
   * @param log the `events` table's statements
   * @param isOpen whether the database is still open (a flush after close writes nothing)
   */
  constructor(
    private readonly log: EventLog,
    private readonly isOpen: () => boolean,
  ) {}

  /** Appends one run-log event (a type of the catalogue, src/state/run-log-events.ts, with its data). Result: it, with `seq` and `at`. Throws `TypeError` for unserializable data. */
  append(draft: EventDraft): RunEvent {
    this.flush();
    return this.log.append(draft);
  }

  /**
   * Appends one run-log event soon (the tool-call audit records): its time is taken now and its
   * order among this store's events is kept, but the write happens after the caller's answer
   * went out, within `APPEND_SOON_MS`, and the events appended meanwhile share one commit.
   * Written before any other append, read or close of this store; a process killed within that
   * window loses them. Throws `TypeError` for unserializable data.
   */
  appendSoon(draft: EventDraft): void {
    this.pending.push(this.log.stamp(draft));
    if (this.pending.length >= APPEND_SOON_MAX_HELD) {
      this.flushSoon();
      return;
    }
    this.flushTimer ??= setTimeout(() => this.flushSoon(), APPEND_SOON_MS);
  }

  /** `flush`, keeping the events held when the database is busy or failing (the next append, read or close writes them or throws to its caller). */
  private flushSoon(): void {
    try {
      this.flush();
    } catch {
      // held: see above
    }
  }

  /** Writes the events `appendSoon` holds (nothing when there are none); on failure they stay held. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0 || !this.isOpen()) return;
    const events = this.pending;
    if (events.length === 1) this.log.write(events[0]);
    else this.log.writeAll(events);
    events.length = 0;
  }

  /** Run-log events matching `filter`, oldest first. */
  read(filter?: EventFilter): RunEvent[] {
    this.flush();
    return this.log.read(filter);
  }
}
