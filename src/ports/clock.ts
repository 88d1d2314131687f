/**
 * The clock port. Only `systemClock` reads the real time; everything else takes a `Clock`, so
 * the memory host can run on a `ManualClock` and give byte-identical run logs.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock (`Date.now`). */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to; each `now()` may auto-advance by `stepMs`. */
export class ManualClock implements Clock {
  constructor(
    private current = Date.UTC(2026, 0, 1),
    private readonly stepMs = 0,
  ) {}

  now(): number {
    const t = this.current;
    this.current += this.stepMs;
    return t;
  }

  /** Moves the clock forward. */
  advance(ms: number): void {
    this.current += ms;
  }
}
