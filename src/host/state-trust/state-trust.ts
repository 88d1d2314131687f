/**
 * The state directory's proof of origin on disk (docs/ARCHITECTURE.md § Trust boundary, "State of
 * our own": gatefs acts only on state it created). A state directory or database that arrived with
 * the repository — a clone, an archive, a tracked file, a copied folder — is refused with
 * `WorkspaceError` `STATE_UNTRUSTED` and a hint, before anything in it is opened (SQLite never sees
 * such a database), rolled back or removed.
 *
 * What is checked, in this order (`inspectStateDir` here, `refuseTracked` in tracked-state.ts,
 * `checkOrigin` and `recordOriginOf` in state-origin-check.ts):
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
 *    (`recordOriginOf`): the file and the database belong together.
 *
 * A fresh state directory (or one without a database yet that holds only gatefs's own empty
 * folders) is adopted: the database is created
 * and its origin recorded in both places (`recordOriginOf`). Limits: owner and mode checks
 * need POSIX uids (skipped where `process.getuid` is missing); inode numbers are not secret,
 * and on a file system without birth times a forger who can predict the inodes a fresh
 * extraction gets (a deterministic container image) and ships an untracked archive passes
 * check 3 — which is why no record ever supplies a host path or a branch name
 * (src/host/platform/workspace-paths.ts, src/host/platform/confined-removal.ts), and mounts and tools come from the manifest.
 * Where birth times exist (nanoseconds, set by the kernel at creation, by no archive or copy
 * tool), predicting the inodes is not enough.
 */
import { readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE, lstatOrNull, ORIGIN_FILE, untrustedState } from './untrusted-state.js';

const JOURNALS = ['-wal', '-shm', '-journal'];
/** The folders gatefs makes in its state directory (`locks/` on the first compare-and-swap call, `lowers/` on a copy's first read). */
const STATE_FOLDERS = ['worktrees', 'copies', 'scratch', 'locks', 'lowers', 'exec'];

/** What `inspectStateDir` found. */
interface StateDirFacts {
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
  const whose = ownerCheck(stateDir, uid);
  if (dir.isSymbolicLink() || !dir.isDirectory()) {
    throw untrustedState(
      stateDir,
      'LINK',
      `the state directory '${stateDir}' is ${dir.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`,
      `pass --state-dir the real folder, or move '${stateDir}' aside so gatefs creates a fresh one`,
    );
  }
  whose(dir, stateDir, 'the state directory');
  checkStateFolders(stateDir, whose);
  checkOriginFile(stateDir, whose);
  const db = checkDatabaseFiles(stateDir, whose);
  if (!db) refuseForeignContent(stateDir, whose);
  return { exists: true, hasDatabase: db !== null };
}

/** Refuses what `st` (at `path`, described as `what`) is unless this user owns it and only this user may write it. */
type OwnerCheck = (st: Stats, path: string, what: string) => void;

/** The owner check for user `uid` (no check without POSIX uids): `OWNER`, `PERMISSIONS`. */
function ownerCheck(stateDir: string, uid: number | null): OwnerCheck {
  return (st, path, what) => {
    if (uid !== null && st.uid !== uid) {
      throw untrustedState(
        stateDir,
        'OWNER',
        `${what} '${path}' belongs to uid ${st.uid}, not to you (uid ${uid})`,
        `gatefs only uses a state directory you own: pass --state-dir a folder of yours, or move '${stateDir}' aside`,
      );
    }
    if (uid !== null && (st.mode & 0o022) !== 0) {
      throw untrustedState(
        stateDir,
        'PERMISSIONS',
        `${what} '${path}' is writable by ${st.mode & 0o020 ? 'its group' : 'others'} (mode ${(st.mode & 0o777).toString(8)})`,
        `make it private: chmod go-w '${path}'`,
      );
    }
  };
}

/** The folders gatefs makes, where they exist: real folders of this user's. */
function checkStateFolders(stateDir: string, whose: OwnerCheck): void {
  for (const sub of STATE_FOLDERS) {
    const st = lstatOrNull(join(stateDir, sub));
    if (st && (st.isSymbolicLink() || !st.isDirectory())) {
      throw untrustedState(
        stateDir,
        'LINK',
        `'${join(stateDir, sub)}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: gatefs did not make it`,
        `move '${stateDir}' aside so gatefs creates a fresh one`,
      );
    }
    // Whoever may write here may swap a workspace folder or a lock file for their own.
    if (st) whose(st, join(stateDir, sub), 'the state folder');
  }
}

/** `gatefs.origin`, where it exists: a regular file of this user's. */
function checkOriginFile(stateDir: string, whose: OwnerCheck): void {
  const origin = lstatOrNull(join(stateDir, ORIGIN_FILE));
  if (!origin) return;
  if (!origin.isFile())
    throw untrustedState(
      stateDir,
      'LINK',
      `'${join(stateDir, ORIGIN_FILE)}' is ${origin.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}`,
      `move '${stateDir}' aside so gatefs creates a fresh one`,
    );
  whose(origin, join(stateDir, ORIGIN_FILE), 'the state file');
}

/**
 * The database and its journals, where they exist: regular files of this user's, and no
 * journal without its database (`STRAY_JOURNAL`). Result: the database's `lstat`, or null.
 */
function checkDatabaseFiles(stateDir: string, whose: OwnerCheck): Stats | null {
  const db = lstatOrNull(join(stateDir, DATABASE_FILE));
  for (const suffix of ['', ...JOURNALS]) {
    const path = join(stateDir, DATABASE_FILE + suffix);
    const st = suffix === '' ? db : lstatOrNull(path);
    if (!st) continue;
    if (!st.isFile())
      throw untrustedState(
        stateDir,
        'LINK',
        `'${path}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}`,
        `move '${stateDir}' aside so gatefs creates a fresh one`,
      );
    whose(st, path, 'the state file');
    if (!db && suffix !== '') {
      throw untrustedState(
        stateDir,
        'STRAY_JOURNAL',
        `'${path}' exists without its database: SQLite would replay it into a new one`,
        `remove '${path}' after checking where it came from, or move '${stateDir}' aside`,
      );
    }
  }
  return db;
}

/**
 * A state directory without a database is adopted only when it holds nothing but the empty
 * folders gatefs itself makes (`worktrees/`, `copies/`, `locks/`, `lowers/`; left by a crash at creation,
 * or made by another gatefs process starting this very moment): anything else in it — a
 * planted `locks` link, a `copies/<id>` folder that would become a workspace's upper layer, a
 * file — came from elsewhere (an extracted archive ships a state folder without its database
 * just as easily as with it). Throws `STATE_UNTRUSTED` (reason `FOREIGN_CONTENT`).
 */
function refuseForeignContent(stateDir: string, whose: OwnerCheck): void {
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
      throw untrustedState(
        stateDir,
        'FOREIGN_CONTENT',
        `the state directory '${stateDir}' has no database, yet ${what}: gatefs did not put it there (an extracted archive or a copied folder?)`,
        `pass --state-dir a new or empty folder, or move this one aside (mv '${stateDir}' '${stateDir}.old') and run gatefs again: it creates a fresh state directory`,
        { entry: name },
      );
    }
  }
}
