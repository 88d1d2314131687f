/**
 * The snapshot tables (migration 9): `snapshots`, one row per snapshot of a conversation's
 * workspace (numbered per conversation); `snapshot_stamps`, what the files of a conversation's
 * last snapshot looked like (`stamp`) and what they hold (`oid`), so the next snapshot reads only
 * the files that changed; `snapshot_heads`, the snapshot those stamps describe; and
 * `snapshot_restores`, the journal of a restore in progress (written before its first change to
 * the workspace, removed after its last), which the next host finishes after a crash.
 *
 * A snapshot is committed by one transaction (`record`): its row, the new stamps and the head.
 * Its objects are written before, so a crash leaves either no row (the objects are unreferenced
 * and harmless) or a complete snapshot.
 */
import type { Database, Statement } from 'better-sqlite3';

/** One `snapshots` row as the host reads it. */
export interface SnapshotRow {
  conversation: string;
  n: number;
  label: string | null;
  reason: string;
  createdAt: number;
  backend: string;
  /** A worktree snapshot's commit. */
  commit: string | null;
  /** A stored snapshot's manifest (its content id). */
  manifest: string | null;
  files: number;
  bytes: number;
  storedBytes: number;
  /** Entries left out: special files (FIFOs, sockets, devices) and names that are not UTF-8. */
  skipped: number;
}

/** A file's stamp and object id as the last snapshot saw them. */
export interface FileStamp {
  stamp: string;
  oid: string;
}

/** A restore in progress: the snapshot restored and the one taken before. */
export interface RestoreJournal {
  conversation: string;
  target: number;
  before: number;
  startedAt: number;
}

interface Row {
  conversation: string;
  n: number;
  label: string | null;
  reason: string;
  created_at: number;
  backend: string;
  commit_sha: string | null;
  manifest: string | null;
  files: number;
  bytes: number;
  stored_bytes: number;
  skipped: number;
}

/** Prepared statements over the snapshot tables. Construct once per connection. */
export class SnapshotTable {
  private readonly insert: Statement;
  private readonly byConversation: Statement;
  private readonly one: Statement;
  private readonly maxN: Statement;
  private readonly stampsOf: Statement;
  private readonly putStamp: Statement;
  private readonly dropStamp: Statement;
  private readonly dropStamps: Statement;
  private readonly putHead: Statement;
  private readonly dropHead: Statement;
  private readonly dropRows: Statement;
  private readonly journalOf: Statement;
  private readonly journals: Statement;
  private readonly putJournal: Statement;
  private readonly dropJournal: Statement;
  private readonly totals: Statement;
  private readonly allManifests: Statement;
  private readonly headRow: Statement;
  /**
   * The stamps last read or written per conversation in this process, with the head row they
   * describe (its number and time): read again only when the head moved (another process took a
   * snapshot, or the snapshots were removed and numbered anew). 20,000 rows cost some 40 ms to read.
   */
  private readonly cached = new Map<string, { head: number; at: number; files: Map<string, FileStamp> }>();

  constructor(private readonly db: Database) {
    this.insert = db.prepare(
      `INSERT INTO snapshots (conversation, n, label, reason, created_at, backend, commit_sha, manifest, files, bytes, stored_bytes, skipped)
       VALUES (@conversation, @n, @label, @reason, @createdAt, @backend, @commit, @manifest, @files, @bytes, @storedBytes, @skipped)`,
    );
    this.byConversation = db.prepare('SELECT * FROM snapshots WHERE conversation = ? ORDER BY n');
    this.one = db.prepare('SELECT * FROM snapshots WHERE conversation = ? AND n = ?');
    this.maxN = db.prepare('SELECT MAX(n) AS n FROM snapshots WHERE conversation = ?');
    this.stampsOf = db.prepare('SELECT path, stamp, oid FROM snapshot_stamps WHERE conversation = ?');
    this.putStamp = db.prepare(
      `INSERT INTO snapshot_stamps (conversation, path, stamp, oid) VALUES (?, ?, ?, ?)
       ON CONFLICT (conversation, path) DO UPDATE SET stamp = excluded.stamp, oid = excluded.oid`,
    );
    this.dropStamp = db.prepare('DELETE FROM snapshot_stamps WHERE conversation = ? AND path = ?');
    this.dropStamps = db.prepare('DELETE FROM snapshot_stamps WHERE conversation = ?');
    this.putHead = db.prepare(
      'INSERT INTO snapshot_heads (conversation, n) VALUES (?, ?) ON CONFLICT (conversation) DO UPDATE SET n = excluded.n',
    );
    this.dropHead = db.prepare('DELETE FROM snapshot_heads WHERE conversation = ?');
    this.dropRows = db.prepare('DELETE FROM snapshots WHERE conversation = ?');
    this.journalOf = db.prepare('SELECT * FROM snapshot_restores WHERE conversation = ?');
    this.journals = db.prepare('SELECT * FROM snapshot_restores ORDER BY conversation');
    this.putJournal = db.prepare(
      'INSERT INTO snapshot_restores (conversation, target, before, started_at) VALUES (?, ?, ?, ?) ON CONFLICT (conversation) DO UPDATE SET target = excluded.target, before = excluded.before, started_at = excluded.started_at',
    );
    this.dropJournal = db.prepare('DELETE FROM snapshot_restores WHERE conversation = ?');
    this.totals = db.prepare('SELECT COUNT(*) AS count, COALESCE(SUM(stored_bytes), 0) AS bytes FROM snapshots WHERE conversation = ?');
    this.allManifests = db.prepare('SELECT manifest FROM snapshots WHERE manifest IS NOT NULL');
    this.headRow = db.prepare(
      'SELECT h.n AS n, s.created_at AS at FROM snapshot_heads h LEFT JOIN snapshots s ON s.conversation = h.conversation AND s.n = h.n WHERE h.conversation = ?',
    );
  }

  /** The conversation's snapshots, oldest first. */
  list(conversation: string): SnapshotRow[] {
    return (this.byConversation.all(conversation) as Row[]).map(rowOf);
  }

  /** One snapshot, or undefined. */
  get(conversation: string, n: number): SnapshotRow | undefined {
    const row = this.one.get(conversation, n) as Row | undefined;
    return row ? rowOf(row) : undefined;
  }

  /** The number the next snapshot of `conversation` gets. */
  nextNumber(conversation: string): number {
    return ((this.maxN.get(conversation) as { n: number | null }).n ?? 0) + 1;
  }

  /** Count and stored bytes of a conversation's snapshots. */
  totalsOf(conversation: string): { count: number; bytes: number } {
    return this.totals.get(conversation) as { count: number; bytes: number };
  }

  /**
   * The stamps of the conversation's last snapshot, by path, and the snapshot they describe (null:
   * none). The map is the table's own: callers read it, never change it.
   */
  stamps(conversation: string): { head: number | null; files: ReadonlyMap<string, FileStamp> } {
    const head = this.headRow.get(conversation) as { n: number; at: number | null } | undefined;
    if (!head) return { head: null, files: new Map() };
    const cached = this.cached.get(conversation);
    if (cached && cached.head === head.n && cached.at === head.at) return { head: head.n, files: cached.files };
    const files = new Map<string, FileStamp>();
    for (const r of this.stampsOf.all(conversation) as { path: string; stamp: string; oid: string }[])
      files.set(r.path, { stamp: r.stamp, oid: r.oid });
    this.cached.set(conversation, { head: head.n, at: head.at ?? -1, files });
    return { head: head.n, files };
  }

  /**
   * Commits a snapshot: its row, the stamps that changed (`stamps`: set; `gone`: removed) and the
   * head, in one transaction.
   */
  record(row: SnapshotRow, stamps: ReadonlyMap<string, FileStamp>, gone: readonly string[]): void {
    this.db
      .transaction(() => {
        this.insert.run({ ...row });
        for (const path of gone) this.dropStamp.run(row.conversation, path);
        for (const [path, s] of stamps) this.putStamp.run(row.conversation, path, s.stamp, s.oid);
        this.putHead.run(row.conversation, row.n);
      })
      .immediate();
    const cached = this.cached.get(row.conversation);
    this.cached.delete(row.conversation);
    if (cached) {
      for (const path of gone) cached.files.delete(path);
      for (const [path, s] of stamps) cached.files.set(path, s);
      this.cached.set(row.conversation, { head: row.n, at: row.createdAt, files: cached.files });
    }
  }

  /** Forgets the stamps (the next snapshot reads every file again). */
  forgetStamps(conversation: string): void {
    this.cached.delete(conversation);
    this.db
      .transaction(() => {
        this.dropStamps.run(conversation);
        this.dropHead.run(conversation);
      })
      .immediate();
  }

  /** Removes every snapshot row, stamp and head of a conversation. */
  removeAll(conversation: string): void {
    this.cached.delete(conversation);
    this.db
      .transaction(() => {
        this.dropRows.run(conversation);
        this.dropStamps.run(conversation);
        this.dropHead.run(conversation);
      })
      .immediate();
  }

  /** The manifest ids of every stored snapshot (what the content store must keep). */
  manifests(): string[] {
    return (this.allManifests.all() as { manifest: string }[]).map((r) => r.manifest);
  }

  /** The restore in progress for `conversation`, if any. */
  journal(conversation: string): RestoreJournal | undefined {
    const r = this.journalOf.get(conversation) as { conversation: string; target: number; before: number; started_at: number } | undefined;
    return r ? { conversation: r.conversation, target: r.target, before: r.before, startedAt: r.started_at } : undefined;
  }

  /** Every restore in progress. */
  allJournals(): RestoreJournal[] {
    return (this.journals.all() as { conversation: string; target: number; before: number; started_at: number }[]).map((r) => ({
      conversation: r.conversation,
      target: r.target,
      before: r.before,
      startedAt: r.started_at,
    }));
  }

  /** Records that a restore of `conversation` to `target` starts (`before`: the snapshot taken first). */
  beginRestore(conversation: string, target: number, before: number, at: number): void {
    this.putJournal.run(conversation, target, before, at);
  }

  /** Ends the restore of `conversation` (its journal row goes). */
  endRestore(conversation: string): void {
    this.dropJournal.run(conversation);
  }
}

function rowOf(r: Row): SnapshotRow {
  return {
    conversation: r.conversation,
    n: r.n,
    label: r.label,
    reason: r.reason,
    createdAt: r.created_at,
    backend: r.backend,
    commit: r.commit_sha,
    manifest: r.manifest,
    files: r.files,
    bytes: r.bytes,
    storedBytes: r.stored_bytes,
    skipped: r.skipped,
  };
}
