/**
 * `RoundRobinQueue`: items waiting per owner (a conversation), taken in turns across owners —
 * FIFO within one owner, round-robin between owners — so an owner with many items waiting
 * never makes another owner's single item wait behind all of them.
 *
 * `next` is given a predicate saying which owners may run now (the regex pool passes "holds
 * fewer than its share of workers"): an owner it refuses keeps its place at the head of the
 * turn order, so it is served first once it may run again.
 */

/** Items waiting, by owner, taken in turns (see the module comment). */
export class RoundRobinQueue<T> {
  /** Owners with items waiting, in turn order (a `Map` keeps insertion order). */
  private readonly waiting = new Map<string, T[]>();
  private count = 0;

  /** Items waiting, all owners together. */
  get size(): number {
    return this.count;
  }

  /** Adds `item` at the end of `owner`'s line; a new owner takes the last turn. */
  push(owner: string, item: T): void {
    const line = this.waiting.get(owner);
    if (line) line.push(item);
    else this.waiting.set(owner, [item]);
    this.count++;
  }

  /** Takes `item` out of `owner`'s line; false when it was not waiting. */
  remove(owner: string, item: T): boolean {
    const line = this.waiting.get(owner);
    const at = line ? line.indexOf(item) : -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) this.waiting.delete(owner);
    this.count--;
    return true;
  }

  /**
   * The first item of the first owner in turn order that `mayRun` accepts, taken out of the
   * queue; that owner then moves to the last turn. Undefined when no waiting owner may run.
   */
  next(mayRun: (owner: string) => boolean): { owner: string; item: T } | undefined {
    for (const [owner, line] of this.waiting) {
      if (!mayRun(owner)) continue;
      const item = line.shift() as T;
      this.waiting.delete(owner);
      if (line.length > 0) this.waiting.set(owner, line);
      this.count--;
      return { owner, item };
    }
    return undefined;
  }
}
