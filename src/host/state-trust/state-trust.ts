/**
 * The state directory's proof of origin on disk (DESIGN.md "Trust boundary": gatefs acts only
 * on state it created). A state directory or database that arrived with the repository — a
 * clone, an archive, a tracked file, a copied folder — is refused with `WorkspaceError`
 * `STATE_UNTRUSTED` and a hint, before anything in it is opened (SQLite never sees such a
 * database), rolled back or removed.
 *
 * What is checked, in this order (`inspectStateDir`, `refuseTracked`, `checkOrigin`):
 * 1. the state directory, if it exists, is a real folder (not a symbolic link), owned by this
 *    user, and not writable by group or others; `worktrees/`, `copies/` and `locks/` in it
 *    are real folders, owned by this user and not writable by group or others; `gatefs.db`,
 *    its `-wal`/`-shm`/`-journal` files and `gatefs.origin` are regular files owned by this
 *    user and not group/world-writable; a journal without its database is
 *    refused (SQLite would replay it into the new database); without a database, the folder
 *    may hold nothing but the empty folders gatefs makes (`refuseForeignContent`);
 * 2. (in a git work tree) nothing under the state directory is tracked by git — the caller
 *    runs `git ls-files` and passes what it found;
 * 3. `gatefs.origin`, written when gatefs created the database, names the inode numbers and
 *    birth times (where the file system keeps them) of this state directory and this database
 *    file, and this user. Copies, clones and extracted archives get new inodes and new birth
 *    times; `mv` within a file system keeps both. A database without an
 *    origin (written by gatefs before it recorded one, or forged) is refused too: the two
 *    cannot be told apart. The hint says how to move it aside.
 * 4. once the database is open, its `meta` table must record the same origin
 *    (`checkRecordedOrigin`): the file and the database belong together.
 *
 * A fresh state directory (or one without a database yet that holds only gatefs's own empty
 * folders) is adopted: the database is created
 * and its origin recorded in both places (`recordOriginOf`). Limits: owner and mode checks
 * need POSIX uids (skipped where `process.getuid` is missing); inode numbers are not secret,
 * and on a file system without birth times a forger who can predict the inodes a fresh
 * extraction gets (a deterministic container image) and ships an untracked archive passes
 * check 3 — which is why no record ever supplies a host path or a branch name
 * (`workspace-paths.ts`, `confined-removal.ts`), and mounts and tools come from the manifest.
 * Where birth times exist (nanoseconds, set by the kernel at creation, by no archive or copy
 * tool), predicting the inodes is not enough.
 */
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { formatOrigin, parseOrigin, sameOrigin, type FileIdentity, type StateOrigin } from '../../state/state-origin.js';
import type { StateStore } from '../../state/store.js';
import { WorkspaceError, type WorkspaceErrorReason } from '../../workspace-error.js';
import { foreignCodeOf } from '../../../vfs/coded-error.js';

/** The database file inside the state directory. */
export const DATABASE_FILE = 'gatefs.db';
/** The proof-of-origin file inside the state directory. */
export const ORIGIN_FILE = 'gatefs.origin';
const JOURNALS = ['-wal', '-shm', '-journal'];
/** The folders gatefs makes in its state directory (`locks/` on the first compare-and-swap call, `lowers/` on a copy's first read). */
const STATE_FOLDERS = ['worktrees', 'copies', 'locks', 'lowers'];

/** What `inspectStateDir` found. */
export interface StateDirFacts {
  /** The state directory exists (and passed the checks). */
  exists: boolean;
  /** `gatefs.db` exists in it (and passed the checks). */
  hasDatabase: boolean;
}

/**
 * Check 1 (see the file comment) on `stateDir` for user `uid` (null: no POSIX uids). Reads
 * metadata only. Throws `WorkspaceError` `STATE_UNTRUSTED` (data: stateDir, reason, hint).
 */
export function inspectStateDir(stateDir: string, uid: number | null): StateDirFacts {
  const dir = lstatOrNull(stateDir);
  if (!dir) return { exists: false, hasDatabase: false };
  const whose = (st: Stats, path: string, what: string) => {
    if (uid !== null && st.uid !== uid) {
      throw untrusted(
        stateDir,
        'OWNER',
        `${what} '${path}' belongs to uid ${st.uid}, not to you (uid ${uid})`,
        `gatefs only uses a state directory you own: pass --state-dir a folder of yours, or move '${stateDir}' aside`,
      );
    }
    if (uid !== null && (st.mode & 0o022) !== 0) {
      throw untrusted(
        stateDir,
        'PERMISSIONS',
        `${what} '${path}' is writable by ${st.mode & 0o020 ? 'its group' : 'others'} (mode ${(st.mode & 0o777).toString(8)})`,
        `make it private: chmod go-w '${path}'`,
      );
    }
  };
  if (dir.isSymbolicLink() || !dir.isDirectory()) {
    throw untrusted(
      stateDir,
      'LINK',
      `the state directory '${stateDir}' is ${dir.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`,
      `pass --state-dir the real folder, or move '${stateDir}' aside so gatefs creates a fresh one`,
    );
  }
  whose(dir, stateDir, 'the state directory');
  for (const sub of STATE_FOLDERS) {
    const st = lstatOrNull(join(stateDir, sub));
    if (st && (st.isSymbolicLink() || !st.isDirectory())) {
      throw untrusted(
        stateDir,
        'LINK',
        `'${join(stateDir, sub)}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: gatefs did not make it`,
        `move '${stateDir}' aside so gatefs creates a fresh one`,
      );
    }
    // Whoever may write here may swap a workspace folder or a lock file for their own.
    if (st) whose(st, join(stateDir, sub), 'the state folder');
  }
  const origin = lstatOrNull(join(stateDir, ORIGIN_FILE));
  if (origin) {
    if (!origin.isFile())
      throw untrusted(
        stateDir,
        'LINK',
        `'${join(stateDir, ORIGIN_FILE)}' is ${origin.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}`,
        `move '${stateDir}' aside so gatefs creates a fresh one`,
      );
    whose(origin, join(stateDir, ORIGIN_FILE), 'the state file');
  }
  const db = lstatOrNull(join(stateDir, DATABASE_FILE));
  for (const suffix of ['', ...JOURNALS]) {
    const path = join(stateDir, DATABASE_FILE + suffix);
    const st = suffix === '' ? db : lstatOrNull(path);
    if (!st) continue;
    if (!st.isFile())
      throw untrusted(
        stateDir,
        'LINK',
        `'${path}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}`,
        `move '${stateDir}' aside so gatefs creates a fresh one`,
      );
    whose(st, path, 'the state file');
    if (!db && suffix !== '') {
      throw untrusted(
        stateDir,
        'STRAY_JOURNAL',
        `'${path}' exists without its database: SQLite would replay it into a new one`,
        `remove '${path}' after checking where it came from, or move '${stateDir}' aside`,
      );
    }
  }
  if (!db) refuseForeignContent(stateDir, whose);
  return { exists: true, hasDatabase: db !== null };
}

/**
 * A state directory without a database is adopted only when it holds nothing but the empty
 * folders gatefs itself makes (`worktrees/`, `copies/`, `locks/`, `lowers/`; left by a crash at creation,
 * or made by another gatefs process starting this very moment): anything else in it — a
 * planted `locks` link, a `copies/<id>` folder that would become a workspace's upper layer, a
 * file — came from elsewhere (an extracted archive ships a state folder without its database
 * just as easily as with it). Throws `STATE_UNTRUSTED` (reason `FOREIGN_CONTENT`).
 */
function refuseForeignContent(stateDir: string, whose: (st: Stats, path: string, what: string) => void): void {
  for (const name of readdirSync(stateDir)) {
    const path = join(stateDir, name);
    const st = lstatOrNull(path);
    if (!st) continue;
    const made = STATE_FOLDERS.includes(name) && st.isDirectory();
    if (made) whose(st, path, 'the state folder');
    const inside = made ? readdirSync(path) : [];
    if (!made || inside.length > 0) {
      const what = made
        ? `'${path}' holds ${inside
            .slice(0, 3)
            .map((n) => `'${n}'`)
            .join(', ')}${inside.length > 3 ? ', …' : ''}`
        : `'${path}' is there`;
      throw untrusted(
        stateDir,
        'FOREIGN_CONTENT',
        `the state directory '${stateDir}' has no database, yet ${what}: gatefs did not put it there (an extracted archive or a copied folder?)`,
        `pass --state-dir a new or empty folder, or move this one aside (mv '${stateDir}' '${stateDir}.old') and run gatefs again: it creates a fresh state directory`,
        { entry: name },
      );
    }
  }
}

/**
 * Check 2: `tracked` lists files under the state directory that git tracks (repository-relative,
 * as `git ls-files` prints them). Throws `STATE_UNTRUSTED` (reason `TRACKED`) when any is.
 */
export function refuseTracked(stateDir: string, shownAs: string, tracked: readonly string[]): void {
  if (tracked.length === 0) return;
  const shown = tracked.slice(0, 3).join(', ') + (tracked.length > 3 ? ', …' : '');
  throw untrusted(
    stateDir,
    'TRACKED',
    `the state directory '${stateDir}' is tracked by git (${shown}): it came with the repository, and gatefs never acts on state it did not create`,
    `take it out of git (git rm -r --cached '${shownAs}'), move it aside (mv '${shownAs}' '${shownAs}.untrusted'), and run gatefs again: it creates a fresh state directory`,
    { tracked: tracked.slice(0, 20) },
  );
}

/**
 * Check 3 on an existing database: `gatefs.origin` must name this state directory and this
 * database file (inodes) and this user. Reads two small files and `lstat`s; opens nothing.
 * Throws `STATE_UNTRUSTED` (reasons `NO_ORIGIN`, `COPIED`, `OWNER`).
 */
export function checkOrigin(stateDir: string, uid: number | null): void {
  const file = join(stateDir, DATABASE_FILE);
  const recorded = readOriginFile(stateDir);
  if (!recorded) {
    throw untrusted(
      stateDir,
      'NO_ORIGIN',
      `'${file}' carries no proof that gatefs created it here (no valid ${ORIGIN_FILE}): an earlier gatefs wrote it, or it came with the repository`,
      moveAside(stateDir),
    );
  }
  const found = currentOrigin(stateDir, uid ?? recorded.uid);
  // A birth time is compared wherever the file system keeps one: then the record must name it.
  const bornDiffers = (now: FileIdentity, then: FileIdentity) => now.born !== undefined && now.born !== then.born;
  if (
    found.stateDir.ino !== recorded.stateDir.ino ||
    found.database.ino !== recorded.database.ino ||
    bornDiffers(found.stateDir, recorded.stateDir) ||
    bornDiffers(found.database, recorded.database)
  ) {
    throw untrusted(
      stateDir,
      'COPIED',
      `'${file}' was created for another folder (recorded ${shownIdentity(recorded)}, found ${shownIdentity(found)}): it was copied, cloned or extracted from an archive`,
      moveAside(stateDir),
    );
  }
  if (uid !== null && recorded.uid !== uid) {
    throw untrusted(stateDir, 'OWNER', `'${file}' was created by uid ${recorded.uid}, not by you (uid ${uid})`, moveAside(stateDir));
  }
}

/**
 * Waits (up to ~1 s) for `gatefs.origin` while the database was created in the last few
 * seconds (`now` from the clock port): another gatefs process may be creating the state
 * directory this very moment, so two processes starting together do not refuse each other.
 * An older database without an origin is not waited for.
 */
export async function waitForOrigin(stateDir: string, now: number, attempts = 20): Promise<void> {
  const db = lstatOrNull(join(stateDir, DATABASE_FILE));
  const born = db ? Math.min(db.birthtimeMs > 0 ? db.birthtimeMs : Infinity, db.ctimeMs) : 0;
  if (!db || now - born > 10_000) return;
  for (let i = 0; i < attempts && !readOriginFile(stateDir); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Check 4, and the recording of a new database's origin: with `created`, the origin of the
 * files as they are now is written to the database (first writer wins, when two processes
 * create it together) and to `gatefs.origin`; the database's record must then match the file.
 * Throws `STATE_UNTRUSTED` (reason `COPIED`) when they disagree.
 */
export function recordOriginOf(store: StateStore, stateDir: string, uid: number, created: boolean): void {
  const file = created ? currentOrigin(stateDir, uid) : readOriginFile(stateDir);
  if (!file) throw untrusted(stateDir, 'NO_ORIGIN', `${join(stateDir, ORIGIN_FILE)} went missing`, moveAside(stateDir));
  const recorded = store.origin.get() ?? store.origin.record(file);
  if (!sameOrigin(recorded, file)) {
    throw untrusted(
      stateDir,
      'COPIED',
      `the state database in '${stateDir}' records another origin than ${ORIGIN_FILE}`,
      moveAside(stateDir),
    );
  }
  if (created) writeOriginFile(stateDir, recorded);
}

/** The origin of the state directory and database as they are now on disk (for recording or comparing). */
export function currentOrigin(stateDir: string, uid: number): StateOrigin {
  return { stateDir: identityNow(stateDir), database: identityNow(join(stateDir, DATABASE_FILE)), uid };
}

/** Inode and (where the file system keeps one) birth time of `path`, not following a link. */
function identityNow(path: string): FileIdentity {
  const st = lstatSync(path, { bigint: true });
  return { dev: Number(st.dev), ino: Number(st.ino), ...(st.birthtimeNs > 0n ? { born: st.birthtimeNs.toString() } : {}) };
}

function shownIdentity(origin: StateOrigin): string {
  const one = (id: FileIdentity) =>
    `inode ${id.ino}${id.born ? ` born ${new Date(Number(BigInt(id.born) / 1_000_000n)).toISOString()}` : ''}`;
  return `${one(origin.stateDir)} / ${one(origin.database)}`;
}

function readOriginFile(stateDir: string): StateOrigin | null {
  try {
    return parseOrigin(readFileSync(join(stateDir, ORIGIN_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** Writes `gatefs.origin` (mode 0600) through a temp file and a rename: readers see all of it or nothing. */
function writeOriginFile(stateDir: string, origin: StateOrigin): void {
  const temp = join(stateDir, `${ORIGIN_FILE}.${process.pid}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, formatOrigin(origin));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(stateDir, ORIGIN_FILE));
}

function moveAside(stateDir: string): string {
  return `move it aside (mv '${stateDir}' '${stateDir}.old'), run 'git worktree prune', and run gatefs again: it creates a fresh state directory; prepare conversations again (their branches, with every commit, are kept; files in the old worktrees stay in '${stateDir}.old')`;
}

function untrusted(
  stateDir: string,
  reason: WorkspaceErrorReason,
  found: string,
  hint: string,
  extra: Record<string, unknown> = {},
): WorkspaceError {
  return new WorkspaceError('STATE_UNTRUSTED', `${found}. To go on: ${hint}`, { stateDir, reason, found, hint, ...extra });
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if (foreignCodeOf(e) === 'ENOENT') return null;
    throw e;
  }
}
