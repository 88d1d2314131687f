/**
 * An MCP session as an occupancy holder: a session occupies its conversation's workspace for
 * exclusive write on open (`Host.acquire`) and frees it on close; every tool call carries the
 * same holder in its `CallContext`, so the gate answers `OCCUPIED` to anyone else who writes
 * meanwhile (for example `gatefs call`).
 *
 * Holder ids are `mcp-<pid>-<random>`, so a holder left behind by a server process that died
 * (killed, crashed) can be recognised and taken over instead of locking the workspace forever.
 */
import type { Host } from '../../host/composition/index.js';
import { isPidGone, ownPid, randomIds } from '../../ports/index.js';
import { isWorkspaceError } from '../../workspace-error.js';

/** An open session; `close` is idempotent and never throws. */
export interface Session {
  readonly holder: string;
  /** True when the host recorded this session as the workspace's occupant. */
  readonly holdsOccupancy: boolean;
  close(): Promise<void>;
}

/** A new holder id for a session of this process: `mcp-<pid>-<16 hex>`. */
export function newHolderId(): string {
  return randomIds.next(`mcp-${ownPid()}`);
}

/**
 * True when `holder` is a gatefs MCP holder whose server process no longer runs (checked with
 * signal 0). A reused pid makes this answer false, which only means the workspace stays
 * occupied: the safe side.
 */
function isOrphanedHolder(holder: string): boolean {
  const m = /^mcp-(\d+)-[0-9a-f]+$/.exec(holder);
  if (!m) return false;
  const pid = Number(m[1]);
  return pid !== ownPid() && isPidGone(pid);
}

function occupant(e: unknown): string | undefined {
  return isWorkspaceError(e, 'OCCUPIED') && typeof e.data.holder === 'string' ? e.data.holder : undefined;
}

/** Longest client name kept for a holder (characters); a longer `clientInfo.name` is cut. */
const MAX_CLIENT_NAME = 80;

/**
 * The client's name from an MCP `initialize` request's params (`clientInfo.name`), trimmed and
 * cut to 80 characters, or undefined when it gives none. Client-written text: whoever shows it
 * escapes it.
 */
export function clientNameOf(initializeParams: unknown): string | undefined {
  const info = (initializeParams as { clientInfo?: { name?: unknown } } | null | undefined)?.clientInfo;
  const name = typeof info?.name === 'string' ? info.name.trim() : '';
  return name === '' ? undefined : [...name].slice(0, MAX_CLIENT_NAME).join('');
}

/**
 * Opens a session for `holder` on `conversation`, recording `client` (the MCP client's name) as
 * whom it serves. When an orphaned holder (its server process died) occupies the workspace,
 * that occupancy is ended and acquired anew. Otherwise throws what the host's `acquire` throws
 * (a `WorkspaceError` `OCCUPIED` naming the live holder).
 */
export async function openSession(host: Host, conversation: string, holder: string, client?: string): Promise<Session> {
  try {
    await host.acquire(conversation, holder, undefined, client);
  } catch (e) {
    const current = occupant(e);
    if (!current || !isOrphanedHolder(current)) throw e;
    await host.releaseOccupancy(conversation, current);
    await host.acquire(conversation, holder, undefined, client);
  }
  let open = true;
  return {
    holder,
    holdsOccupancy: true,
    async close() {
      if (!open) return;
      open = false;
      try {
        await host.releaseOccupancy(conversation, holder);
      } catch {
        // the host may be closed or the workspace released already: nothing left to free
      }
    },
  };
}
