/**
 * `ViewStamps`: the two facts a process re-reads on every tool call of a ready conversation to
 * see a change made elsewhere — the run's newest handoff id (routed artifacts, migration 10) and
 * the conversation's bindings version (the agent model, migration 11) — answered by one
 * statement, so the call pays for one read transaction instead of two
 * (src/host/lifecycle/registration.ts `followView`). Both lookups are indexed
 * (`handoffs_by_run`, the `agents` primary key).
 */
import type { Database, Statement } from 'better-sqlite3';

/** What `ViewStamps.of` answers. */
export interface ViewStamp {
  /** The run's newest handoff id, 0 when it has none (as `RunTable.lastHandoffOf`). */
  lastHandoff: number;
  /** The conversation's bindings version, null when it has no agents row (as `BindingTable.stateOf(c)?.version`). */
  bindingsVersion: number | null;
}

/** The per-call freshness read of a view (see the file comment). */
export class ViewStamps {
  private readonly both: Statement;

  constructor(db: Database) {
    this.both = db.prepare(
      'SELECT (SELECT MAX(id) FROM handoffs WHERE run = ?) AS lastHandoff, (SELECT version FROM agents WHERE conversation = ?) AS bindingsVersion',
    );
  }

  /** The newest handoff id of `run` and the bindings version of `conversation`, in one read. */
  of(run: string, conversation: string): ViewStamp {
    const row = this.both.get(run, conversation) as { lastHandoff: number | null; bindingsVersion: number | null };
    return { lastHandoff: row.lastHandoff ?? 0, bindingsVersion: row.bindingsVersion };
  }
}
