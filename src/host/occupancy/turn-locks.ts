/**
 * `TurnLocks`: one operation at a time per key — in this process a promise chain per key (each
 * operation starts after the one before ended, however it ended), across processes a row of the
 * store's lock table, taken over from a process that died. Snapshots and restores of a
 * conversation (`snapshot:<id>`) and its handoffs (`handoff:<id>`) take turns this way, so two
 * processes never race for one number or one visit's end.
 */
import type { Clock, ProcessLiveness } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/** What turn locks use of the host. */
export interface TurnLockParts {
  readonly store: Pick<StateStore, 'preparationLocks'>;
  readonly clock: Clock;
  readonly liveness: Pick<ProcessLiveness, 'self'>;
  /** Waits `ms` before the lock is tried again. */
  wait(ms: number): Promise<void>;
}

/** How a kind of operation names its turns. */
export interface TurnKind {
  /** The lock-table key of `subject`'s turns (e.g. `snapshot:<conversation>`). */
  keyOf(subject: string): string;
  /** The token prefix of this process's attempts (e.g. `snapshot`). */
  readonly name: string;
  /** How long an operation waits for another process's turn before `BUSY`. */
  readonly waitMs: number;
  /** The message of the `BUSY` given past the wait. */
  busyMessage(subject: string): string;
}

/** Attempts at a lock this process made (their tokens are unique). */
let attempts = 0;

/** See the file comment. */
export class TurnLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly parts: TurnLockParts,
    private readonly kind: TurnKind,
  ) {}

  /**
   * Runs `task` after every earlier one of `subject` in this process, holding its lock across
   * processes. Throws `WorkspaceError` `BUSY` (data.subject… as `conversation`) when another
   * process holds it past the wait; else what `task` throws.
   */
  inTurn<T>(subject: string, task: () => Promise<T>): Promise<T> {
    const locked = () => this.holding(subject, task);
    const next = (this.tails.get(subject) ?? Promise.resolve()).then(locked, locked);
    const tail = next.catch(() => undefined);
    this.tails.set(subject, tail);
    void tail.then(() => {
      if (this.tails.get(subject) === tail) this.tails.delete(subject);
    });
    return next;
  }

  private async holding<T>(subject: string, task: () => Promise<T>): Promise<T> {
    const { store, liveness, clock } = this.parts;
    const key = this.kind.keyOf(subject);
    const token = `${this.kind.name}-${liveness.self.pid}-${++attempts}`;
    const deadline = clock.now() + this.kind.waitMs;
    while (!store.preparationLocks.tryLock(key, { ...liveness.self, token })) {
      if (clock.now() >= deadline) {
        throw new WorkspaceError('BUSY', this.kind.busyMessage(subject), { conversation: subject, hint: 'retry once it is done' });
      }
      await this.parts.wait(50);
    }
    try {
      return await task();
    } finally {
      store.preparationLocks.unlock(key, token);
    }
  }
}
