/**
 * Schema migrations of the state database, tracked in `PRAGMA user_version`. Each migration is
 * applied in its own IMMEDIATE transaction together with the version bump, so a crash leaves
 * the database at a whole version, and two processes opening a new database at once apply each
 * migration exactly once (the second re-reads the version after taking the write lock).
 * Migrations are append-only: never edit one that has shipped; add the next version.
 */
import type { Database } from 'better-sqlite3';
import { StateError } from './state-error.js';

/** One schema step. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** Every migration, in order; `version` counts up from 1. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'workspaces, events (run log), occupancy, preparation locks',
    sql: `
      CREATE TABLE workspaces (
        conversation  TEXT PRIMARY KEY,
        role          TEXT NOT NULL,
        backend       TEXT NOT NULL CHECK (backend IN ('shared', 'worktree', 'copy')),
        guarantee     TEXT NOT NULL CHECK (guarantee IN ('none', 'confined')),
        state         TEXT NOT NULL CHECK (state IN ('preparing', 'ready', 'released', 'failed')),
        branch        TEXT,
        base_ref      TEXT,
        pinned_sha    TEXT,
        checkout_path TEXT,
        error         TEXT,
        data          TEXT NOT NULL DEFAULT '{}',
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE events (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        at           INTEGER NOT NULL,
        type         TEXT NOT NULL,
        conversation TEXT,
        data         TEXT NOT NULL
      ) STRICT;
      CREATE INDEX events_by_conversation ON events (conversation, seq);
      CREATE INDEX events_by_type ON events (type, seq);
      CREATE TABLE occupancy (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation TEXT NOT NULL,
        holder       TEXT NOT NULL,
        mode         TEXT NOT NULL CHECK (mode IN ('shared-read', 'exclusive-write')),
        acquired_at  INTEGER NOT NULL,
        released_at  INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX occupancy_active ON occupancy (conversation, holder) WHERE released_at IS NULL;
      CREATE TABLE preparation_locks (
        conversation TEXT PRIMARY KEY,
        pid          INTEGER NOT NULL,
        token        TEXT NOT NULL,
        locked_at    INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    description: 'proof of origin (meta), holder processes (pid + start time) on occupancy and preparation locks',
    sql: `
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
      ALTER TABLE occupancy ADD COLUMN pid INTEGER;
      ALTER TABLE occupancy ADD COLUMN pid_start TEXT;
      ALTER TABLE preparation_locks ADD COLUMN pid_start TEXT;
    `,
  },
  {
    version: 3,
    description: 'the lander: submissions (a durable FIFO per source branch), the messages outbox, lineage',
    sql: `
      CREATE TABLE submissions (
        seq           INTEGER PRIMARY KEY AUTOINCREMENT,
        id            TEXT NOT NULL UNIQUE,
        request_id    TEXT NOT NULL UNIQUE,
        target        TEXT NOT NULL,
        conversation  TEXT NOT NULL,
        root          TEXT NOT NULL,
        chain         TEXT NOT NULL,
        commit_sha    TEXT NOT NULL,
        divergence    TEXT NOT NULL,
        summary       TEXT,
        state         TEXT NOT NULL CHECK (state IN ('queued', 'merging', 'checking', 'checked', 'landed', 'pushed', 'done', 'failed')),
        attempts      INTEGER NOT NULL DEFAULT 0,
        base_sha      TEXT,
        target_sha    TEXT,
        candidate_sha TEXT,
        landed_sha    TEXT,
        push_attempts INTEGER NOT NULL DEFAULT 0,
        push_error    TEXT,
        outcome       TEXT NOT NULL DEFAULT '{}',
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX submissions_by_target ON submissions (target, state, seq);
      CREATE INDEX submissions_by_root ON submissions (root, state);
      CREATE TRIGGER submissions_landed_once BEFORE UPDATE OF landed_sha ON submissions
        WHEN OLD.landed_sha IS NOT NULL AND NEW.landed_sha IS NOT OLD.landed_sha
        BEGIN SELECT RAISE(ABORT, 'landed_sha is recorded once and never changes'); END;
      CREATE TABLE messages (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id   TEXT NOT NULL UNIQUE,
        conversation TEXT NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('report', 'note', 'input')),
        submission   TEXT,
        body         TEXT NOT NULL,
        created_at   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX messages_by_conversation ON messages (conversation, seq);
      CREATE TABLE lineage (
        conversation TEXT PRIMARY KEY,
        parent       TEXT NOT NULL,
        root         TEXT NOT NULL,
        chain        TEXT NOT NULL,
        created_at   INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 4,
    description: 'window claims: which client window (its process) each --conversation auto workspace belongs to',
    sql: `
      CREATE TABLE window_claims (
        conversation TEXT PRIMARY KEY,
        folder_key   TEXT NOT NULL,
        slot         INTEGER NOT NULL CHECK (slot >= 1),
        pid          INTEGER NOT NULL,
        pid_start    TEXT,
        claimed_at   INTEGER NOT NULL,
        UNIQUE (folder_key, slot)
      ) STRICT;
    `,
  },
  {
    version: 5,
    description: 'submissions.pushed_sha: the remote commit that holds a landing (its re-merge onto a remote that moved)',
    sql: `
      ALTER TABLE submissions ADD COLUMN pushed_sha TEXT;
      CREATE TRIGGER submissions_pushed_once BEFORE UPDATE OF pushed_sha ON submissions
        WHEN OLD.pushed_sha IS NOT NULL AND NEW.pushed_sha IS NOT OLD.pushed_sha
        BEGIN SELECT RAISE(ABORT, 'pushed_sha is recorded once and never changes'); END;
    `,
  },
  {
    version: 6,
    description:
      'messages.read_at: when the messages tool first returned a message; submissions.blocked: why a move is blocked; submissions by conversation',
    sql: `
      ALTER TABLE messages ADD COLUMN read_at INTEGER;
      ALTER TABLE submissions ADD COLUMN blocked TEXT;
      CREATE INDEX submissions_by_conversation ON submissions (conversation, seq);
    `,
  },
  {
    version: 7,
    description: "occupancy.client: the MCP client's name from initialize (clientInfo.name), to name a holder by",
    sql: `
      ALTER TABLE occupancy ADD COLUMN client TEXT;
    `,
  },
  {
    version: 8,
    description: "workspaces.backend admits 'empty' (a scratch folder with no repository): the table rebuilt with the wider CHECK",
    sql: `
      CREATE TABLE workspaces_v8 (
        conversation  TEXT PRIMARY KEY,
        role          TEXT NOT NULL,
        backend       TEXT NOT NULL CHECK (backend IN ('shared', 'worktree', 'copy', 'empty')),
        guarantee     TEXT NOT NULL CHECK (guarantee IN ('none', 'confined')),
        state         TEXT NOT NULL CHECK (state IN ('preparing', 'ready', 'released', 'failed')),
        branch        TEXT,
        base_ref      TEXT,
        pinned_sha    TEXT,
        checkout_path TEXT,
        error         TEXT,
        data          TEXT NOT NULL DEFAULT '{}',
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL
      ) STRICT;
      INSERT INTO workspaces_v8 SELECT conversation, role, backend, guarantee, state, branch, base_ref, pinned_sha,
        checkout_path, error, data, created_at, updated_at FROM workspaces;
      DROP TABLE workspaces;
      ALTER TABLE workspaces_v8 RENAME TO workspaces;
    `,
  },
  {
    version: 9,
    description:
      'snapshots of workspaces; the file stamps of the last one (unchanged files are not read again); restores in progress (their journal)',
    sql: `
      CREATE TABLE snapshots (
        conversation TEXT NOT NULL,
        n INTEGER NOT NULL,
        label TEXT,
        reason TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        backend TEXT NOT NULL,
        commit_sha TEXT,
        manifest TEXT,
        files INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        stored_bytes INTEGER NOT NULL,
        skipped INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (conversation, n)
      ) STRICT;
      CREATE TABLE snapshot_stamps (
        conversation TEXT NOT NULL,
        path TEXT NOT NULL,
        stamp TEXT NOT NULL,
        oid TEXT NOT NULL,
        PRIMARY KEY (conversation, path)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE snapshot_heads (
        conversation TEXT PRIMARY KEY,
        n INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE snapshot_restores (
        conversation TEXT PRIMARY KEY,
        target INTEGER NOT NULL,
        before INTEGER NOT NULL,
        started_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 10,
    description:
      'runs and visits (the n-th conversation of a role in a run is its visit n), handoffs and ends of visits, the artifacts each handoff collected or rejected, and the auto-patches of worktree visits',
    sql: `
      CREATE TABLE runs (
        run TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        ended_at INTEGER,
        ended_by TEXT
      ) STRICT;
      CREATE TABLE visits (
        conversation TEXT PRIMARY KEY,
        run TEXT NOT NULL,
        role TEXT NOT NULL,
        visit INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        ending TEXT CHECK (ending IN ('handoff', 'end')),
        UNIQUE (run, role, visit)
      ) STRICT;
      CREATE TABLE handoffs (
        id INTEGER PRIMARY KEY,
        run TEXT NOT NULL,
        conversation TEXT NOT NULL,
        role TEXT NOT NULL,
        visit INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('handoff', 'end')),
        to_role TEXT,
        message TEXT,
        folder TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX handoffs_by_run ON handoffs (run, id);
      CREATE TABLE artifacts (
        handoff INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        path TEXT NOT NULL,
        record TEXT NOT NULL CHECK (record IN ('artifact_collected', 'artifact_rejected')),
        sha256 TEXT,
        bytes INTEGER,
        code TEXT,
        reason TEXT,
        PRIMARY KEY (handoff, seq)
      ) STRICT;
      CREATE TABLE patches (
        conversation TEXT NOT NULL,
        n INTEGER NOT NULL,
        run TEXT NOT NULL,
        role TEXT NOT NULL,
        visit INTEGER NOT NULL,
        reason TEXT NOT NULL,
        base_sha TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        files INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (conversation, n)
      ) STRICT;
    `,
  },
  {
    // The agent model (src/state/binding-table.ts): each conversation's agent identity and
    // active workspace, and its bindings (its own workspace and what it attached), each an
    // occupancy record with holder, mode, acquired and released times. At most one active
    // exclusive-write binding per workspace, enforced by a unique partial index.
    version: 11,
    description: 'agent model: agents (identity, active workspace), bindings (occupancy of workspaces by conversations)',
    sql: `
      CREATE TABLE agents (
        conversation TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        active TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE bindings (
        id INTEGER PRIMARY KEY,
        holder TEXT NOT NULL,
        workspace TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('shared-read', 'exclusive-write')),
        own INTEGER NOT NULL CHECK (own IN (0, 1)),
        acquired_at INTEGER NOT NULL,
        released_at INTEGER,
        end_reason TEXT
      ) STRICT;
      CREATE UNIQUE INDEX bindings_one_writer ON bindings (workspace) WHERE released_at IS NULL AND mode = 'exclusive-write';
      CREATE UNIQUE INDEX bindings_one_per_pair ON bindings (holder, workspace) WHERE released_at IS NULL;
      CREATE INDEX bindings_on_workspace ON bindings (workspace, id);
      CREATE INDEX bindings_of_holder ON bindings (holder, id);
      INSERT INTO agents (conversation, agent, active)
        SELECT conversation, role, conversation FROM workspaces WHERE state IN ('preparing', 'ready');
      INSERT INTO bindings (holder, workspace, mode, own, acquired_at)
        SELECT conversation, conversation, 'exclusive-write', 1, created_at FROM workspaces
        WHERE state = 'ready' AND backend <> 'shared';
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function versionOf(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings `db` to `SCHEMA_VERSION`. Result: the version found and the version reached. Throws
 * `StateError` `SCHEMA_TOO_NEW` when the database is newer than this code (it is left
 * untouched). An up-to-date database is only read, so readers never wait for the write lock.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  const tooNew = (v: number) =>
    new StateError('SCHEMA_TOO_NEW', `the state database has schema version ${v}, newer than this gatefs (${latest}): upgrade gatefs`, {
      found: v,
      supported: latest,
    });
  const found = versionOf(db);
  if (found > latest) throw tooNew(found);
  if (found === latest) return { from: found, to: found };
  for (const m of migrations) {
    db.transaction(() => {
      const current = versionOf(db);
      if (current > latest) throw tooNew(current);
      if (current >= m.version) return;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return { from: found, to: versionOf(db) };
}
