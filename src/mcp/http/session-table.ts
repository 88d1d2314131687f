/**
 * `SessionTable`: the open MCP sessions of the HTTP server, with caps per conversation and in
 * total that never end an active session to make room. A new session beyond a cap is refused;
 * only idle sessions are ever ended by the server (`reapable`), and only after a documented time:
 *
 * - active: a request of the session is being handled, or it holds an open stream (the GET
 *   stream an SDK client keeps open while connected). Never ended.
 * - idle: neither, since its last request ended. Ended after `detachedMs` (default 1 minute) if
 *   the client had opened a stream and dropped it (an SDK client reconnects its stream within
 *   seconds; a dropped stream that stays dropped means the client went away), otherwise after
 *   `idleMs` (default 15 minutes).
 *
 * Pure bookkeeping over a clock port; the HTTP server closes what `reapable` returns.
 */
import type { Clock } from '../../ports/index.js';

/** Caps and idle times of `SessionTable`. */
export interface SessionLimits {
  /** Open sessions per conversation (default 8). */
  perConversation: number;
  /** Open sessions in total (default 256). */
  total: number;
  /** Idle time after which a session that never kept a stream open is ended (default 15 min). */
  idleMs: number;
  /** Idle time after which a session whose stream dropped is ended (default 1 min). */
  detachedMs: number;
}

/** The default limits of `gatefs serve --http`. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { perConversation: 8, total: 256, idleMs: 15 * 60_000, detachedMs: 60_000 };

/** One open session and its activity. */
interface SessionRecord<T> {
  readonly id: string;
  readonly conversation: string;
  readonly value: T;
  lastActive: number;
  inFlight: number;
  streams: number;
  hadStream: boolean;
}

/** A held slot for a session being opened: `commit` it once open, or `cancel` it. */
export interface SessionSlot<T> {
  commit(id: string, value: T): SessionRecord<T>;
  cancel(): void;
}

/** Why a new session was refused: which cap, how many are open, and the cap. */
export interface SessionRefusal {
  scope: 'conversation' | 'server';
  open: number;
  limit: number;
}

/** Open sessions with caps and idle tracking (see the module comment). */
export class SessionTable<T> {
  private readonly records = new Map<string, SessionRecord<T>>();
  private readonly pending = new Map<string, number>();
  private pendingTotal = 0;

  constructor(
    readonly limits: SessionLimits,
    private readonly clock: Clock,
  ) {}

  /** The session with this id, if open. */
  get(id: string): SessionRecord<T> | undefined {
    return this.records.get(id);
  }

  /** Every open session. */
  all(): SessionRecord<T>[] {
    return [...this.records.values()];
  }

  /** Open sessions (and slots being opened) on `conversation`, or in total. */
  count(conversation?: string): number {
    if (conversation === undefined) return this.records.size + this.pendingTotal;
    let n = this.pending.get(conversation) ?? 0;
    for (const r of this.records.values()) if (r.conversation === conversation) n++;
    return n;
  }

  /**
   * Holds a slot for a new session on `conversation`, or returns the refusal when the
   * conversation's cap or the total cap is reached. Never ends another session.
   */
  reserve(conversation: string): SessionSlot<T> | SessionRefusal {
    const total = this.count();
    if (total >= this.limits.total) return { scope: 'server', open: total, limit: this.limits.total };
    const mine = this.count(conversation);
    if (mine >= this.limits.perConversation) return { scope: 'conversation', open: mine, limit: this.limits.perConversation };
    this.pending.set(conversation, (this.pending.get(conversation) ?? 0) + 1);
    this.pendingTotal++;
    let held = true;
    const unhold = () => {
      if (!held) return;
      held = false;
      this.pendingTotal--;
      const left = (this.pending.get(conversation) ?? 1) - 1;
      if (left > 0) this.pending.set(conversation, left);
      else this.pending.delete(conversation);
    };
    return {
      commit: (id, value) => {
        unhold();
        const record: SessionRecord<T> = {
          id,
          conversation,
          value,
          lastActive: this.clock.now(),
          inFlight: 0,
          streams: 0,
          hadStream: false,
        };
        this.records.set(id, record);
        return record;
      },
      cancel: unhold,
    };
  }

  /**
   * Marks a request (`request`) or a stream (`stream`) of session `id` as started; call the
   * returned function once when it ends. Unknown ids are ignored.
   */
  begin(id: string, kind: 'request' | 'stream'): () => void {
    const record = this.records.get(id);
    if (!record) return () => undefined;
    record.lastActive = this.clock.now();
    if (kind === 'stream') {
      record.streams++;
      record.hadStream = true;
    } else record.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (kind === 'stream') record.streams--;
      else record.inFlight--;
      record.lastActive = this.clock.now();
    };
  }

  /** Forgets session `id` (it closed). */
  remove(id: string): void {
    this.records.delete(id);
  }

  /** Sessions idle past their idle time (see the module comment), oldest activity first. */
  reapable(): SessionRecord<T>[] {
    const now = this.clock.now();
    return this.all()
      .filter(
        (r) => r.inFlight === 0 && r.streams === 0 && now - r.lastActive >= (r.hadStream ? this.limits.detachedMs : this.limits.idleMs),
      )
      .sort((a, b) => a.lastActive - b.lastActive);
  }
}
