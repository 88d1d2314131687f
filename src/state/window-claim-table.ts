/**
 * The `window_claims` table: for `gatefs serve --conversation auto`, which client window (the
 * process that started the server: a Claude Code session, a Cursor window, a Codex run) holds
 * which numbered workspace of a working folder. `<folder key>-<slot>` is the conversation id; a
 * window that reconnects finds its own row again, and a window that is gone leaves its slot to
 * the next one, so workspaces do not pile up. Rows are only ever matched by folder key and
 * process: no path is read from them.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import type { ProcessIdentity } from '../ports/index.js';

/** One claim as stored. */
interface WindowClaim {
  conversation: string;
  folderKey: string;
  /** 1, 2, …: the conversation id is `<folderKey>-<slot>`. */
  slot: number;
  /** The client window's process. */
  window: ProcessIdentity;
  claimedAt: number;
}

interface Row {
  conversation: string;
  folder_key: string;
  slot: number;
  pid: number;
  pid_start: string | null;
  claimed_at: number;
}

function fromRow(r: Row): WindowClaim {
  return {
    conversation: r.conversation,
    folderKey: r.folder_key,
    slot: r.slot,
    window: { pid: r.pid, start: r.pid_start },
    claimedAt: r.claimed_at,
  };
}

/** Prepared statements over `window_claims`. Construct once per connection. */
export class WindowClaimTable {
  private readonly byFolder: Statement;
  private readonly upsert: Statement;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.byFolder = db.prepare('SELECT * FROM window_claims WHERE folder_key = ? ORDER BY slot');
    this.upsert = db.prepare(
      `INSERT INTO window_claims (conversation, folder_key, slot, pid, pid_start, claimed_at)
       VALUES (@conversation, @folderKey, @slot, @pid, @start, @at)
       ON CONFLICT (conversation) DO UPDATE SET pid = excluded.pid, pid_start = excluded.pid_start, claimed_at = excluded.claimed_at`,
    );
  }

  /** The claims of one folder key, by slot. */
  ofFolder(folderKey: string): WindowClaim[] {
    return (this.byFolder.all(folderKey) as Row[]).map(fromRow);
  }

  /** Records that `window` holds slot `slot` of `folderKey` (replacing the slot's earlier window). Result: the claim. */
  claim(folderKey: string, slot: number, window: ProcessIdentity): WindowClaim {
    const conversation = `${folderKey}-${slot}`;
    const at = this.clock.now();
    this.upsert.run({ conversation, folderKey, slot, pid: window.pid, start: window.start, at });
    return { conversation, folderKey, slot, window, claimedAt: at };
  }
}
