/**
 * The `workspaces` table: one record per conversation, its backend, state, pinned commit and
 * host checkout path. Records are never deleted by release (a `released` record is the
 * tombstone); `delete` exists to roll back a preparation that failed before it was usable.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Backend, Guarantee } from '../manifest/index.js';
import type { Clock } from '../ports/index.js';
import { WorkspaceError } from '../workspace-error.js';
import { stableStringify } from './stable-json.js';

/** The lifecycle of a recorded workspace. `failed` keeps the reason in `error`. */
type WorkspaceRecordState = 'preparing' | 'ready' | 'released' | 'failed';

/** One workspace as stored. */
export interface WorkspaceRecord {
  conversation: string;
  role: string;
  backend: Backend;
  guarantee: Guarantee;
  state: WorkspaceRecordState;
  branch: string | null;
  baseRef: string | null;
  pinnedSha: string | null;
  /** Host path of the checkout: for the host only, never shown to agents. */
  checkoutPath: string | null;
  error: string | null;
  /** Free JSON (mounts, disclosure set, …), stored with sorted keys. */
  data: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/**
 * What `put` takes: nullable fields default to null, `data` to {}. A whole `WorkspaceRecord`
 * is accepted too (so a record read earlier can be spread and put back), but its times are
 * ignored: they always come from the store's clock.
 */
export type WorkspaceDraft = Pick<WorkspaceRecord, 'conversation' | 'role' | 'backend' | 'guarantee' | 'state'> &
  Partial<Pick<WorkspaceRecord, 'branch' | 'baseRef' | 'pinnedSha' | 'checkoutPath' | 'error' | 'data' | 'createdAt' | 'updatedAt'>>;

/** What `update` takes: any field but the key and the times. */
type WorkspacePatch = Partial<Omit<WorkspaceRecord, 'conversation' | 'createdAt' | 'updatedAt'>>;

interface Row {
  conversation: string;
  role: string;
  backend: Backend;
  guarantee: Guarantee;
  state: WorkspaceRecordState;
  branch: string | null;
  base_ref: string | null;
  pinned_sha: string | null;
  checkout_path: string | null;
  error: string | null;
  data: string;
  created_at: number;
  updated_at: number;
}

function fromRow(r: Row): WorkspaceRecord {
  return {
    conversation: r.conversation,
    role: r.role,
    backend: r.backend,
    guarantee: r.guarantee,
    state: r.state,
    branch: r.branch,
    baseRef: r.base_ref,
    pinnedSha: r.pinned_sha,
    checkoutPath: r.checkout_path,
    error: r.error,
    data: JSON.parse(r.data) as Record<string, unknown>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const COLUMNS =
  'conversation, role, backend, guarantee, state, branch, base_ref, pinned_sha, checkout_path, error, data, created_at, updated_at';

/** Prepared statements over `workspaces`. Construct once per connection. */
export class WorkspaceTable {
  private readonly upsert: Statement;
  private readonly byConversation: Statement;
  private readonly all: Statement;
  private readonly remove: Statement;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.upsert = db.prepare(`
      INSERT INTO workspaces (${COLUMNS})
      VALUES (@conversation, @role, @backend, @guarantee, @state, @branch, @base_ref, @pinned_sha, @checkout_path, @error, @data, @now, @now)
      ON CONFLICT (conversation) DO UPDATE SET
        role = excluded.role, backend = excluded.backend, guarantee = excluded.guarantee, state = excluded.state,
        branch = excluded.branch, base_ref = excluded.base_ref, pinned_sha = excluded.pinned_sha,
        checkout_path = excluded.checkout_path, error = excluded.error, data = excluded.data, updated_at = excluded.updated_at
      RETURNING ${COLUMNS}`);
    this.byConversation = db.prepare(`SELECT ${COLUMNS} FROM workspaces WHERE conversation = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM workspaces ORDER BY conversation`);
    this.remove = db.prepare('DELETE FROM workspaces WHERE conversation = ?');
  }

  /**
   * Inserts or replaces the record of `draft.conversation` in one statement. `createdAt` is
   * the clock's time for a new record and kept on replace; `updatedAt` is the clock's time.
   */
  put(draft: WorkspaceDraft): WorkspaceRecord {
    const row = this.upsert.get({
      conversation: draft.conversation,
      role: draft.role,
      backend: draft.backend,
      guarantee: draft.guarantee,
      state: draft.state,
      branch: draft.branch ?? null,
      base_ref: draft.baseRef ?? null,
      pinned_sha: draft.pinnedSha ?? null,
      checkout_path: draft.checkoutPath ?? null,
      error: draft.error ?? null,
      data: stableStringify(draft.data ?? {}),
      now: this.clock.now(),
    }) as Row;
    return fromRow(row);
  }

  /** The record, or null. */
  get(conversation: string): WorkspaceRecord | null {
    const row = this.byConversation.get(conversation) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** Every record, sorted by conversation. */
  list(): WorkspaceRecord[] {
    return (this.all.all() as Row[]).map(fromRow);
  }

  /**
   * Applies `patch` (fields replace whole; `data` replaces the whole object) in one IMMEDIATE
   * transaction. Throws `WorkspaceError` `UNKNOWN_CONVERSATION` when there is no record.
   */
  update(conversation: string, patch: WorkspacePatch): WorkspaceRecord {
    return this.db
      .transaction(() => {
        const current = this.get(conversation);
        if (!current) {
          throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for conversation '${conversation}'`, { conversation });
        }
        const { createdAt: _c, updatedAt: _u, conversation: _k, ...rest } = { ...current, ...patch, conversation } as WorkspaceRecord;
        return this.put({ ...rest, conversation });
      })
      .immediate();
  }

  /** Removes the record. Result: true when there was one. */
  delete(conversation: string): boolean {
    return this.remove.run(conversation).changes > 0;
  }
}
