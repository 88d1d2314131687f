/**
 * The proof of origin of a state database: what gatefs recorded when it created the database —
 * the inode numbers of the state directory and of the database file, their birth times (to the
 * nanosecond, where the file system keeps one: ext4, xfs, btrfs, tmpfs), their devices (kept
 * for messages, not compared: some file systems — overlay, btrfs subvolumes — hand out a new
 * device number after a remount, while inodes stay) and the owner's uid. A copied, cloned or
 * extracted state directory has new inodes and new birth times, so its recorded origin no
 * longer matches; `mv` within a file system keeps both. Inode numbers can be predicted (a
 * deterministic image, an inode freed and reused); the birth time of an extraction cannot, and
 * no archive or copy tool can set it.
 *
 * It is kept twice: in the database's `meta` table (here) and in the plain file
 * `<stateDir>/gatefs.origin` (`src/host/state-trust/state-trust.ts`), which is read before SQLite ever
 * opens the database — so an untrusted database is never opened, not even read-only (SQLite
 * would create `-wal`/`-shm` files next to it) — and compared with the table once it is.
 */
import type { Database as Db } from 'better-sqlite3';

/** A file system object as the proof records it. */
export interface FileIdentity {
  dev: number;
  ino: number;
  /** Birth time in nanoseconds since the epoch (decimal digits); absent where the file system has none. */
  born?: string;
}

/** What gatefs recorded when it created a state database. */
export interface StateOrigin {
  stateDir: FileIdentity;
  database: FileIdentity;
  uid: number;
}

const KEYS = { stateDir: 'origin.state_dir', database: 'origin.database', uid: 'origin.uid' } as const;

function parseIdentity(value: string | undefined): FileIdentity | null {
  const m = value === undefined ? null : /^(\d+):(\d+)(?::(\d+))?$/.exec(value);
  return m ? { dev: Number(m[1]), ino: Number(m[2]), ...(m[3] ? { born: m[3] } : {}) } : null;
}

function formatIdentity(id: FileIdentity): string {
  return `${id.dev}:${id.ino}${id.born ? `:${id.born}` : ''}`;
}

/** Parses an origin written by `formatOrigin`, or null when it is not one. */
export function parseOrigin(text: string): StateOrigin | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const v = value as { version?: unknown; stateDir?: unknown; database?: unknown; uid?: unknown };
  const id = (x: unknown): FileIdentity | null => {
    const o = x as { dev?: unknown; ino?: unknown; born?: unknown } | null;
    if (!o || !Number.isSafeInteger(o.dev) || !Number.isSafeInteger(o.ino)) return null;
    if (o.born !== undefined && (typeof o.born !== 'string' || !/^\d+$/.test(o.born))) return null;
    return { dev: o.dev as number, ino: o.ino as number, ...(o.born !== undefined ? { born: o.born as string } : {}) };
  };
  const stateDir = id(v?.stateDir);
  const database = id(v?.database);
  if (v?.version !== 1 || !stateDir || !database || !Number.isSafeInteger(v.uid)) return null;
  return { stateDir, database, uid: v.uid as number };
}

/** The text of an origin file: one JSON object, versioned. */
export function formatOrigin(origin: StateOrigin): string {
  return `${JSON.stringify({ version: 1, stateDir: origin.stateDir, database: origin.database, uid: origin.uid })}\n`;
}

/** True when two origins name the same state directory, database file and user (inodes, birth times, uid). */
export function sameOrigin(a: StateOrigin, b: StateOrigin): boolean {
  const same = (x: FileIdentity, y: FileIdentity) => x.ino === y.ino && x.born === y.born;
  return same(a.stateDir, b.stateDir) && same(a.database, b.database) && a.uid === b.uid;
}

/** The origin recorded in an open database, or null when it has none (or a malformed one). */
function originOf(db: Db): StateOrigin | null {
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
function recordOrigin(db: Db, origin: StateOrigin): StateOrigin {
  return db
    .transaction(() => {
      const existing = originOf(db);
      if (existing) return existing;
      const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      put.run(KEYS.stateDir, formatIdentity(origin.stateDir));
      put.run(KEYS.database, formatIdentity(origin.database));
      put.run(KEYS.uid, String(origin.uid));
      return origin;
    })
    .immediate();
}

/** The proof of origin of one open database, to read and to record (`StateStore.origin`). */
export class OriginRecord {
  constructor(private readonly db: Db) {}

  /** The origin recorded when the database was created, or null. */
  get(): StateOrigin | null {
    return originOf(this.db);
  }

  /** Records `origin` unless one exists (see `recordOrigin`). Result: the origin now recorded. */
  record(origin: StateOrigin): StateOrigin {
    return recordOrigin(this.db, origin);
  }
}
