/**
 * The `submissions` table: the lander's durable FIFO, one queue per target branch of the source
 * checkout (`refs/heads/main`), ordered by `seq`. Each step of a landing is recorded here before
 * it is acted on (src/lander/lander.ts), so a lander that dies anywhere resumes from the last
 * record. `landed_sha` is written once: a trigger refuses any later change to it, so no code
 * path (a re-merge, a later source commit) can move what was reported as landed. `pushed_sha`
 * (the remote's commit that holds the landing, which differs when the landing had to be
 * re-merged onto a remote that moved) is written once the same way. Rows are read through
 * `parseSubmission` (submission-record.ts): one type per state, a malformed row a typed error.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/index.js';
import { StateError } from './state-error.js';
import { stableStringify } from './stable-json.js';
import {
  PENDING_STATES,
  parseSubmission,
  submissionIn,
  type QueuedSubmission,
  type BlockedMove,
  type LanderFailure,
  type LandingOutcome,
  type SubmissionRecord,
  type SubmissionRow,
  type SubmissionState,
} from './submission-record.js';

/** What `insert` takes. */
type SubmissionDraft = Pick<
  SubmissionRecord,
  'id' | 'requestId' | 'target' | 'conversation' | 'root' | 'chain' | 'commitSha' | 'divergence' | 'summary'
>;

/**
 * What `update` may change. The record read back must parse into its (new) state's shape, or
 * the update throws `CORRUPT_RECORD` and, inside a transaction, is undone with it.
 */
export type SubmissionPatch = Partial<{
  state: SubmissionState;
  attempts: number;
  baseSha: string | null;
  targetSha: string | null;
  candidateSha: string | null;
  landedSha: string;
  pushedSha: string;
  pushAttempts: number;
  pushError: string | null;
  /** Why the target's move is blocked (null: it is not, or no longer). */
  blocked: BlockedMove | null;
  /** The checks' results (or `alreadyLanded`), or the failure of a `failed` submission. */
  outcome: LandingOutcome | LanderFailure;
}>;

const COLUMNS: Readonly<Record<keyof SubmissionPatch, string>> = {
  state: 'state',
  attempts: 'attempts',
  baseSha: 'base_sha',
  targetSha: 'target_sha',
  candidateSha: 'candidate_sha',
  landedSha: 'landed_sha',
  pushedSha: 'pushed_sha',
  pushAttempts: 'push_attempts',
  pushError: 'push_error',
  blocked: 'blocked',
  outcome: 'outcome',
};

/** Prepared statements over `submissions`. Construct once per connection. */
export class SubmissionTable {
  private readonly insertRow: Statement;
  private readonly byId: Statement;
  private readonly pendingOf: Statement;
  private readonly all: Statement;
  private readonly landedOf: Statement;
  private readonly byConversation: Statement;
  private readonly lastLandedOf: Statement;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.insertRow = db.prepare(
      `INSERT INTO submissions (id, request_id, target, conversation, root, chain, commit_sha, divergence, summary, state, created_at, updated_at)
       VALUES (@id, @request_id, @target, @conversation, @root, @chain, @commit_sha, @divergence, @summary, 'queued', @at, @at)`,
    );
    this.byId = db.prepare('SELECT * FROM submissions WHERE id = ?');
    this.pendingOf = db.prepare(
      `SELECT * FROM submissions WHERE target = ? AND state IN (${PENDING_STATES.map((s) => `'${s}'`).join(', ')}) ORDER BY seq`,
    );
    this.all = db.prepare('SELECT * FROM submissions ORDER BY seq');
    this.byConversation = db.prepare('SELECT * FROM submissions WHERE conversation = ? ORDER BY seq');
    this.lastLandedOf = db.prepare('SELECT * FROM submissions WHERE root = ? AND landed_sha IS NOT NULL ORDER BY seq DESC LIMIT 1');
    this.landedOf = db.prepare(`SELECT root, COUNT(*) AS n FROM submissions WHERE landed_sha IS NOT NULL GROUP BY root`);
  }

  /** Appends a submission at the end of its target's queue (`queued`). Result: the stored record. */
  insert(draft: SubmissionDraft): QueuedSubmission {
    this.insertRow.run({
      id: draft.id,
      request_id: draft.requestId,
      target: draft.target,
      conversation: draft.conversation,
      root: draft.root,
      chain: JSON.stringify(draft.chain),
      commit_sha: draft.commitSha,
      divergence: draft.divergence,
      summary: draft.summary,
      at: this.clock.now(),
    });
    return submissionIn(this.stored(draft.id), 'queued');
  }

  /** The submission `id`, or null. */
  get(id: string): SubmissionRecord | null {
    const row = this.byId.get(id) as SubmissionRow | undefined;
    return row ? parseSubmission(row) : null;
  }

  /** The submissions still queued on `target`, first in line first. */
  pending(target: string): SubmissionRecord[] {
    return (this.pendingOf.all(target) as SubmissionRow[]).map(parseSubmission);
  }

  /** Every submission, oldest first. */
  list(): SubmissionRecord[] {
    return (this.all.all() as SubmissionRow[]).map(parseSubmission);
  }

  /** The submissions `conversation` made, oldest first. */
  ofConversation(conversation: string): SubmissionRecord[] {
    return (this.byConversation.all(conversation) as SubmissionRow[]).map(parseSubmission);
  }

  /** The last submission of the lineage of `root` that landed (its target points at or past it), or null. */
  landedOfRoot(root: string): SubmissionRecord | null {
    const row = this.lastLandedOf.get(root) as SubmissionRow | undefined;
    return row ? parseSubmission(row) : null;
  }

  /** Landed submissions per lineage root. */
  landedPerRoot(): Map<string, number> {
    return new Map((this.landedOf.all() as { root: string; n: number }[]).map((r) => [r.root, r.n]));
  }

  /**
   * Changes some fields of `id`, in one transaction (a savepoint inside the caller's). Result: the
   * record as stored. Throws `StateError` `NOT_FOUND` for an unknown id, `CORRUPT_RECORD` when the
   * result lacks what its state needs (nothing is changed then), and `LANDED_SHA_FIXED` when
   * `landedSha` or `pushedSha` would change once recorded (the triggers' refusal).
   */
  update(id: string, patch: SubmissionPatch): SubmissionRecord {
    return this.db.transaction(() => this.write(id, patch)).immediate();
  }

  private write(id: string, patch: SubmissionPatch): SubmissionRecord {
    const keys = Object.keys(patch) as (keyof SubmissionPatch)[];
    const sets = keys.map((k) => `${COLUMNS[k]} = @${k}`);
    const values: Record<string, unknown> = { id, at: this.clock.now() };
    for (const k of keys) values[k] = k === 'outcome' || (k === 'blocked' && patch.blocked) ? stableStringify(patch[k]) : patch[k];
    let changes: number;
    try {
      changes = this.db.prepare(`UPDATE submissions SET ${[...sets, 'updated_at = @at'].join(', ')} WHERE id = @id`).run(values).changes;
    } catch (e) {
      if (/(landed|pushed)_sha is recorded once/.test(String((e as Error).message))) {
        throw new StateError(
          'LANDED_SHA_FIXED',
          `submission ${id} already landed; its landed and pushed shas never change`,
          { id },
          { cause: e },
        );
      }
      throw e;
    }
    if (changes === 0) throw new StateError('NOT_FOUND', `no submission '${id}'`, { id });
    return this.stored(id);
  }

  private stored(id: string): SubmissionRecord {
    const record = this.get(id);
    if (!record) throw new StateError('NOT_FOUND', `no submission '${id}'`, { id });
    return record;
  }
}
