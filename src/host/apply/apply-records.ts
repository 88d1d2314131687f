/**
 * The two records an apply keeps beside a `copy` workspace's whiteouts, in its upper folder's
 * reserved `.gatefs-overlay/` (inside the state directory, removed with the copy, never
 * reachable by an agent: the overlay refuses that name for every operation):
 *
 * - the **base** (`apply-base.json`): what the source held when the copy started, path by path,
 *   as `Digest`s. For a plain folder it is taken whole when the workspace is prepared
 *   (`complete`: a path it lacks was absent). For a git checkout the pinned commit is the base,
 *   and the record only holds what earlier applies wrote over it (`complete` false).
 * - the **journal** (`apply-journal.json`): written before an apply changes the source, naming
 *   every path with the digest it held (`old`) and the one it is given (`new`); removed once the
 *   apply has finished. A run that finds one finishes it (docs/ARCHITECTURE.md § Durable work).
 *
 * Both are written by replace (the layer's temp file and rename), so a crash leaves the old
 * record or the new one. A record that does not parse is `INTERNAL` (never taken for "none").
 */
import { VfsError, isVfsError, type WritableLayer } from '../../../vfs/index.js';

/** The reserved folder of an overlay's upper (vfs/whiteout-set.ts `OVERLAY_META`). */
export const RECORD_FOLDER = '.gatefs-overlay';
const BASE_FILE = `${RECORD_FOLDER}/apply-base.json`;
const JOURNAL_FILE = `${RECORD_FOLDER}/apply-journal.json`;
const WHITEOUT_FILE = `${RECORD_FOLDER}/whiteouts.json`;

/**
 * What is at a path, as one string: `f:<sha256 of the bytes>`, `l:<link target>`, `d` (a
 * folder), `-` (nothing), `?` (something else: a FIFO, a socket, a device).
 */
export type Digest = string;

/** The base record (see the file comment). */
export interface BaseRecord {
  readonly complete: boolean;
  /** Path (root-relative) → digest. A Map: a path may be any name, `__proto__` included. */
  readonly paths: ReadonlyMap<string, Digest>;
}

/** One path of the journal. */
export interface JournalEntry {
  readonly path: string;
  readonly old: Digest;
  readonly new: Digest;
}

/** The journal (see the file comment); `resetting`: every source write is done, the overlay is being reset. */
export interface Journal {
  readonly phase: 'writing' | 'resetting';
  readonly entries: readonly JournalEntry[];
}

/** Reads the base record; undefined when there is none. `INTERNAL` for a corrupt one. */
export async function readBase(upper: WritableLayer): Promise<BaseRecord | undefined> {
  const parsed = await readJson(upper, BASE_FILE);
  if (parsed === undefined) return undefined;
  const { complete, paths } = parsed as { complete?: unknown; paths?: unknown };
  if (typeof complete !== 'boolean' || !isStringMap(paths)) throw corrupt(BASE_FILE);
  return { complete, paths: new Map(Object.entries(paths)) };
}

/** Saves the base record (durably, by replace). */
export function writeBase(upper: WritableLayer, base: BaseRecord): Promise<void> {
  return writeJson(upper, BASE_FILE, { version: 1, complete: base.complete, paths: sortedObject(base.paths) });
}

/** Removes the base record (missing is fine). */
export async function removeBase(upper: WritableLayer): Promise<void> {
  await upper.remove(BASE_FILE).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
}

/** Reads the journal; undefined when no apply is unfinished. `INTERNAL` for a corrupt one. */
export async function readJournal(upper: WritableLayer): Promise<Journal | undefined> {
  const parsed = await readJson(upper, JOURNAL_FILE);
  if (parsed === undefined) return undefined;
  const { phase, entries } = parsed as { phase?: unknown; entries?: unknown };
  const isEntry = (e: unknown): e is JournalEntry =>
    typeof e === 'object' &&
    e !== null &&
    typeof (e as JournalEntry).path === 'string' &&
    typeof (e as JournalEntry).old === 'string' &&
    typeof (e as JournalEntry).new === 'string';
  if ((phase !== 'writing' && phase !== 'resetting') || !Array.isArray(entries) || !entries.every(isEntry)) throw corrupt(JOURNAL_FILE);
  return { phase, entries };
}

/** Saves the journal (durably, by replace). */
export function writeJournal(upper: WritableLayer, journal: Journal): Promise<void> {
  return writeJson(upper, JOURNAL_FILE, { version: 1, phase: journal.phase, entries: journal.entries });
}

/** Removes the journal (missing is fine): the apply is finished. */
export async function removeJournal(upper: WritableLayer): Promise<void> {
  await upper.remove(JOURNAL_FILE).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
}

/**
 * Saves the overlay's whiteout list as `paths` (the format of vfs/whiteout-set.ts). The open
 * overlay keeps its own copy in memory: the caller reopens the workspace's view afterwards.
 */
export function writeWhiteouts(upper: WritableLayer, paths: readonly string[]): Promise<void> {
  return writeJson(upper, WHITEOUT_FILE, { version: 1, whiteouts: [...paths].sort() });
}

/** Removes the whiteout list (an overlay without one has none; the caller reopens the view). */
export async function removeWhiteouts(upper: WritableLayer): Promise<void> {
  await upper.remove(WHITEOUT_FILE).catch((e: unknown) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
}

async function readJson(upper: WritableLayer, path: string): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await upper.readFile(path);
  } catch (e) {
    if (isVfsError(e, 'NOT_FOUND') || isVfsError(e, 'NOT_DIRECTORY')) return undefined;
    throw e;
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || (parsed as { version?: unknown }).version !== 1) throw corrupt(path);
    return parsed;
  } catch {
    throw corrupt(path);
  }
}

async function writeJson(upper: WritableLayer, path: string, value: object): Promise<void> {
  try {
    await upper.mkdir(RECORD_FOLDER);
  } catch (e) {
    if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
  }
  await upper.writeFile(path, new TextEncoder().encode(JSON.stringify(value)));
}

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

function sortedObject(map: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function corrupt(path: string): VfsError {
  return new VfsError('INTERNAL', 'apply', '', `the copy's record '${path}' is corrupt`);
}

/** The overlay's whiteout list as its record holds it now (not the open overlay's copy in memory). */
export async function readWhiteouts(upper: WritableLayer): Promise<string[]> {
  const parsed = await readJson(upper, WHITEOUT_FILE);
  if (parsed === undefined) return [];
  const list = (parsed as { whiteouts?: unknown }).whiteouts;
  if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && p !== '')) throw corrupt(WHITEOUT_FILE);
  return [...(list as string[])].sort();
}
