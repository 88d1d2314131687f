/**
 * `SyncedRegistry`: the Registry the gate reads, kept in step with the state store so that a
 * workspace prepared (or released, or still being prepared) by another process sharing the
 * state directory is served here too. A lookup that misses, or finds a `preparing` entry, asks
 * the store (one indexed SQLite read, no process, no git) and registers what it finds; a
 * `ready` or `released` entry is answered from memory.
 *
 * Limit: a workspace another process releases stays `ready` here until this host restarts;
 * its folder is gone by then, so tools answer `NOT_FOUND` rather than `WORKSPACE_RELEASED`.
 */
import { Registry, type Registration } from '../../vfs/registry.js';

/** A Registry that consults the state store on a miss (see the file comment). */
export class SyncedRegistry extends Registry {
  private refresh?: (conversation: string) => Registration | undefined;

  /** Sets the function that reads a conversation from the store and registers it. */
  syncWith(refresh: (conversation: string) => Registration | undefined): void {
    this.refresh = refresh;
  }

  override lookup(conversation: string): Registration | undefined {
    const hit = super.lookup(conversation);
    if ((hit && hit.state !== 'preparing') || !this.refresh) return hit;
    return this.refresh(conversation) ?? hit;
  }
}
