/**
 * `ConversationOccupants`: one occupancy holder per conversation for all the MCP sessions an
 * HTTP server has open on it. A client that reconnects (or opens a second session on the same
 * URL) is not locked out by its own stale session, while other processes (the CLI, another
 * server) are refused writes with `OCCUPIED`. The holder is freed when the conversation's last
 * session closes.
 */
import type { Host } from '../../host/composition/index.js';
import { newHolderId, openSession, type Session } from '../protocol/index.js';

interface Occupant {
  session: Session;
  sessions: number;
}

/** Shared occupancy holders, one per conversation, counted by open MCP sessions. */
export class ConversationOccupants {
  private readonly occupants = new Map<string, Occupant>();

  constructor(private readonly host: Host) {}

  /**
   * Counts one more session on `conversation` and returns the shared holder session, opening
   * it on the first. Throws what `openSession` throws (`OCCUPIED` by another live holder).
   */
  async occupy(conversation: string): Promise<Session> {
    const current = this.occupants.get(conversation);
    if (current) {
      current.sessions++;
      return current.session;
    }
    const session = await openSession(this.host, conversation, newHolderId());
    const raced = this.occupants.get(conversation);
    if (raced) {
      // another request occupied it while this one was acquiring: share that holder
      await session.close();
      raced.sessions++;
      return raced.session;
    }
    this.occupants.set(conversation, { session, sessions: 1 });
    return session;
  }

  /** Counts one session less on `conversation`; frees the holder after the last one. */
  async vacate(conversation: string): Promise<void> {
    const current = this.occupants.get(conversation);
    if (!current || --current.sessions > 0) return;
    this.occupants.delete(conversation);
    await current.session.close();
  }
}
