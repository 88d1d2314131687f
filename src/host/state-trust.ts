/**
 * The state directory's proof of origin on disk (DESIGN.md "Trust boundary": gatefs acts only
 * on state it created). A state directory or database that arrived with the repository — a
 * clone, an archive, a tracked file, a copied folder — is refused with `WorkspaceError`
 * `STATE_UNTRUSTED` and a hint, before anything in it is opened, rolled back or removed.
 *
 * What is checked, in this order (`inspectStateDir`, then `checkOrigin`):
 * 1. the state directory, if it exists, is a real folder (not a symbolic link), owned by this
 *    user, and not writable by group or others; `worktrees/` and `copies/` in it are real
 *    folders; `gatefs.db` and its `-wal`/`-shm`/`-journal` files are regular files owned by this
 *    user and not group/world-writable; a journal without its database is refused (SQLite
 *    would replay it into the new database);
 * 2. (in a git work tree) nothing under the state directory is tracked by git — the caller
 *    runs `git ls-files` and passes what it found;
 * 3. the database carries a proof of origin (`state-origin.ts`) whose inode numbers are
 *    those of this state directory and this database file, and whose uid is this user's.
 *    Copies, clones and extracted archives get new inodes; `mv` within a file system keeps
 *    them. A database without a proof (written by gatefs before it recorded one) is refused
 *    too: it cannot be told from a forged one. The hint says how to move it aside.
 *
 * A fresh state directory (or one without a database yet) is adopted: the database is created
 * and its origin recorded (`recordOriginOf`). Limits: owner and mode checks need POSIX uids
 * (skipped where `process.getuid` is missing); inode numbers are not secret, so a forger who
 * can predict the inodes a fresh extraction gets (a deterministic container image) and ships
 * an untracked archive passes check 3 — which is why no record ever supplies a host path
 * (`workspace-paths.ts`, `confined-removal.ts`), and mounts come from the manifest.
 */
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { readStateOrigin, type StateOrigin } from '../state/state-origin.js';
import type { StateStore } from '../state/store.js';
import { WorkspaceError } from '../workspace-error.js';

/** The database file inside the state directory. */
export const DATABASE_FILE = 'gatefs.db';
const JOURNALS = ['-wal', '-shm', '-journal'];

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
      throw untrusted(stateDir, 'OWNER', `${what} '${path}' belongs to uid ${st.uid}, not to you (uid ${uid})`, `gatefs only uses a state directory you own: pass --state-dir a folder of yours, or move '${stateDir}' aside`);
    }
    if (uid !== null && (st.mode & 0o022) !== 0) {
      throw untrusted(stateDir, 'PERMISSIONS', `${what} '${path}' is writable by ${st.mode & 0o020 ? 'its group' : 'others'} (mode ${(st.mode & 0o777).toString(8)})`, `make it private: chmod go-w '${path}'`);
    }
  };
  if (dir.isSymbolicLink() || !dir.isDirectory()) {
    throw untrusted(stateDir, 'LINK', `the state directory '${stateDir}' is ${dir.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`, `pass --state-dir the real folder, or move '${stateDir}' aside so gatefs creates a fresh one`);
  }
  whose(dir, stateDir, 'the state directory');
  for (const sub of ['worktrees', 'copies']) {
    const st = lstatOrNull(join(stateDir, sub));
    if (st && (st.isSymbolicLink() || !st.isDirectory())) {
      throw untrusted(stateDir, 'LINK', `'${join(stateDir, sub)}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: gatefs did not make it`, `move '${stateDir}' aside so gatefs creates a fresh one`);
    }
  }
  const db = lstatOrNull(join(stateDir, DATABASE_FILE));
  for (const suffix of ['', ...JOURNALS]) {
    const path = join(stateDir, DATABASE_FILE + suffix);
    const st = suffix === '' ? db : lstatOrNull(path);
    if (!st) continue;
    if (!st.isFile()) throw untrusted(stateDir, 'LINK', `'${path}' is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}`, `move '${stateDir}' aside so gatefs creates a fresh one`);
    whose(st, path, 'the state file');
    if (!db && suffix !== '') {
      throw untrusted(stateDir, 'STRAY_JOURNAL', `'${path}' exists without its database: SQLite would replay it into a new one`, `remove '${path}' after checking where it came from, or move '${stateDir}' aside`);
    }
  }
  return { exists: true, hasDatabase: db !== null };
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
 * Check 3 on an existing database: its recorded origin must name this state directory and
 * this database file (inodes) and this user. Throws `STATE_UNTRUSTED` (reasons `NO_ORIGIN`,
 * `UNREADABLE`, `COPIED`, `OWNER`); nothing is written.
 */
export function checkOrigin(stateDir: string, uid: number | null): void {
  const file = join(stateDir, DATABASE_FILE);
  const probe = readStateOrigin(file);
  const aside = `move it aside (mv '${stateDir}' '${stateDir}.old'), run 'git worktree prune', and run gatefs again: it creates a fresh state directory; prepare conversations again (their branches, with every commit, are kept; files in the old worktrees stay in '${stateDir}.old')`;
  if (probe.kind === 'unreadable') {
    throw untrusted(stateDir, 'UNREADABLE', `'${file}' is not a state database gatefs can read (${probe.reason})`, aside);
  }
  if (probe.kind === 'no-origin') {
    throw untrusted(
      stateDir,
      'NO_ORIGIN',
      `'${file}' carries no proof that gatefs created it here (schema version ${probe.schemaVersion}): an earlier gatefs wrote it, or it came with the repository`,
      aside,
    );
  }
  const found = currentOrigin(stateDir, uid ?? probe.origin.uid);
  if (found.stateDir.ino !== probe.origin.stateDir.ino || found.database.ino !== probe.origin.database.ino) {
    throw untrusted(
      stateDir,
      'COPIED',
      `'${file}' was created for another folder (recorded inodes ${probe.origin.stateDir.ino}/${probe.origin.database.ino}, found ${found.stateDir.ino}/${found.database.ino}): it was copied, cloned or extracted from an archive`,
      aside,
    );
  }
  if (uid !== null && probe.origin.uid !== uid) {
    throw untrusted(stateDir, 'OWNER', `'${file}' was created by uid ${probe.origin.uid}, not by you (uid ${uid})`, aside);
  }
}

/**
 * Waits (up to ~2 s) while the database looks like one another gatefs process is creating this
 * very moment — schema not yet migrated, or migrated without its origin written yet — so two
 * processes starting together over a new state directory do not refuse each other. A database
 * of an earlier gatefs (schema 1) is not waited for.
 */
export async function waitForOrigin(stateDir: string, attempts = 40): Promise<void> {
  const file = join(stateDir, DATABASE_FILE);
  for (let i = 0; i < attempts; i++) {
    const probe = readStateOrigin(file);
    if (probe.kind !== 'no-origin' || probe.schemaVersion === 1) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The origin of the state directory and database as they are now on disk (for recording or comparing). */
export function currentOrigin(stateDir: string, uid: number): StateOrigin {
  const dir = lstatSync(stateDir);
  const db = lstatSync(join(stateDir, DATABASE_FILE));
  return { stateDir: { dev: dir.dev, ino: dir.ino }, database: { dev: db.dev, ino: db.ino }, uid };
}

/**
 * Records the origin of a database gatefs has just created (first caller wins; see
 * `StateStore.recordOrigin`), then checks the recorded one names these files. Throws
 * `STATE_UNTRUSTED` (reason `COPIED`) when another origin was recorded for other files.
 */
export function recordOriginOf(store: StateStore, stateDir: string, uid: number): void {
  const now = currentOrigin(stateDir, uid);
  const recorded = store.recordOrigin(now);
  if (recorded.stateDir.ino !== now.stateDir.ino || recorded.database.ino !== now.database.ino) {
    throw untrusted(stateDir, 'COPIED', `the state database in '${stateDir}' was created for another folder`, `move '${stateDir}' aside and run gatefs again`);
  }
}

function untrusted(stateDir: string, reason: string, found: string, hint: string, extra: Record<string, unknown> = {}): WorkspaceError {
  return new WorkspaceError('STATE_UNTRUSTED', `${found}. To go on: ${hint}`, { stateDir, reason, found, hint, ...extra });
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return null;
    throw e;
  }
}
