/**
 * `CreationBudget`: whether, and how many, new workspaces the HTTP server may prepare for
 * clients. Without `--allow-new` none: a client naming a conversation that has no ready
 * workspace is told to run `gatefs prepare` first. With it, at most `total` preparations over the
 * server's life (default 16) and at most `concurrent` at a time (default 2). Attempts count,
 * failed ones included, so a client cannot make the server create and roll back worktrees
 * without end. Conversations prepared with `gatefs prepare` never count.
 */
import { CodedError } from '../../../vfs/index.js';
import type { WorkspaceState } from '../../host/composition/index.js';

/** Limits of `CreationBudget`. */
export interface CreationLimits {
  /** Whether the server may prepare workspaces at all (`--allow-new`). */
  allow: boolean;
  total: number;
  concurrent: number;
}

/** The default limits of `gatefs serve --http` (`allow` only with `--allow-new`). */
export const DEFAULT_CREATION_LIMITS: CreationLimits = { allow: false, total: 16, concurrent: 2 };

/**
 * Why `CreationBudget.take` refused: `NOT_ALLOWED` (no `--allow-new`), `TOTAL_LIMIT` (the per-run
 * number is used up) or `CONCURRENT_LIMIT` (retry in a moment).
 */
type CreationRefusalCode = 'NOT_ALLOWED' | 'TOTAL_LIMIT' | 'CONCURRENT_LIMIT';

/** Thrown by `CreationBudget.take`; its message tells the client what to do instead. */
export class CreationRefusal extends CodedError<CreationRefusalCode> {
  override readonly name = 'CreationRefusal';

  constructor(code: CreationRefusalCode, message: string) {
    super(code, message, {});
  }
}

/** Counts workspace preparations started by the server. */
export class CreationBudget {
  private started = 0;
  private running = 0;

  constructor(readonly limits: CreationLimits) {}

  /**
   * Takes one preparation for `conversation` (whose workspace is in `state`, or missing) and
   * returns the function to call when it settles. Throws `CreationRefusal` (see the class).
   */
  take(conversation: string, state?: WorkspaceState): () => void {
    if (!this.limits.allow) {
      const what =
        state === 'released'
          ? 'was released'
          : state === 'preparing'
            ? 'is still being prepared by another gatefs process'
            : 'has no workspace';
      const fix = state === 'preparing' ? 'retry once "gatefs status" shows it ready' : `prepare it first: gatefs prepare ${conversation}`;
      throw new CreationRefusal(
        'NOT_ALLOWED',
        `conversation "${conversation}" ${what}; ${fix} (this server prepares none itself: it runs without --allow-new)`,
      );
    }
    if (this.started >= this.limits.total) {
      throw new CreationRefusal(
        'TOTAL_LIMIT',
        `this server has already prepared ${this.started} new conversations (the --allow-new limit is ${this.limits.total} per run); ` +
          `prepare "${conversation}" with: gatefs prepare ${conversation}`,
      );
    }
    if (this.running >= this.limits.concurrent) {
      throw new CreationRefusal(
        'CONCURRENT_LIMIT',
        `${this.running} workspaces are being prepared right now (at most ${this.limits.concurrent} at a time); retry in a moment`,
      );
    }
    this.started++;
    this.running++;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.running--;
    };
  }
}
