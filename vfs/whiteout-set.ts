/**
 * `WhiteoutSet`: the overlay's record of lower-layer paths that have been deleted (whiteouts),
 * kept durably inside the upper layer so it survives reopening the same upper over the same
 * lower.
 *
 * Representation: one JSON file, `<OVERLAY_META>/whiteouts.json`, in the upper layer's root,
 * holding the sorted list of whited-out layer-relative paths. A path in the set hides the
 * lower's entry at that path and everything below it. When the upper also holds an entry at
 * that path (a folder removed and then re-created), the upper's entry is shown and the lower
 * stays hidden beneath it: that is how an "opaque" folder is expressed, with no second list.
 *
 * Why a file under a reserved folder and not per-name markers (`.wh.<name>` as in Linux
 * overlayfs): a marker is itself a file name an agent could create, read or collide with; one
 * reserved top-level name, hidden and refused by the overlay, is the only name taken from the
 * agent. Each change rewrites the file through the upper's atomic `writeFile`, serialized so a
 * slower earlier save can never land after (and erase) a later one, and the set in memory
 * follows the record only once it is saved: what the overlay shows is what a reopened overlay
 * would show.
 *
 * Limits: the whole set is held in memory and rewritten on every change (O(whiteouts) per
 * delete), which suits a workspace's deletions, not millions of them.
 */
import { VfsError, isVfsError } from './errors.js';
import type { WritableLayer } from './layer.js';

/** The reserved top-level folder of an overlay's upper layer (hidden, refused as a path). */
export const OVERLAY_META = '.gatefs-overlay';
const STATE_FILE = `${OVERLAY_META}/whiteouts.json`;

/** The durable set of whited-out lower paths of one overlay (load it with `WhiteoutSet.load`). */
export class WhiteoutSet {
  private paths = new Set<string>();
  private saving: Promise<unknown> = Promise.resolve();
  /** True once the upper holds a record (loaded, or saved by this set). */
  private recorded = false;

  private constructor(private readonly upper: WritableLayer) {}

  /**
   * Loads the set from `upper` (an empty set when the upper has no record yet).
   * `INTERNAL` when the record exists but is not a whiteout list (a corrupt upper folder).
   */
  static async load(upper: WritableLayer): Promise<WhiteoutSet> {
    const set = new WhiteoutSet(upper);
    let bytes: Uint8Array;
    try {
      bytes = await upper.readFile(STATE_FILE);
    } catch (e) {
      if (isVfsError(e, 'NOT_FOUND')) return set;
      throw e;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const list = (parsed as { whiteouts?: unknown } | undefined)?.whiteouts;
    if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && p !== '')) {
      throw new VfsError('INTERNAL', 'overlay', '', 'the overlay whiteout record is corrupt');
    }
    for (const p of list as string[]) set.paths.add(p);
    set.recorded = true;
    return set;
  }

  /** True when `path` or one of its ancestors is whited out (the lower entry is hidden). */
  hides(path: string): boolean {
    if (this.paths.size === 0 || path === '') return false;
    let cut = path.indexOf('/');
    while (cut >= 0) {
      if (this.paths.has(path.slice(0, cut))) return true;
      cut = path.indexOf('/', cut + 1);
    }
    return this.paths.has(path);
  }

  /** How many whiteouts the set holds. */
  get size(): number {
    return this.paths.size;
  }

  /** True when exactly `path` is in the set. */
  has(path: string): boolean {
    return this.paths.has(path);
  }

  /**
   * Adds a whiteout (dropping entries below it, now redundant) and saves the record durably.
   * The set in memory changes only once the record is saved, so a failed save changes nothing
   * and throws the upper's error. Result: an undo that takes the whiteout out again (restoring
   * the entries it dropped), for a caller whose next step failed; undefined when `path` was
   * already whited out. Changes are serialized, so a slower earlier save never lands after a
   * later one. When the upper held no record before, the undo removes the record it made, so
   * the upper is left exactly as it was.
   */
  add(path: string): Promise<(() => Promise<void>) | undefined> {
    return this.serialized(async () => {
      if (this.paths.has(path)) return undefined;
      const dropped = [...this.paths].filter((p) => p.startsWith(`${path}/`));
      const first = !this.recorded;
      await this.commit([...[...this.paths].filter((p) => !p.startsWith(`${path}/`)), path]);
      return () =>
        this.serialized(async () => {
          const previous = [...[...this.paths].filter((p) => p !== path), ...dropped];
          if (first && previous.length === 0) await this.forget();
          else await this.commit(previous);
        });
    });
  }

  /** All whiteouts, sorted. */
  list(): string[] {
    return [...this.paths].sort();
  }

  /** Runs `change` after every change queued before it (whatever their outcome). */
  private serialized<T>(change: () => Promise<T>): Promise<T> {
    const next = this.saving.catch(() => undefined).then(change);
    this.saving = next;
    return next;
  }

  /** Removes the record and its folder (an undo of the first whiteout); the set is empty after. */
  private async forget(): Promise<void> {
    await this.upper.remove(STATE_FILE);
    this.recorded = false;
    this.paths = new Set();
    await this.upper.remove(OVERLAY_META).catch(() => undefined);
  }

  /** Saves `paths` as the record, then (only then) makes them the set in memory. */
  private async commit(paths: readonly string[]): Promise<void> {
    let madeFolder = false;
    try {
      await this.upper.mkdir(OVERLAY_META);
      madeFolder = true;
    } catch (e) {
      if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
    }
    const body = JSON.stringify({ version: 1, whiteouts: [...paths].sort() });
    try {
      await this.upper.writeFile(STATE_FILE, new TextEncoder().encode(body));
    } catch (e) {
      // The folder made for a first record goes again, so a failed save leaves the upper as it
      // was. If that removal fails too, an empty reserved folder stays: it is never listed,
      // and a missing record reads as an empty set, which is what the set still is.
      if (madeFolder) await this.upper.remove(OVERLAY_META).catch(() => undefined);
      throw e;
    }
    this.paths = new Set(paths);
    this.recorded = true;
  }
}
