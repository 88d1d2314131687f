/**
 * The `messages` table: the outbox of the messages port (`host.messages(conversation)`). Each
 * message is keyed by a submission-scoped request id (`UNIQUE`): writing the same message again
 * (a lander resuming after a crash) changes nothing, so each report, note and input exists once.
 * The lander writes a message in the same transaction as the step that produces it. `read_at`
 * records when the `messages` tool first returned a message to its conversation (the tool's
 * `unread` reads what has none); nothing else about a message ever changes.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import { stableStringify } from './stable-json.js';

/** What a message is: a landing `report` to the submitter, a one-way `note` to the branch starter, an `input` (a refused submission) to the submitter. */
export type MessageKind = 'report' | 'note' | 'input';

/** One message as stored. */
export interface MessageRecord {
  seq: number;
  requestId: string;
  /** The conversation it is for. */
  conversation: string;
  kind: MessageKind;
  /** The submission it is about, when it is about one. */
  submission: string | null;
  body: Record<string, unknown>;
  createdAt: number;
  /** When the `messages` tool first returned it to its conversation; null while it has not. */
  readAt: number | null;
}

/** What `deliver` takes. */
type MessageDraft = Pick<MessageRecord, 'requestId' | 'conversation' | 'kind' | 'submission' | 'body'>;

interface Row {
  seq: number;
  request_id: string;
  conversation: string;
  kind: MessageKind;
  submission: string | null;
  body: string;
  created_at: number;
  read_at: number | null;
}

/** Prepared statements over `messages`. Construct once per connection. */
export class MessageTable {
  private readonly insert: Statement;
  private readonly byConversation: Statement;
  private readonly all: Statement;
  private readonly unreadOf: Statement;
  private readonly markOne: Statement;
  private readonly markAll: (conversation: string, seqs: readonly number[], at: number) => number;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.insert = db.prepare(
      `INSERT INTO messages (request_id, conversation, kind, submission, body, created_at)
       VALUES (@request_id, @conversation, @kind, @submission, @body, @at) ON CONFLICT (request_id) DO NOTHING`,
    );
    this.byConversation = db.prepare('SELECT * FROM messages WHERE conversation = ? ORDER BY seq');
    this.all = db.prepare('SELECT * FROM messages ORDER BY seq');
    this.unreadOf = db.prepare('SELECT * FROM messages WHERE conversation = ? AND read_at IS NULL ORDER BY seq');
    this.markOne = db.prepare('UPDATE messages SET read_at = @at WHERE seq = @seq AND conversation = @conversation AND read_at IS NULL');
    this.markAll = db.transaction((conversation: string, seqs: readonly number[], at: number) => {
      let marked = 0;
      for (const seq of seqs) marked += this.markOne.run({ seq, conversation, at }).changes;
      return marked;
    });
  }

  /** Stores a message unless one with its request id exists. Result: true when it was new. */
  deliver(draft: MessageDraft): boolean {
    return (
      this.insert.run({
        request_id: draft.requestId,
        conversation: draft.conversation,
        kind: draft.kind,
        submission: draft.submission,
        body: stableStringify(draft.body),
        at: this.clock.now(),
      }).changes === 1
    );
  }

  /** The messages for `conversation` (every message when undefined), oldest first. */
  list(conversation?: string): MessageRecord[] {
    return ((conversation === undefined ? this.all.all() : this.byConversation.all(conversation)) as Row[]).map(recordOf);
  }

  /** The messages for `conversation` the `messages` tool has not returned yet, oldest first. */
  unread(conversation: string): MessageRecord[] {
    return (this.unreadOf.all(conversation) as Row[]).map(recordOf);
  }

  /**
   * Marks the messages `seqs` of `conversation` read now (those already read keep their time; a
   * seq of another conversation is left alone), in one transaction. Result: how many were marked.
   */
  markRead(conversation: string, seqs: readonly number[]): number {
    return seqs.length === 0 ? 0 : this.markAll(conversation, seqs, this.clock.now());
  }
}

function recordOf(r: Row): MessageRecord {
  return {
    seq: r.seq,
    requestId: r.request_id,
    conversation: r.conversation,
    kind: r.kind,
    submission: r.submission,
    body: JSON.parse(r.body) as Record<string, unknown>,
    createdAt: r.created_at,
    readAt: r.read_at,
  };
}
