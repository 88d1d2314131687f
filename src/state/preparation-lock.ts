/**
 * The cross-process preparation lock: at most one process prepares a given conversation at a
 * time, even when several `gatefs` processes share one state directory. The lock is a row in
 * `preparation_locks` claimed in an IMMEDIATE transaction. A lock whose owner pid is no longer
 * alive is stale (the owner crashed) and is taken over.
 *
 * Limits: liveness is asked of the process-liveness port on this machine (pid plus start
 * time where the platform tells it), so all processes sharing the state directory must run on
 * one host (SQLite over a network share is unsafe anyway). Without a start time, a recycled
 * pid makes a stale lock look alive until that process ends.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import type { ProcessIdentity } from '../ports/index.js';
import { StateError } from './state-error.js';
import { pidExists } from '../ports/index.js';

/** Who holds (or wants) the lock: the process (pid, start time when known) and a token unique to the attempt. */
export interface LockOwner {
  pid: number;
  token: string;
  /** The process's start time token (see `ProcessIdentity`); absent or null when unknown. */
  start?: string | null;
}

/** The current lock of a conversation. */
export interface PreparationLock extends LockOwner {
  conversation: string;
  lockedAt: number;
}

/** Answers whether a pid names a live process. */
export type IsProcessAlive = (pid: number) => boolean;

/** Answers whether a recorded process (pid and start time) still runs. */
export type IsIdentityAlive = (id: ProcessIdentity) => boolean;

/** The real check: signal 0 probes without delivering; EPERM means it exists under another user. */
export const isProcessAlive: IsProcessAlive = pidExists;

interface Row {
  conversation: string;
  pid: number;
  token: string;
  locked_at: number;
  pid_start: string | null;
}

/** Prepared statements over `preparation_locks`. Construct once per connection. */
export class PreparationLocks {
  private readonly select: Statement;
  private readonly upsert: Statement;
  private readonly remove: Statement;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly alive: IsIdentityAlive,
  ) {
    this.select = db.prepare('SELECT conversation, pid, token, locked_at, pid_start FROM preparation_locks WHERE conversation = ?');
    this.upsert = db.prepare(`INSERT INTO preparation_locks (conversation, pid, token, locked_at, pid_start) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (conversation) DO UPDATE SET pid = excluded.pid, token = excluded.token, locked_at = excluded.locked_at, pid_start = excluded.pid_start`);
    this.remove = db.prepare('DELETE FROM preparation_locks WHERE conversation = ? AND token = ?');
  }

  /**
   * Tries to take the lock. Result: true when `owner` now holds it (free, already held with the
   * same token, or taken over from a dead pid); false when a live process holds it (including
   * this process under another token). Throws `StateError` `INVALID_ARGUMENT` for a pid that is
   * not a positive integer or an empty token.
   */
  tryLock(conversation: string, owner: LockOwner): boolean {
    if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) {
      throw new StateError('INVALID_ARGUMENT', `preparation lock: pid must be a positive integer, got ${owner.pid}`, { pid: owner.pid });
    }
    if (owner.token === '') throw new StateError('INVALID_ARGUMENT', 'preparation lock: the token is empty');
    return this.db
      .transaction(() => {
        const row = this.select.get(conversation) as Row | undefined;
        if (row && row.token !== owner.token && this.alive({ pid: row.pid, start: row.pid_start })) return false;
        if (row && row.token === owner.token) return true;
        this.upsert.run(conversation, owner.pid, owner.token, this.clock.now(), owner.start ?? null);
        return true;
      })
      .immediate();
  }

  /** Releases the lock when `token` holds it. Result: true when a lock was removed. */
  unlock(conversation: string, token: string): boolean {
    return this.remove.run(conversation, token).changes > 0;
  }

  /** The current lock of `conversation` (possibly stale), or null. */
  get(conversation: string): PreparationLock | null {
    const row = this.select.get(conversation) as Row | undefined;
    return row
      ? {
          conversation: row.conversation,
          pid: row.pid,
          token: row.token,
          lockedAt: row.locked_at,
          ...(row.pid_start === null ? {} : { start: row.pid_start }),
        }
      : null;
  }
}
