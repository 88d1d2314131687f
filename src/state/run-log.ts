/**
 * `RunLog`: the store's run log as one object — append now, append after the current turn of
 * the event loop (the tool-call audit records), flush, read. Writes go through `EventLog`; the
 * events `appendSoon` holds are written before any other append, read or close of the store.
 */
import type { EventFilter, EventLog, RunEvent, StampedEvent } from './event-log.js';
import type { EventDraft } from './run-log-events.js';

/** The run log of one `StateStore` (see the file comment). */
export class RunLog {
  private readonly pending: StampedEvent[] = [];
  private flushTimer: NodeJS.Immediate | undefined;

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
   * Appends one run-log event after the current turn of the event loop (the tool-call audit
   * records): its time is taken now and its order among this store's events is kept, but the
   * write (a commit, ~90 µs) happens after the caller's answer went out, and events appended
   * within one turn share one commit. Written before any other append, read or close of this
   * store; a process killed within that turn loses them. Throws `TypeError` for unserializable data.
   */
  appendSoon(draft: EventDraft): void {
    this.pending.push(this.log.stamp(draft));
    this.flushTimer ??= setImmediate(() => {
      try {
        this.flush();
      } catch {
        // The database is busy or failing: the events stay held, and the next append, read or
        // close writes them or throws to its caller.
      }
    });
  }

  /** Writes the events `appendSoon` holds (nothing when there are none); on failure they stay held. */
  flush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
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
