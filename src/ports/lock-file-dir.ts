/**
 * `LockFileDir`: the disk host's cross-process locks (src/ports/cross-process-locks.ts), held by
 * the kernel on lock files under `<stateDir>/locks/`.
 *
 * Each lock file is an (empty) SQLite database used only for its file lock: holding a lock is
 * an open `BEGIN EXCLUSIVE` transaction on it, which SQLite takes with POSIX record locks
 * (`fcntl(F_SETLK)`). Why not an `O_EXCL` file holding pid + start time: the kernel drops a
 * record lock the moment its process dies (crash, SIGKILL, OOM), so there is no stale file to
 * detect, no pid to recycle, and no take-over race — two processes that both find an `O_EXCL`
 * file stale can both delete it and both believe they hold the lock, which nothing in Node 20
 * (no `flock`, no `renameat2`) can prevent. SQLite is the one record-lock API this package
 * already has (better-sqlite3), and it also keeps two connections of one process apart.
 *
 * Files: `<dir>/<xx>.lock`, `xx` the first two hex digits of sha256(lock key id): at most 256
 * files, never deleted (deleting a lock file another process holds open would split the lock).
 * Two files whose keys share a stripe wait for each other across processes (1 pair in 256):
 * slower, never wrong. Inside the process, one stripe is used by one caller at a time.
 *
 * Waiting: `acquire` retries with jittered exponential backoff (2 ms doubling to 100 ms) up to
 * `waitMs` (default 5 s), then answers null (the gate's `BUSY`). Out of descriptors → null too.
 *
 * Limits: processes must share the state directory (two gatefs installs with different state
 * dirs writing one host folder do not exclude each other; the compare-and-swap check of
 * tools/swap-file.ts still catches most of their races); the state directory must be on a file
 * system with working POSIX locks (local disks; some network file systems lie); a stopped
 * (SIGSTOP) holder keeps its lock, and every waiter answers `BUSY` until it goes on or dies.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { CrossProcessHold, CrossProcessLocks } from './cross-process-locks.js';
import { FileLocks } from '../../vfs/index.js';
import { foreignCodeOf } from '../../vfs/index.js';

const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);
const FIRST_DELAY_MS = 2;
const MAX_DELAY_MS = 100;

/** How a `LockFileDir` waits and how many lock files it keeps open. */
interface LockFileDirOptions {
  /** How long `acquire` waits for another process before answering null (default 5000 ms). */
  waitMs?: number;
  /** Connections kept open between calls (default 16); held ones are never closed early. */
  maxOpen?: number;
}

type Connection = InstanceType<typeof Database>;

/** Cross-process locks on lock files in one folder (see the file comment). */
export class LockFileDir implements CrossProcessLocks {
  readonly waitMs: number;
  private readonly maxOpen: number;
  /** Open connections by stripe, least recently used first. */
  private readonly open = new Map<string, Connection>();
  private readonly held = new Set<string>();
  /** One caller per stripe inside this process (a connection holds one transaction). */
  private readonly stripes = new FileLocks();
  private closed = false;
  private made = false;

  /**
   * `dir` must be gatefs's own (under the state directory); it is created (0700) on the first
   * `acquire`, so a host that never runs a compare-and-swap call leaves no trace.
   */
  constructor(
    readonly dir: string,
    options: LockFileDirOptions = {},
  ) {
    this.waitMs = options.waitMs ?? 5000;
    this.maxOpen = Math.max(1, options.maxOpen ?? 16);
  }

  /** See `CrossProcessLocks.acquire`. Throws for an unexpected SQLite or file-system failure. */
  async acquire(id: string): Promise<CrossProcessHold | null> {
    const stripe = createHash('sha256').update(id).digest('hex').slice(0, 2);
    const releaseStripe = await this.stripes.acquire({ scope: this, id: stripe });
    try {
      const deadline = Date.now() + this.waitMs;
      for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
        const db = this.connection(stripe);
        if (!db) break;
        if (tryBegin(db)) {
          this.held.add(stripe);
          return this.hold(stripe, db, releaseStripe);
        }
        const left = deadline - Date.now();
        if (left <= 0) break;
        await sleep(Math.min(left, delay * (0.5 + Math.random())));
      }
    } catch (e) {
      releaseStripe();
      throw e;
    }
    releaseStripe();
    return null;
  }

  /** Closes every connection not holding a lock; held ones close when released. Idempotent. */
  close(): void {
    this.closed = true;
    for (const [stripe, db] of this.open) {
      if (!this.held.has(stripe)) this.drop(stripe, db);
    }
  }

  private hold(stripe: string, db: Connection, releaseStripe: () => void): CrossProcessHold {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.held.delete(stripe);
        try {
          db.exec('COMMIT');
        } catch {
          // Closing the connection gives the kernel lock back whatever state it is in.
          this.drop(stripe, db);
        }
        if (this.closed) this.drop(stripe, db);
        releaseStripe();
        this.trim();
      },
    };
  }

  /** The stripe's connection (opened on first use), or null when out of descriptors. */
  private connection(stripe: string): Connection | null {
    const cached = this.open.get(stripe);
    if (cached) {
      this.open.delete(stripe);
      this.open.set(stripe, cached);
      return cached;
    }
    const path = join(this.dir, `${stripe}.lock`);
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    try {
      // Created here, not by SQLite, to refuse a link at the name and to see errno; exclusively,
      // because closing any descriptor of an existing lock file would drop the record locks this
      // process holds on it (another LockFileDir of this process, say a second host, may hold one).
      closeSync(openSync(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600));
    } catch (e) {
      const code = foreignCodeOf(e) ?? '';
      if (OUT_OF_DESCRIPTORS.has(code)) return null;
      if (code !== 'EEXIST') throw e;
      if (!lstatSync(path).isFile()) throw new Error(`${path} is not a regular file`);
    }
    let db: Connection;
    try {
      db = new Database(path, { timeout: 0, fileMustExist: true });
    } catch (e) {
      if (foreignCodeOf(e) === 'SQLITE_CANTOPEN') return null;
      throw e;
    }
    this.open.set(stripe, db);
    return db;
  }

  /** Closes least recently used idle connections beyond `maxOpen`. */
  private trim(): void {
    for (const [stripe, db] of this.open) {
      if (this.open.size <= this.maxOpen) return;
      if (!this.held.has(stripe)) this.drop(stripe, db);
    }
  }

  private drop(stripe: string, db: Connection): void {
    if (this.open.get(stripe) === db) this.open.delete(stripe);
    try {
      db.close();
    } catch {
      // already closed
    }
  }
}

/** True when the exclusive transaction was begun; false when another connection holds the file. */
function tryBegin(db: Connection): boolean {
  try {
    db.exec('BEGIN EXCLUSIVE');
    return true;
  } catch (e) {
    const code = foreignCodeOf(e);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return false;
    throw e;
  }
}

/** Opens the lock folder `<stateDir>/locks` (see `LockFileDir`). */
export function openLockFileDir(stateDir: string, options?: LockFileDirOptions): LockFileDir {
  return new LockFileDir(join(stateDir, 'locks'), options);
}
