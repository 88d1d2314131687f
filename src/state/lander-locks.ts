/**
 * `LanderLocks`: one lander per target branch across processes, as rows of the preparation-lock
 * table under the key `lander:<target>` (a conversation id never holds a colon, so a lander's
 * key never meets a conversation's). A dead owner's lock is taken over, as for preparations.
 */
import type { LockOwner, PreparationLock, PreparationLocks } from './preparation-lock.js';

/** The lock key of a target branch's lander. */
const landerKey = (target: string) => `lander:${target}`;

/** The lander locks of one store (see the file comment). */
export class LanderLocks {
  constructor(private readonly locks: PreparationLocks) {}

  /** Tries to become the one lander of `target` (a dead owner's lock is taken over). Throws as `PreparationLocks.tryLock`. */
  tryLock(target: string, owner: LockOwner): boolean {
    return this.locks.tryLock(landerKey(target), owner);
  }

  /** Gives the lander lock of `target` back. Result: true when it was held with `token`. */
  unlock(target: string, token: string): boolean {
    return this.locks.unlock(landerKey(target), token);
  }

  /** The current lander lock of `target` (possibly stale), or null. */
  get(target: string): PreparationLock | null {
    return this.locks.get(landerKey(target));
  }
}
