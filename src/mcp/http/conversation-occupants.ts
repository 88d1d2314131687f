/**
 * `ConversationOccupants`: one occupancy holder per conversation for all the MCP sessions an
 * HTTP server has open on it. A client that reconnects (or opens a second session on the same
 * URL) is not locked out by its own stale session, while other processes (the CLI, another
 * server) are refused writes with `OCCUPIED`. The holder is freed when the conversation's last
 * session closes. The holder is recorded with the client names of its sessions (`clientInfo.name`
 * from each initialize, distinct, in the order they came: `claude-code, inspector`), which is
 * what `status` and the status page call it.
 */
import type { Host } from '../../host/composition/index.js';
import { newHolderId, openSession, type Session } from '../protocol/index.js';

interface Occupant {
  session: Session;
  sessions: number;
  /** Distinct client names of the sessions that shared it, in order. */
  clients: string[];
}

/** Shared occupancy holders, one per conversation, counted by open MCP sessions. */
export class ConversationOccupants {
  private readonly occupants = new Map<string, Occupant>();

  constructor(private readonly host: Host) {}

  /**
   * Counts one more session on `conversation` and returns the shared holder session, opening
   * it on the first; `client` is the session's client name (from its initialize). Throws what
   * `openSession` throws (`OCCUPIED` by another live holder).
   */
  async occupy(conversation: string, client?: string): Promise<Session> {
    const current = this.occupants.get(conversation);
    if (current) return this.join(conversation, current, client);
    const session = await openSession(this.host, conversation, newHolderId(), client);
    const raced = this.occupants.get(conversation);
    if (raced) {
      // another request occupied it while this one was acquiring: share that holder
      await session.close();
      return this.join(conversation, raced, client);
    }
    this.occupants.set(conversation, { session, sessions: 1, clients: client === undefined ? [] : [client] });
    return session;
  }

  /** Counts one more session on a held conversation; a client name not seen yet is added to the holder's. */
  private join(conversation: string, occupant: Occupant, client: string | undefined): Session {
    occupant.sessions++;
    if (client !== undefined && !occupant.clients.includes(client)) {
      occupant.clients.push(client);
      try {
        this.host.acquire(conversation, occupant.session.holder, undefined, occupant.clients.join(', '));
      } catch {
        // naming is best effort: the holder (and the session) stand whatever happens to the label
      }
    }
    return occupant.session;
  }

  /** Counts one session less on `conversation`; frees the holder after the last one. */
  async vacate(conversation: string): Promise<void> {
    const current = this.occupants.get(conversation);
    if (!current || --current.sessions > 0) return;
    this.occupants.delete(conversation);
    await current.session.close();
  }
}
