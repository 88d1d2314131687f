/**
 * `MatchMeter`: counts the work of glob and `.gitignore` matching in one tool call, so the call
 * can yield to the event loop at fixed amounts of work and give up past a budget.
 *
 * Every matcher in tools/patterns/ is linear: matching a name of length n against a pattern of size m
 * costs at most n·m steps, and each matcher adds the steps it actually took to the counter it
 * is given (`WorkCounter`). One step is one character comparison or lookup (5–15 ns). The
 * meter turns steps into decisions: `mustYield` after `YIELD_STEPS` since the last yield (a few
 * milliseconds of work, far under the 100 ms bound), `overBudget` past `budget` (default
 * `MATCH_BUDGET_STEPS`, well under 2 s), after which the caller answers `INVALID_INPUT`.
 * Counting steps instead of reading a clock keeps calls deterministic: the same tree and
 * pattern yield at the same places and fail the same way on every machine.
 */

import { PatternError } from './pattern-error.js';

/** Something matchers add their steps to. */
export interface WorkCounter {
  steps: number;
}

/** Steps between two yields to the event loop (5–15 ms of matching, measured on this project's 2-core machine). */
export const YIELD_STEPS = 1_000_000;
/**
 * Steps one call may spend matching before it answers `INVALID_INPUT` (0.5–1.5 s there). A
 * `**\/*.js` list over 500,000 entries costs about 5 million; 50 wildcard `.gitignore` rules
 * over 100,000 files about 50 million.
 */
const MATCH_BUDGET_STEPS = 100_000_000;

/** The work counter of one tool call. */
export class MatchMeter implements WorkCounter {
  steps = 0;
  /**
   * `.gitignore` rules this call has parsed and holds: all of them, and those that need a
   * pattern match (`gitignore-file.ts` caps both, which bounds the call's memory).
   */
  readonly rules = { all: 0, patterns: 0 };
  private yieldedAt = 0;

  constructor(readonly budget: number = MATCH_BUDGET_STEPS) {}

  /** True when enough work was done since the last yield that the caller should yield now. */
  get mustYield(): boolean {
    return this.steps - this.yieldedAt >= YIELD_STEPS;
  }

  /** True when the call has spent its whole budget. */
  get overBudget(): boolean {
    return this.steps > this.budget;
  }

  /**
   * Throws `PatternError` (`INVALID_INPUT`) naming `field` when the budget is spent; `advice`
   * says what to change (e.g. "use a simpler pattern or a narrower path").
   */
  checkBudget(field: string, what: string, advice: string): void {
    if (this.overBudget) {
      throw new PatternError(field, `${what} needs more than ${this.budget.toLocaleString('en-US')} matching steps here; ${advice}`);
    }
  }

  /** Lets other callbacks run (one `setImmediate` turn) and restarts the yield count. */
  async yieldNow(): Promise<void> {
    this.yieldedAt = this.steps;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
