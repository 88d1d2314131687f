/**
 * `BodySlots`: how many large HTTP request bodies the server keeps in memory at once. A body
 * may be as large as the message cap (about 140 MiB) and every request with the token may send
 * one; without a bound, 24 clients sending at once made the server hold 3 GB, and a few dozen
 * more would end it (and every conversation) out of memory. Bodies up to `LARGE_BODY_BYTES` never
 * wait; past that a body takes a slot, and waits with its TCP flow paused while all are taken, so
 * large bodies queue in arrival order while small requests keep being served.
 */

/** A body holding more than this many bytes needs a slot to be read further (1 MiB). */
export const LARGE_BODY_BYTES = 1024 * 1024;

/** Large bodies read at once by default: at most about 4 × 140 MiB held by request bodies. */
export const DEFAULT_LARGE_BODY_SLOTS = 4;

/** A counting semaphore for large bodies (see the module comment). */
export class BodySlots {
  private free: number;
  private readonly queue: (() => void)[] = [];

  constructor(readonly slots: number = DEFAULT_LARGE_BODY_SLOTS) {
    this.free = slots;
  }

  /**
   * Resolves, in arrival order, once a slot is free, with the function that gives it back
   * (idempotent). A waiter that no longer needs its slot calls that function at once.
   */
  acquire(): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => {
        let held = true;
        resolve(() => {
          if (!held) return;
          held = false;
          const next = this.queue.shift();
          if (next) next();
          else this.free++;
        });
      };
      if (this.free > 0) {
        this.free--;
        grant();
      } else this.queue.push(grant);
    });
  }
}
