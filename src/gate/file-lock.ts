/**
 * `FileLocks`: a keyed async mutex that serializes writes to one file. The key is the layer
 * object that serves the file plus its layer-relative path, so two conversations (whose
 * workspaces are different layers) never wait for each other, while two writers of one file in
 * a shared writable mount do queue (otherwise an edit could lose the other's update).
 *
 * FIFO per key; a key's entry is dropped when its queue empties, so memory stays bounded by the
 * number of files being written at the moment.
 */
export class FileLocks {
  private readonly tails = new WeakMap<object, Map<string, Promise<void>>>();

  /** Runs `fn` once every earlier holder of (`owner`, `key`) has finished; returns its result. */
  async run<T>(owner: object, key: string, fn: () => Promise<T>): Promise<T> {
    let byKey = this.tails.get(owner);
    if (!byKey) this.tails.set(owner, (byKey = new Map()));
    const previous = byKey.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    byKey.set(key, tail);
    try {
      if (previous) await previous;
      return await fn();
    } finally {
      release();
      if (byKey.get(key) === tail) byKey.delete(key);
    }
  }

  /** True when some call holds or waits for (`owner`, `key`). */
  isBusy(owner: object, key: string): boolean {
    return this.tails.get(owner)?.has(key) ?? false;
  }
}
