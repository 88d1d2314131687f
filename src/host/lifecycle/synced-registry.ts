/**
 * `SyncedRegistry`: the Registry the gate reads, kept in step with the state store so that a
 * workspace prepared, released, or still being prepared by another process sharing the state
 * directory is seen here too. A lookup that misses, or finds a `preparing` entry, asks the
 * store (one indexed SQLite read, no process, no git) and registers what it finds. A `ready`
 * or `released` entry is answered from memory and re-checked against the store at most once
 * per `recheckMs` of the host clock, so a release by another process turns into
 * `WORKSPACE_RELEASED` here within that time, and a workspace another process released and
 * prepared again is served again (over its new folder) within that time too.
 *
 * A `ready` entry is also asked `isStale` on every lookup (a check that must stay cheap: the
 * routed handoffs, src/host/lifecycle/registration.ts `followRouting`): when stale, the store is
 * asked at once, so a handoff routed to a receiver shows on its next call.
 *
 * Limit: between a release elsewhere and the next re-check, tools may answer `NOT_FOUND`
 * (the folder is gone) instead of `WORKSPACE_RELEASED`. With a manual clock that never moves,
 * ready entries are never re-checked (the memory host is one process anyway).
 */
import type { Clock } from '../../ports/index.js';
import { Registry, type Registration } from '../../gate/index.js';

/** Reads a conversation from the store, registers what it finds, and returns it. */
type RegistryRefresh = (conversation: string, current: Registration | undefined) => Registration | undefined;

/** A Registry that consults the state store (see the file comment). */
export class SyncedRegistry extends Registry {
  private refresh?: RegistryRefresh;
  private isStale?: (registration: Registration) => boolean;
  private readonly checkedAt = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly recheckMs = 1000,
  ) {
    super();
  }

  /**
   * Sets the function that reads a conversation from the store and registers it, and the check
   * every lookup of a `ready` entry makes (true: refresh now).
   */
  syncWith(refresh: RegistryRefresh, isStale?: (registration: Registration) => boolean): void {
    this.refresh = refresh;
    this.isStale = isStale;
  }

  override lookup(conversation: string): Registration | undefined {
    const hit = super.lookup(conversation);
    if (!this.refresh) return hit;
    if (hit?.state === 'ready' && this.isStale?.(hit)) return this.refresh(conversation, hit) ?? super.lookup(conversation);
    if (hit?.state === 'ready' || hit?.state === 'released') {
      const now = this.clock.now();
      const last = this.checkedAt.get(conversation);
      if (last === undefined) this.checkedAt.set(conversation, now);
      if (last === undefined || now - last < this.recheckMs) return hit;
      this.checkedAt.set(conversation, now);
    }
    return this.refresh(conversation, hit) ?? super.lookup(conversation);
  }

  override delete(conversation: string): void {
    this.checkedAt.delete(conversation);
    super.delete(conversation);
  }
}
