/**
 * `CreationBudget`: whether, and how many, new workspaces the HTTP server may prepare for
 * clients. Without `--allow-new` none: a client naming a conversation that has no ready
 * workspace is told to run `gatefs prepare` first. With it, at most `total` preparations over the
 * server's life (default 16) and at most `concurrent` at a time (default 2). Attempts count,
 * failed ones included, so a client cannot make the server create and roll back worktrees
 * without end. Conversations prepared with `gatefs prepare` never count.
 */
import type { WorkspaceState } from '../host/types.js';

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
 * Thrown by `CreationBudget.take`: `not-allowed` (no `--allow-new`), `total` (the per-run
 * number is used up) or `concurrent` (retry in a moment).
 */
export class CreationRefusal extends Error {
  override readonly name = 'CreationRefusal';

  constructor(message: string, readonly kind: 'not-allowed' | 'total' | 'concurrent') {
    super(message);
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
        state === 'released' ? 'was released' : state === 'preparing' ? 'is still being prepared by another gatefs process' : 'has no workspace';
      const fix = state === 'preparing' ? 'retry once "gatefs status" shows it ready' : `prepare it first: gatefs prepare ${conversation}`;
      throw new CreationRefusal(`conversation "${conversation}" ${what}; ${fix} (this server prepares none itself: it runs without --allow-new)`, 'not-allowed');
    }
    if (this.started >= this.limits.total) {
      throw new CreationRefusal(
        `this server has already prepared ${this.started} new conversations (the --allow-new limit is ${this.limits.total} per run); ` +
          `prepare "${conversation}" with: gatefs prepare ${conversation}`,
        'total',
      );
    }
    if (this.running >= this.limits.concurrent) {
      throw new CreationRefusal(`${this.running} workspaces are being prepared right now (at most ${this.limits.concurrent} at a time); retry in a moment`, 'concurrent');
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
