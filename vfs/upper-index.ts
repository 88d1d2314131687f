/**
 * `UpperIndex`: the overlay's cache of which names its upper layer holds, so that a read of a
 * lower file (the common case: the upper holds only what the agent changed) costs a few map
 * lookups instead of a failed upper lookup, which builds two or three error objects.
 *
 * It caches folder listings of the upper (names only), filled on demand and dropped whole on
 * every change the overlay makes to the upper. A listing read that overlaps a change is not
 * kept (a generation counter), so concurrent reads never pin a stale listing.
 *
 * Limit, as in Linux overlayfs ("changes to the underlying filesystems while part of a mounted
 * overlay filesystem are not allowed"): the upper belongs to the overlay. A file written into
 * the upper folder behind the overlay's back may stay unseen until the overlay's next change.
 * Changes to the lower are always seen (the lower is never cached).
 */
import { isVfsError } from './errors.js';
import type { EntryType, Layer } from './layer.js';
import { childPath } from './layer.js';


export class UpperIndex {
  private readonly listings = new Map<string, ReadonlyMap<string, EntryType>>();
  private generation = 0;

  constructor(private readonly upper: Layer) {}

  /**
   * False when the upper certainly has no entry at `path` (a folder on the way is missing or
   * lacks the next name); true when it has one or when that cannot be told (then the caller asks
   * the upper itself and gets its real answer, errors included).
   */
  async mayHave(path: string): Promise<boolean> {
    if (path === '') return true;
    let dir = '';
    let start = 0;
    while (start <= path.length) {
      const cut = path.indexOf('/', start);
      const seg = cut < 0 ? path.slice(start) : path.slice(start, cut);
      const names = await this.listing(dir);
      if (names === undefined) return true;
      const type = names.get(seg);
      if (type === undefined) return false;
      // The end, or something the upper must answer for itself (a file or link on the way).
      if (cut < 0 || type !== 'directory') return true;
      dir = childPath(dir, seg);
      start = cut + 1;
    }
    return true;
  }

  /** Forgets every cached listing: call before and after each change to the upper. */
  changed(): void {
    this.generation++;
    this.listings.clear();
  }

  /** The names and types in an upper folder; empty when it is missing; undefined when unknown. */
  private async listing(dir: string): Promise<ReadonlyMap<string, EntryType> | undefined> {
    const cached = this.listings.get(dir);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    let names: ReadonlyMap<string, EntryType>;
    try {
      names = new Map((await this.upper.readdir(dir)).map((e) => [e.name, e.type]));
    } catch (e) {
      if (!isVfsError(e, 'NOT_FOUND')) return undefined;
      names = new Map();
    }
    if (generation === this.generation) this.listings.set(dir, names);
    return names;
  }
}
