/**
 * `ResultCollector`: the results a tool returns, capped at its `maxResults`, and whether more
 * existed (`truncated`). list and grep fill one instead of each counting and breaking on its own.
 *
 * Limits: a count cap only. The tool contract (DESIGN.md) has no byte cap and no continuation
 * hint for list or grep — `truncated` is the whole answer — so there is none here either.
 */
export class ResultCollector<T> {
  readonly items: T[] = [];
  #truncated = false;

  /** `max`: the most results kept (the tool's `maxResults`, at least 1). */
  constructor(readonly max: number) {}

  /** True when one more result would be past the cap. */
  get isFull(): boolean {
    return this.items.length >= this.max;
  }

  /** True once a result was refused for the cap, or the source said it was cut (`markTruncated`). */
  get truncated(): boolean {
    return this.#truncated;
  }

  /**
   * Keeps `item`, or, when the cap is reached, refuses it and marks the results truncated.
   * Returns false then: the caller stops looking for more.
   */
  add(item: T): boolean {
    if (this.isFull) {
      this.#truncated = true;
      return false;
    }
    this.items.push(item);
    return true;
  }

  /** Records that the results are incomplete for another reason (the walk hit its entry limit). */
  markTruncated(isCut = true): void {
    if (isCut) this.#truncated = true;
  }
}
