/**
 * `WriteDoorDir`: the disk host's write doors (src/ports/write-door.ts), one per conversation,
 * held by the kernel on files `<stateDir>/locks/door-<conversation>.lock`.
 *
 * Each door file is an (empty) SQLite database used only for its file lock, as the lock files
 * of src/ports/lock-file-dir.ts are: a writer inside the door holds SQLite's SHARED lock (an
 * open read transaction), a release holds its EXCLUSIVE lock (`BEGIN EXCLUSIVE`). Both are
 * POSIX record locks, so any number of writers of any process are inside together, a release
 * shuts the door only once all of them have left, no writer enters while it is shut, and a
 * process that dies (crash, SIGKILL) drops whatever it held: there is no stale state to clean.
 * SQLite also keeps two connections of one process apart, so writers of the releasing process
 * are counted too.
 *
 * Cost for a write: one `BEGIN` + one read of the empty schema + `COMMIT` on a cached
 * connection (a few file-lock system calls); the writers of one conversation in this process
 * share one read transaction. Connections of idle doors beyond `maxOpen` are closed.
 *
 * Limits: as for the lock files, processes must share the state directory and its file system
 * must honour POSIX locks. A writer process that is stopped (SIGSTOP) inside the door keeps a
 * release waiting until `shutWaitMs`, then the release answers `BUSY`. Door files are never
 * deleted (one small file per conversation that ever wrote).
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database, { type Statement } from 'better-sqlite3';
import type { DoorRefusal, ShutDoor, WriteDoors, WritePass } from './write-door.js';
import { isConversationId } from '../../vfs/index.js';
import { foreignCodeOf } from '../../vfs/index.js';

const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);
const FIRST_DELAY_MS = 2;
const MAX_DELAY_MS = 100;

type Connection = InstanceType<typeof Database>;

interface Door {
  db: Connection;
  /** Writers of this process inside (they share the connection's read transaction). */
  inside: number;
  /** The read that takes the shared lock (prepared on the first entry: preparing reads the schema too). */
  read?: Statement;
}

/** Options of `WriteDoorDir`. */
interface WriteDoorDirOptions {
  /** How long `shut` waits for writers to leave (default 15,000 ms: a writer may wait 5 s for a file lock). */
  shutWaitMs?: number;
  /** Idle door connections kept open (default 16). */
  maxOpen?: number;
}

/** Write doors on files in one folder (see the file comment). */
export class WriteDoorDir implements WriteDoors {
  readonly shutWaitMs: number;
  private readonly maxOpen: number;
  /** Writers' connections by conversation, least recently used first. */
  private readonly doors = new Map<string, Door>();
  private made = false;

  /** `dir` must be gatefs's own (`<stateDir>/locks`); it is created (0700) on first use. */
  constructor(
    readonly dir: string,
    options: WriteDoorDirOptions = {},
  ) {
    this.shutWaitMs = options.shutWaitMs ?? 15_000;
    this.maxOpen = Math.max(1, options.maxOpen ?? 16);
  }

  /** See `WriteDoor.enter`. Throws for an unexpected SQLite or file-system failure. */
  enter(conversation: string): WritePass | DoorRefusal {
    let door = this.doors.get(conversation);
    if (door) {
      this.doors.delete(conversation);
      this.doors.set(conversation, door);
    } else {
      const db = this.connect(conversation);
      if (!db) return 'unavailable';
      door = { db, inside: 0 };
      this.doors.set(conversation, door);
    }
    if (door.inside === 0) {
      try {
        door.db.exec('BEGIN');
        door.read ??= door.db.prepare('SELECT count(*) FROM sqlite_master').pluck();
        door.read.get();
      } catch (e) {
        rollback(door.db);
        if (isBusy(e)) return 'shut';
        throw e;
      }
    }
    door.inside++;
    const entered = door;
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        if (--entered.inside > 0) return;
        try {
          entered.db.exec('COMMIT');
        } catch {
          // Closing the connection gives the lock back whatever state it is in.
          this.drop(conversation, entered);
        }
        this.trim();
      },
    };
  }

  /** See `WriteDoors.shut`: waits with backoff for the writers inside to leave. */
  async shut(conversation: string): Promise<ShutDoor | null> {
    const db = this.connect(conversation);
    if (!db) return null;
    const deadline = Date.now() + this.shutWaitMs;
    try {
      for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
        try {
          db.exec('BEGIN EXCLUSIVE');
          return shutDoor(db);
        } catch (e) {
          if (!isBusy(e)) throw e;
        }
        const left = deadline - Date.now();
        if (left <= 0) break;
        await sleep(Math.min(left, delay * (0.5 + Math.random())));
      }
    } catch (e) {
      db.close();
      throw e;
    }
    db.close();
    return null;
  }

  /** Closes every idle writers' connection. */
  close(): void {
    for (const [conversation, door] of this.doors) if (door.inside === 0) this.drop(conversation, door);
  }

  /** A new connection to the conversation's door file (created 0600 when missing), or null without descriptors. */
  private connect(conversation: string): Connection | null {
    if (!isConversationId(conversation)) throw new Error(`not a conversation id: ${String(conversation).slice(0, 80)}`);
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    const path = join(this.dir, `door-${conversation}.lock`);
    try {
      // Created exclusively (never opened and closed when it exists: closing any descriptor of a
      // file drops this process's record locks on it), and never through a link.
      closeSync(openSync(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600));
    } catch (e) {
      const code = foreignCodeOf(e) ?? '';
      if (OUT_OF_DESCRIPTORS.has(code)) return null;
      if (code !== 'EEXIST') throw e;
      if (!lstatSync(path).isFile()) throw new Error(`${path} is not a regular file`);
    }
    try {
      return new Database(path, { timeout: 0, fileMustExist: true });
    } catch (e) {
      if (foreignCodeOf(e) === 'SQLITE_CANTOPEN') return null;
      throw e;
    }
  }

  /** Closes least recently used idle connections beyond `maxOpen`. */
  private trim(): void {
    for (const [conversation, door] of this.doors) {
      if (this.doors.size <= this.maxOpen) return;
      if (door.inside === 0) this.drop(conversation, door);
    }
  }

  private drop(conversation: string, door: Door): void {
    if (this.doors.get(conversation) === door) this.doors.delete(conversation);
    try {
      door.db.close();
    } catch {
      // already closed
    }
  }
}

function shutDoor(db: Connection): ShutDoor {
  let opened = false;
  return {
    open: () => {
      if (opened) return;
      opened = true;
      try {
        db.exec('COMMIT');
      } catch {
        // closing below drops the lock anyway
      }
      try {
        db.close();
      } catch {
        // already closed
      }
    },
  };
}

function rollback(db: Connection): void {
  try {
    if (db.inTransaction) db.exec('ROLLBACK');
  } catch {
    // nothing held
  }
}

function isBusy(e: unknown): boolean {
  const code = foreignCodeOf(e);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** Opens the write doors of a state directory (`<stateDir>/locks`). */
export function openWriteDoors(stateDir: string, options?: WriteDoorDirOptions): WriteDoorDir {
  return new WriteDoorDir(join(stateDir, 'locks'), options);
}
