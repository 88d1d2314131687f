/**
 * `ResultCollector`: the results a tool returns — one page of them: the first `offset` are
 * passed over, the next `max` kept — whether more existed (`truncated`), and where the next page
 * starts (`nextOffset`). list and grep fill one instead of each counting and breaking on its own.
 *
 * Paging is by position in the tool's own order (tree order, or list's mtime order), so a page
 * is stable while the tree does not change, as Claude Code's Grep `offset` and `head_limit` are.
 */
export class ResultCollector<T> {
  readonly items: T[] = [];
  #passed = 0;
  #truncated = false;
  #more = false;

  /** `max`: the most results kept (the tool's `maxResults`, at least 1); `offset`: results passed over first. */
  constructor(
    readonly max: number,
    readonly offset = 0,
  ) {}

  /** True when one more result would be past the cap. */
  get isFull(): boolean {
    return this.items.length >= this.max;
  }

  /** Results still to pass over before the page starts. */
  get toPass(): number {
    return this.offset - this.#passed;
  }

  /** True once a result was refused for the cap, or the source said it was cut (`markTruncated`). */
  get truncated(): boolean {
    return this.#truncated;
  }

  /**
   * The offset of the next page: set when a result was refused for the cap (more exist past this
   * page). Undefined when the page is the last one, or when only the source was cut (a walk
   * stopped at its entry limit: a later page would not reach further).
   */
  get nextOffset(): number | undefined {
    return this.#more ? this.offset + this.items.length : undefined;
  }

  /**
   * Passes over `item` while the offset is not reached, then keeps it; once the cap is reached,
   * refuses it and marks the results truncated, returning false: the caller stops looking.
   */
  add(item: T): boolean {
    if (this.#passed < this.offset) {
      this.#passed++;
      return true;
    }
    if (this.isFull) {
      this.#truncated = true;
      this.#more = true;
      return false;
    }
    this.items.push(item);
    return true;
  }

  /** Passes over `n` results at once (a caller that counts them without building them). */
  pass(n: number): void {
    this.#passed += Math.min(n, this.toPass);
  }

  /** Records that the results are incomplete for another reason (the walk hit its entry limit). */
  markTruncated(isCut = true): void {
    if (isCut) this.#truncated = true;
  }

  /** Records that more results exist past this page than were looked at (the cap was reached). */
  markMore(): void {
    this.#truncated = true;
    this.#more = true;
  }
}
