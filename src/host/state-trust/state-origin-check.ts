/**
 * Checks 3 and 4 of the state directory's trust (state-trust.ts): `gatefs.origin`, written when
 * gatefs created the database, must name this state directory's and this database's inode
 * numbers and birth times (where the file system keeps them) and this user; once the database
 * is open, its `meta` table must record the same origin. A new database's origin is recorded in
 * both places (`recordOriginOf`).
 */
import { closeSync, constants, fsyncSync, lstatSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { formatOrigin, parseOrigin, sameOrigin, type FileIdentity, type StateOrigin } from '../../state/index.js';
import type { StateStore } from '../../state/index.js';
import { ownPid } from '../../ports/index.js';
import { DATABASE_FILE, lstatOrNull, moveAsideHint, ORIGIN_FILE, untrustedState } from './untrusted-state.js';

/**
 * Check 3 on an existing database: `gatefs.origin` must name this state directory and this
 * database file (inodes) and this user. Reads two small files and `lstat`s; opens nothing.
 * Throws `STATE_UNTRUSTED` (reasons `NO_ORIGIN`, `COPIED`, `OWNER`).
 */
export function checkOrigin(stateDir: string, uid: number | null): void {
  const file = join(stateDir, DATABASE_FILE);
  const recorded = readOriginFile(stateDir);
  if (!recorded) {
    throw untrustedState(
      stateDir,
      'NO_ORIGIN',
      `'${file}' carries no proof that gatefs created it here (no valid ${ORIGIN_FILE}): an earlier gatefs wrote it, or it came with the repository`,
      moveAsideHint(stateDir),
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
    throw untrustedState(
      stateDir,
      'COPIED',
      `'${file}' was created for another folder (recorded ${shownIdentity(recorded)}, found ${shownIdentity(found)}): it was copied, cloned or extracted from an archive`,
      moveAsideHint(stateDir),
    );
  }
  if (uid !== null && recorded.uid !== uid) {
    throw untrustedState(
      stateDir,
      'OWNER',
      `'${file}' was created by uid ${recorded.uid}, not by you (uid ${uid})`,
      moveAsideHint(stateDir),
    );
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
  if (!file) throw untrustedState(stateDir, 'NO_ORIGIN', `${join(stateDir, ORIGIN_FILE)} went missing`, moveAsideHint(stateDir));
  const recorded = store.origin.get() ?? store.origin.record(file);
  if (!sameOrigin(recorded, file)) {
    throw untrustedState(
      stateDir,
      'COPIED',
      `the state database in '${stateDir}' records another origin than ${ORIGIN_FILE}`,
      moveAsideHint(stateDir),
    );
  }
  if (created) writeOriginFile(stateDir, recorded);
}

/** The origin of the state directory and database as they are now on disk (for recording or comparing). */
function currentOrigin(stateDir: string, uid: number): StateOrigin {
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
  const temp = join(stateDir, `${ORIGIN_FILE}.${ownPid()}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, formatOrigin(origin));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(stateDir, ORIGIN_FILE));
}
