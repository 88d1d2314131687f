/**
 * The proof of origin of a state database: what gatefs recorded in the `meta` table when it
 * created the database — the inode numbers of the state directory and of the database file,
 * their devices (for messages only) and the owner's uid. A copied, cloned or extracted state
 * directory has new inodes, so its recorded origin no longer matches; `mv` within a file
 * system keeps them. (Devices are not compared: some file systems — overlay, btrfs
 * subvolumes — hand out a new device number after a remount, inodes stay.)
 *
 * `readStateOrigin` reads it from a database file before the store opens it for writing: a
 * read-only connection, no pragma, no migration, nothing written, so an untrusted file is
 * looked at and never changed.
 */
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';

/** A file system object as the proof records it. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** What gatefs recorded when it created a state database. */
export interface StateOrigin {
  stateDir: FileIdentity;
  database: FileIdentity;
  uid: number;
}

/** What `readStateOrigin` found in a database file. */
export type OriginProbe =
  | { kind: 'origin'; origin: StateOrigin }
  /** A gatefs database without a proof of origin (written by an earlier gatefs, or forged). */
  | { kind: 'no-origin'; schemaVersion: number }
  /** Not a SQLite database gatefs can read. */
  | { kind: 'unreadable'; reason: string };

const KEYS = { stateDir: 'origin.state_dir', database: 'origin.database', uid: 'origin.uid' } as const;

function parseIdentity(value: string | undefined): FileIdentity | null {
  const m = value === undefined ? null : /^(\d+):(\d+)$/.exec(value);
  return m ? { dev: Number(m[1]), ino: Number(m[2]) } : null;
}

/** The origin recorded in an open database, or null when it has none (or a malformed one). */
export function originOf(db: Db): StateOrigin | null {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").pluck().get() !== undefined;
  if (!hasMeta) return null;
  const rows = db.prepare("SELECT key, value FROM meta WHERE key LIKE 'origin.%'").all() as { key: string; value: string }[];
  const map = new Map(rows.map((r) => [r.key, r.value]));
  const stateDir = parseIdentity(map.get(KEYS.stateDir));
  const database = parseIdentity(map.get(KEYS.database));
  const uid = map.get(KEYS.uid);
  if (!stateDir || !database || uid === undefined || !/^\d+$/.test(uid)) return null;
  return { stateDir, database, uid: Number(uid) };
}

/**
 * Records `origin` unless one is recorded already, in one IMMEDIATE transaction (two
 * processes creating the same database at once both end up with the first one's record).
 * Result: the origin now recorded. The `meta` table must exist (schema version 2 or later).
 */
export function recordOrigin(db: Db, origin: StateOrigin): StateOrigin {
  return db.transaction(() => {
    const existing = originOf(db);
    if (existing) return existing;
    const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    put.run(KEYS.stateDir, `${origin.stateDir.dev}:${origin.stateDir.ino}`);
    put.run(KEYS.database, `${origin.database.dev}:${origin.database.ino}`);
    put.run(KEYS.uid, String(origin.uid));
    return origin;
  }).immediate();
}

/**
 * Reads the proof of origin of the database at `file` through a read-only connection (see the
 * file comment). Never throws for a bad file: `unreadable` names why.
 */
export function readStateOrigin(file: string): OriginProbe {
  let db: Db | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const version = db.pragma('user_version', { simple: true }) as number;
    const origin = originOf(db);
    return origin ? { kind: 'origin', origin } : { kind: 'no-origin', schemaVersion: version };
  } catch (e) {
    return { kind: 'unreadable', reason: String((e as { code?: unknown }).code ?? (e as Error).message) };
  } finally {
    db?.close();
  }
}
