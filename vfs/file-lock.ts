/**
 * `FileLocks`: a keyed async mutex that serializes the writes of one file inside a process, and
 * `processFileLocks`, the one instance every gate of the process shares.
 *
 * The key is the file's lock key (vfs/lock-key.ts): for a host file, the `(dev, ino)` of its
 * folder plus its name, so every conversation, layer object, mount and host of the process
 * that reaches the file queues on one lock — two conversations writing one file of a shared
 * mount (or of a `shared` checkout) no longer interleave a read and a write. Writers of
 * different files never wait for each other.
 *
 * FIFO per key; a key's entry is dropped when its queue empties, so memory stays bounded by the
 * files being written at the moment. Scopes are held weakly (a memory volume that is dropped
 * takes its queues with it). Waiting is unbounded here: a holder is a tool call doing bounded
 * file I/O, and the cross-process lock (src/ports/cross-process-locks.ts) is what has a bound.
 * Limit: one instance per loaded copy of gatefs; two copies of the package in one process
 * share only the cross-process lock.
 *
 * It lives in vfs/ beside the keys it queues on (vfs/lock-key.ts), so the gate and the disk
 * host's cross-process locks (src/ports/lock-file-dir.ts, one caller per stripe) both use it
 * without either depending on the other.
 */
import type { LockKey } from './lock-key.js';

/** A keyed async mutex over lock keys (see the file comment). */
export class FileLocks {
  private readonly tails = new WeakMap<object, Map<string, Promise<void>>>();

  /**
   * Waits until every earlier holder of `key` has released it, then holds it. Result: the
   * release function (call it exactly once; later calls do nothing).
   */
  async acquire(key: LockKey): Promise<() => void> {
    let byId = this.tails.get(key.scope);
    if (!byId) this.tails.set(key.scope, (byId = new Map()));
    const queue = byId;
    const previous = queue.get(key.id);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    queue.set(key.id, tail);
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      release();
      if (queue.get(key.id) === tail) queue.delete(key.id);
    };
    if (previous) await previous;
    return done;
  }

  /** Runs `fn` holding `key` (see `acquire`); returns its result. */
  async run<T>(key: LockKey, fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire(key);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** True when some call holds or waits for `key`. */
  isBusy(key: LockKey): boolean {
    return this.tails.get(key.scope)?.has(key.id) ?? false;
  }
}

/** The process-wide registry: every `ToolGate` uses it unless given its own. */
export const processFileLocks = new FileLocks();
