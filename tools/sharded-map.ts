/**
 * `ShardedMap` and `ShardedSet`: a `Map` and a `Set` held as several smaller ones, so that no
 * single insert holds the event loop.
 *
 * A JavaScript `Map` or `Set` grows by rehashing every entry it holds at once: the insert that
 * takes one past 262,144 object keys copies them all, ~30 ms on this project's 2-core machine
 * and more when the other core is busy (grep over one folder of 300,000 files keeps a verdict and
 * a choice per file). Here each shard holds at most `SHARD_ENTRIES` keys (its last rehash copies
 * half that: a few milliseconds), and a new shard starts when the last one is full.
 *
 * Cost: up to `SHARD_ENTRIES` keys (every folder and nearly every walk) it is one plain `Map` or
 * `Set`, each call one lookup. Past that a lookup asks the shards in turn, starting with the one
 * that answered last (callers look keys up in about the order they added them), so a hit usually
 * costs one `Map` lookup and a miss one per shard (5 for 300,000 keys). Iteration is in insertion
 * order, as a `Map`'s is.
 */

/** Keys one shard holds at most. */
export const SHARD_ENTRIES = 1 << 16;

interface Shard<K> {
  readonly size: number;
  has(key: K): boolean;
}

/** The shards, and the one that answered last. */
class Shards<K, S extends Shard<K>> {
  readonly list: S[];
  #last = 0;

  /** Starts with `first`, the full shard the keys so far are in. */
  constructor(
    private readonly make: () => S,
    first: S,
  ) {
    this.list = [first];
  }

  /** The shard holding `key`, if any. */
  find(key: K): S | undefined {
    const n = this.list.length;
    for (let k = 0; k < n; k++) {
      const i = (this.#last + k) % n;
      if (this.list[i].has(key)) {
        this.#last = i;
        return this.list[i];
      }
    }
    return undefined;
  }

  /** The shard a new key goes to: the last one, or a fresh one when it is full. */
  forNewKey(): S {
    let last = this.list[this.list.length - 1];
    if (last.size >= SHARD_ENTRIES) this.list.push((last = this.make()));
    return last;
  }

  get size(): number {
    let n = 0;
    for (const s of this.list) n += s.size;
    return n;
  }
}

/** A `Map` in shards (see the module comment): `get`, `has`, `set`, `size`, iteration. */
export class ShardedMap<K, V> {
  /** Every key while there are at most `SHARD_ENTRIES`; then the first shard. */
  readonly #first = new Map<K, V>();
  /** The shards, once the first is full. */
  #shards: Shards<K, Map<K, V>> | undefined;

  /** The number of keys held. */
  get size(): number {
    return this.#shards ? this.#shards.size : this.#first.size;
  }

  /** The value of `key`, as `Map.get`. */
  get(key: K): V | undefined {
    return this.#shards ? this.#shards.find(key)?.get(key) : this.#first.get(key);
  }

  /** True when `key` is held, as `Map.has`. */
  has(key: K): boolean {
    return this.#shards ? this.#shards.find(key) !== undefined : this.#first.has(key);
  }

  /** Sets the value of `key` (in place when it is held), as `Map.set`. */
  set(key: K, value: V): this {
    if (!this.#shards) {
      if (this.#first.size < SHARD_ENTRIES || this.#first.has(key)) {
        this.#first.set(key, value);
        return this;
      }
      this.#shards = new Shards(() => new Map(), this.#first);
    }
    (this.#shards.find(key) ?? this.#shards.forNewKey()).set(key, value);
    return this;
  }

  /** The entries in insertion order. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    if (!this.#shards) yield* this.#first;
    else for (const s of this.#shards.list) yield* s;
  }
}

/** A `Set` in shards (see the module comment): `add`, `has`, `size`, iteration. */
export class ShardedSet<K> {
  /** Every key while there are at most `SHARD_ENTRIES`; then the first shard. */
  readonly #first = new Set<K>();
  /** The shards, once the first is full. */
  #shards: Shards<K, Set<K>> | undefined;

  /** The number of keys held. */
  get size(): number {
    return this.#shards ? this.#shards.size : this.#first.size;
  }

  /** True when `key` is held, as `Set.has`. */
  has(key: K): boolean {
    return this.#shards ? this.#shards.find(key) !== undefined : this.#first.has(key);
  }

  /** Adds `key` (nothing changes when it is held), as `Set.add`. */
  add(key: K): this {
    if (!this.#shards) {
      if (this.#first.size < SHARD_ENTRIES || this.#first.has(key)) {
        this.#first.add(key);
        return this;
      }
      this.#shards = new Shards(() => new Set(), this.#first);
    }
    if (!this.#shards.find(key)) this.#shards.forNewKey().add(key);
    return this;
  }

  /**
   * Adds `key`, which the caller knows is not held (each entry of a folder is judged once): no
   * lookup in the shards first. A key added twice this way may be held twice.
   */
  addNew(key: K): this {
    if (!this.#shards && this.#first.size < SHARD_ENTRIES) this.#first.add(key);
    else (this.#shards ??= new Shards(() => new Set(), this.#first)).forNewKey().add(key);
    return this;
  }

  /** The keys in insertion order. */
  *[Symbol.iterator](): IterableIterator<K> {
    if (!this.#shards) yield* this.#first;
    else for (const s of this.#shards.list) yield* s;
  }
}
