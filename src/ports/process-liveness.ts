/**
 * The process-liveness port: who this process is, and whether the process that recorded a
 * lock or an occupancy still runs. A process is named by its pid and its start time, so a pid
 * the kernel has handed to a new process does not keep a dead holder's claim alive.
 *
 * Implementations: `nodeProcessLiveness` (the real machine; `node-process-liveness.ts`) and
 * `ManualLiveness` (deterministic, for the memory host and tests).
 */

/** A process as recorded in the state store: its pid and an opaque start-time token. */
export interface ProcessIdentity {
  pid: number;
  /**
   * When the process started, as an opaque string that differs between two processes that
   * had the same pid; null when the platform cannot tell (then the pid alone is compared).
   */
  start: string | null;
}

/** Answers who this process is and whether a recorded process still runs. */
export interface ProcessLiveness {
  /** This process. */
  readonly self: ProcessIdentity;
  /**
   * True while the process `id` names still runs: its pid exists and, when both starts are
   * known, it started at `id.start`. A pid that exists under another user counts as alive.
   */
  isAlive(id: ProcessIdentity): boolean;
}

/**
 * A deterministic liveness port. Every process is alive unless told otherwise: `kill(pid)`
 * marks a pid dead, and `restart()` gives this process a new start time, which makes
 * everything recorded by its earlier incarnation look like a dead process's (what a crashed
 * and restarted server looks like).
 */
export class ManualLiveness implements ProcessLiveness {
  private incarnation = 1;
  private readonly dead = new Set<number>();

  constructor(private readonly pid = 1) {}

  get self(): ProcessIdentity {
    return { pid: this.pid, start: String(this.incarnation) };
  }

  isAlive(id: ProcessIdentity): boolean {
    if (this.dead.has(id.pid)) return false;
    if (id.pid === this.pid && id.start !== null) return id.start === String(this.incarnation);
    return true;
  }

  /** Marks `pid` as a process that has exited. */
  kill(pid: number): void {
    this.dead.add(pid);
  }

  /** This process starts again: what its earlier incarnation recorded now belongs to a dead process. */
  restart(): void {
    this.incarnation++;
  }
}
