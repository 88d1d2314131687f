/**
 * `CrossProcessLocks`: the port through which the gate excludes other gatefs processes (other
 * `gatefs call` / `serve` processes over the same state directory) while it runs a
 * compare-and-swap call — an `edit`, or a `write` with an `expectedSha256` string — on a host
 * file. The production implementation is src/ports/lock-file-dir.ts (kernel-held locks on files
 * under `<stateDir>/locks/`); the memory host has none, its in-process lock is enough.
 *
 * The gate takes its in-process lock (vfs/file-lock.ts) first and this one second, one key
 * at a time in a fixed order, and never waits for anything else while holding it: no deadlock.
 * Plain writes and reads never come here (their cost stays as it was).
 */

/** A held cross-process lock. */
export interface CrossProcessHold {
  /** Gives the lock back. Idempotent; never throws. */
  release(): void;
}

/** Exclusion between processes, one lock per host file identity (see the file comment). */
export interface CrossProcessLocks {
  /**
   * Takes the lock of the host file whose lock key id is `id` (vfs/lock-key.ts), waiting with
   * backoff while another process holds it. Result: the hold, or `null` when it could not be
   * had within the implementation's bound (or the process is out of descriptors): the gate then
   * answers `BUSY` and changes nothing. Throws only for an unexpected failure (`INTERNAL`).
   */
  acquire(id: string): Promise<CrossProcessHold | null>;
  /** How long `acquire` waits before answering null, in milliseconds (for messages). */
  readonly waitMs: number;
}
