/**
 * The agent model's state (migration 11; docs/ARCHITECTURE.md § Agent model):
 *
 * - `agents`: per conversation, its agent identity (whose `/home` it sees), its active workspace
 *   (where relative paths resolve and commands start) and a version bumped on every change of
 *   its bindings or its active workspace, so a process serving it sees a change made elsewhere on
 *   its next call (one indexed read: `stateOf`).
 * - `bindings`: occupancy records of workspaces by conversations. A conversation of an isolated
 *   backend holds its own workspace (`own`), `exclusive-write` from preparation to release unless
 *   it gives write up; what it attaches (another conversation's workspace, or `canonical`, the
 *   source checkout) is a binding too. Records are kept after they end (`releasedAt`,
 *   `endReason`) as history.
 *
 * Workspace ids: a conversation id, or `canonical` (reserved: no conversation is prepared under
 * it, nor under `home`). At most one active `exclusive-write` binding per workspace (a unique
 * partial index: two processes cannot both win); `shared-read` bindings are any number, beside
 * it. A conversation holds at most one active binding per workspace.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import { WorkspaceError } from '../workspace-error.js';

/** How a binding may use its workspace. */
export type BindingMode = 'shared-read' | 'exclusive-write';

/** Why a binding ended. */
export type BindingEnd = 'detach' | 'mode-change' | 'release' | 'workspace-released';

/** The workspace id of the source checkout. */
export const CANONICAL_WORKSPACE = 'canonical';

/** The workspace id of the agent's home (never bound: every conversation sees its agent's). */
export const HOME_WORKSPACE = 'home';

/** One binding (an occupancy record of the agent model). */
export interface BindingRecord {
  id: number;
  /** The conversation holding it. */
  holder: string;
  /** A conversation id, or `canonical`. */
  workspace: string;
  mode: BindingMode;
  /** True for the holder's own workspace. */
  own: boolean;
  acquiredAt: number;
  releasedAt: number | null;
  endReason: BindingEnd | null;
}

/** A conversation's agent identity, active workspace and bindings version. */
export interface AgentState {
  conversation: string;
  agent: string;
  /** A workspace id: its own conversation id, `home`, or one it has attached. */
  active: string;
  version: number;
}

interface BindingRow {
  id: number;
  holder: string;
  workspace: string;
  mode: BindingMode;
  own: number;
  acquired_at: number;
  released_at: number | null;
  end_reason: BindingEnd | null;
}

function fromRow(r: BindingRow): BindingRecord {
  return {
    id: r.id,
    holder: r.holder,
    workspace: r.workspace,
    mode: r.mode,
    own: r.own === 1,
    acquiredAt: r.acquired_at,
    releasedAt: r.released_at,
    endReason: r.end_reason,
  };
}

const COLS = 'id, holder, workspace, mode, own, acquired_at, released_at, end_reason';

/** Prepared statements over `agents` and `bindings`. Construct once per connection. */
export class BindingTable {
  private readonly state: Statement;
  private readonly insertAgent: Statement;
  private readonly bump: Statement;
  private readonly setActive: Statement;
  private readonly activeOfHolder: Statement;
  private readonly activeOnWorkspace: Statement;
  private readonly allOfHolder: Statement;
  private readonly allOnWorkspace: Statement;
  private readonly pair: Statement;
  private readonly writer: Statement;
  private readonly insert: Statement;
  private readonly end: Statement;
  private readonly endOfHolder: Statement;
  private readonly endOnWorkspace: Statement;
  private readonly holdersOn: Statement;
  private readonly forget: Statement;
  private readonly forgetAgent: Statement;
  private readonly newest: Statement;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.state = db.prepare('SELECT conversation, agent, active, version FROM agents WHERE conversation = ?');
    this.insertAgent = db.prepare('INSERT OR IGNORE INTO agents (conversation, agent, active) VALUES (?, ?, ?)');
    this.bump = db.prepare('UPDATE agents SET version = version + 1 WHERE conversation = ?');
    this.setActive = db.prepare('UPDATE agents SET active = ?, version = version + 1 WHERE conversation = ?');
    this.activeOfHolder = db.prepare(`SELECT ${COLS} FROM bindings WHERE holder = ? AND released_at IS NULL ORDER BY id`);
    this.activeOnWorkspace = db.prepare(`SELECT ${COLS} FROM bindings WHERE workspace = ? AND released_at IS NULL ORDER BY id`);
    this.allOfHolder = db.prepare(`SELECT ${COLS} FROM bindings WHERE holder = ? ORDER BY id`);
    this.allOnWorkspace = db.prepare(`SELECT ${COLS} FROM bindings WHERE workspace = ? ORDER BY id`);
    this.pair = db.prepare(`SELECT ${COLS} FROM bindings WHERE holder = ? AND workspace = ? AND released_at IS NULL`);
    this.writer = db.prepare(`SELECT ${COLS} FROM bindings WHERE workspace = ? AND released_at IS NULL AND mode = 'exclusive-write'`);
    this.insert = db.prepare(`INSERT INTO bindings (holder, workspace, mode, own, acquired_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLS}`);
    this.end = db.prepare('UPDATE bindings SET released_at = ?, end_reason = ? WHERE id = ? AND released_at IS NULL');
    this.endOfHolder = db.prepare('UPDATE bindings SET released_at = ?, end_reason = ? WHERE holder = ? AND released_at IS NULL');
    this.endOnWorkspace = db.prepare(
      'UPDATE bindings SET released_at = ?, end_reason = ? WHERE workspace = ? AND holder <> ? AND released_at IS NULL',
    );
    this.holdersOn = db.prepare('SELECT DISTINCT holder FROM bindings WHERE workspace = ? AND holder <> ? AND released_at IS NULL');
    this.forget = db.prepare('DELETE FROM bindings WHERE holder = ?');
    this.forgetAgent = db.prepare('DELETE FROM agents WHERE conversation = ?');
    this.newest = db.prepare(`SELECT ${COLS} FROM bindings ORDER BY id DESC LIMIT ?`);
  }

  /** The conversation's agent identity, active workspace and version, or null (prepared before migration 11, or never). */
  stateOf(conversation: string): AgentState | null {
    return (this.state.get(conversation) as AgentState | undefined) ?? null;
  }

  /**
   * Records a conversation being prepared: its agent identity (kept if it has one), its active
   * workspace its own, and, for an isolated backend (`holdsOwn`), its own workspace
   * `exclusive-write`. Idempotent. Throws `OCCUPIED` when another conversation holds the
   * conversation's workspace id `exclusive-write` (left from a released namesake: never, since
   * release ends them).
   */
  register(conversation: string, agent: string, holdsOwn: boolean): void {
    this.db
      .transaction(() => {
        this.insertAgent.run(conversation, agent, conversation);
        if (holdsOwn && !this.pair.get(conversation, conversation)) this.take(conversation, conversation, 'exclusive-write', true);
      })
      .immediate();
  }

  /** Undoes `register` for a preparation rolled back: its agent row and every binding it held are removed. */
  unregister(conversation: string): void {
    this.db
      .transaction(() => {
        this.forget.run(conversation);
        this.forgetAgent.run(conversation);
      })
      .immediate();
  }

  /**
   * Binds `workspace` for `holder` in `mode`, in one IMMEDIATE transaction: the same mode again
   * returns the binding it has; another mode ends it (`mode-change`) and opens a new one.
   * Throws `WorkspaceError` `OCCUPIED` (data: workspace, holder, mode, requestedBy, requestedMode)
   * when `exclusive-write` is asked while another conversation holds it; nothing changes then.
   * Bumps the holder's version when anything changed.
   */
  attach(holder: string, workspace: string, mode: BindingMode): BindingRecord {
    return this.db
      .transaction(() => {
        const mine = this.pair.get(holder, workspace) as BindingRow | undefined;
        if (mine?.mode === mode) return fromRow(mine);
        if (mode === 'exclusive-write') {
          const other = this.writer.get(workspace) as BindingRow | undefined;
          if (other && other.holder !== holder) {
            throw new WorkspaceError(
              'OCCUPIED',
              `workspace '${workspace}' is held exclusive-write by '${other.holder}'; '${holder}' cannot take exclusive-write`,
              { workspace, holder: other.holder, mode: other.mode, requestedBy: holder, requestedMode: mode },
            );
          }
        }
        if (mine) this.end.run(this.clock.now(), 'mode-change', mine.id);
        const record = this.take(holder, workspace, mode, mine ? mine.own === 1 : holder === workspace);
        this.bump.run(holder);
        return record;
      })
      .immediate();
  }

  /**
   * Ends `holder`'s binding of `workspace` (`detach`); when it was the active workspace, the
   * holder's own becomes active again. Result: the ended binding, or null when none was active.
   */
  detach(holder: string, workspace: string): BindingRecord | null {
    return this.db
      .transaction(() => {
        const mine = this.pair.get(holder, workspace) as BindingRow | undefined;
        if (!mine) return null;
        const now = this.clock.now();
        this.end.run(now, 'detach', mine.id);
        const state = this.stateOf(holder);
        if (state?.active === workspace) this.setActive.run(holder, holder);
        else this.bump.run(holder);
        return fromRow({ ...mine, released_at: now, end_reason: 'detach' });
      })
      .immediate();
  }

  /** Makes `workspace` the holder's active workspace (the caller checked it may). Bumps its version. */
  switchTo(holder: string, workspace: string): void {
    this.setActive.run(workspace, holder);
  }

  /**
   * A conversation's release: every binding it holds ends (`release`); every other
   * conversation's binding of its workspace ends (`workspace-released`), and their versions are
   * bumped (an active one falls back to the holder's own); the conversation's own active
   * workspace is its own again. Result: the holders whose binding ended.
   */
  releaseWorkspace(conversation: string): string[] {
    return this.db
      .transaction(() => {
        const now = this.clock.now();
        const others = (this.holdersOn.all(conversation, conversation) as { holder: string }[]).map((r) => r.holder);
        this.endOfHolder.run(now, 'release', conversation);
        // Prepared again, it starts in its own workspace: a stale active id would make a later
        // attach of that workspace its active one without a switch.
        this.setActive.run(conversation, conversation);
        this.endOnWorkspace.run(now, 'workspace-released', conversation, conversation);
        for (const holder of others) {
          if (this.stateOf(holder)?.active === conversation) this.setActive.run(holder, holder);
          else this.bump.run(holder);
        }
        return others;
      })
      .immediate();
  }

  /** The holder's active bindings, oldest first. */
  bindingsOf(holder: string): BindingRecord[] {
    return (this.activeOfHolder.all(holder) as BindingRow[]).map(fromRow);
  }

  /** The active bindings of `workspace` (by every holder), oldest first. */
  holdersOf(workspace: string): BindingRecord[] {
    return (this.activeOnWorkspace.all(workspace) as BindingRow[]).map(fromRow);
  }

  /** Every binding the holder ever had, ended ones included, oldest first. */
  historyOfHolder(holder: string): BindingRecord[] {
    return (this.allOfHolder.all(holder) as BindingRow[]).map(fromRow);
  }

  /** Every binding of `workspace` ever made, ended ones included, oldest first. */
  historyOf(workspace: string): BindingRecord[] {
    return (this.allOnWorkspace.all(workspace) as BindingRow[]).map(fromRow);
  }

  /** The newest `limit` bindings of every holder and workspace, ended ones included, newest first (the status page's history). */
  recent(limit: number): BindingRecord[] {
    return (this.newest.all(Math.max(0, Math.floor(limit))) as BindingRow[]).map(fromRow);
  }

  /** The conversation holding `workspace` `exclusive-write` now, or null. */
  writerOf(workspace: string): string | null {
    return (this.writer.get(workspace) as BindingRow | undefined)?.holder ?? null;
  }

  private take(holder: string, workspace: string, mode: BindingMode, own: boolean): BindingRecord {
    return fromRow(this.insert.get(holder, workspace, mode, own ? 1 : 0, this.clock.now()) as BindingRow);
  }
}
