/**
 * The `submissions` table: the lander's durable FIFO, one queue per target branch of the source
 * checkout (`refs/heads/main`), ordered by `seq`. Each step of a landing is recorded here before
 * it is acted on (src/lander/lander.ts), so a lander that dies anywhere resumes from the last
 * record. `landed_sha` is written once: a trigger refuses any later change to it, so no code
 * path (a re-merge, a later source commit) can move what was reported as landed. `pushed_sha`
 * (the remote's commit that holds the landing, which differs when the landing had to be
 * re-merged onto a remote that moved) is written once the same way.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../ports/clock.js';
import { StateError } from './state-error.js';
import { stableStringify } from './stable-json.js';

/**
 * Where a submission is: `queued` (waiting), `merging` (an attempt started: merge onto the
 * target's head), `checking` (candidate made, checks running), `checked` (checks passed; the
 * candidate and the head it was made on recorded), `landed` (the target points at
 * `landedSha`), `pushed` (the remote has it), `done` (reported), `failed` (a check or the merge
 * failed; the submitter has an input).
 */
export type SubmissionState = 'queued' | 'merging' | 'checking' | 'checked' | 'landed' | 'pushed' | 'done' | 'failed';

/** The states a submission is still in the queue in. */
export const PENDING_STATES: readonly SubmissionState[] = ['queued', 'merging', 'checking', 'checked', 'landed', 'pushed'];

/** One submission as stored. */
export interface SubmissionRecord {
  seq: number;
  id: string;
  /** The submission-scoped request id its report is delivered under. */
  requestId: string;
  /** Full ref of the branch it lands on. */
  target: string;
  conversation: string;
  /** The root of the conversation's lineage (itself for a root conversation). */
  root: string;
  /** The conversation chain, parents first, ending with `conversation`. */
  chain: string[];
  commitSha: string;
  divergence: string;
  summary: string | null;
  state: SubmissionState;
  /** Merge attempts started (a moved target costs one more). */
  attempts: number;
  /** The commit the candidate was merged onto: the target's head, or the remote's when it was ahead. */
  baseSha: string | null;
  /** The target's local head when the candidate was made: what the compare-and-swap move expects. */
  targetSha: string | null;
  candidateSha: string | null;
  landedSha: string | null;
  /**
   * The remote's commit that was found to hold the landing when the push was confirmed: the
   * pushed commit itself — `landedSha`, or its re-merge onto the remote's head when another
   * lander had pushed first — or a later remote head that contains it. Null until `pushed`, and
   * for a lander without a remote. Written once, like `landedSha`.
   */
  pushedSha: string | null;
  pushAttempts: number;
  pushError: string | null;
  /** Free JSON: check results, the failure, conflicts (sorted keys). */
  outcome: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** What `insert` takes. */
export type SubmissionDraft = Pick<
  SubmissionRecord,
  'id' | 'requestId' | 'target' | 'conversation' | 'root' | 'chain' | 'commitSha' | 'divergence' | 'summary'
>;

/** What `update` may change. */
export type SubmissionPatch = Partial<
  Pick<
    SubmissionRecord,
    'state' | 'attempts' | 'baseSha' | 'targetSha' | 'candidateSha' | 'landedSha' | 'pushedSha' | 'pushAttempts' | 'pushError' | 'outcome'
  >
>;

interface Row {
  seq: number;
  id: string;
  request_id: string;
  target: string;
  conversation: string;
  root: string;
  chain: string;
  commit_sha: string;
  divergence: string;
  summary: string | null;
  state: SubmissionState;
  attempts: number;
  base_sha: string | null;
  target_sha: string | null;
  candidate_sha: string | null;
  landed_sha: string | null;
  pushed_sha: string | null;
  push_attempts: number;
  push_error: string | null;
  outcome: string;
  created_at: number;
  updated_at: number;
}

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
  outcome: 'outcome',
};

/** Prepared statements over `submissions`. Construct once per connection. */
export class SubmissionTable {
  private readonly insertRow: Statement;
  private readonly byId: Statement;
  private readonly pendingOf: Statement;
  private readonly all: Statement;
  private readonly landedOf: Statement;

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
    this.landedOf = db.prepare(`SELECT root, COUNT(*) AS n FROM submissions WHERE landed_sha IS NOT NULL GROUP BY root`);
  }

  /** Appends a submission at the end of its target's queue (`queued`). Result: the stored record. */
  insert(draft: SubmissionDraft): SubmissionRecord {
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
    return this.get(draft.id)!;
  }

  /** The submission `id`, or null. */
  get(id: string): SubmissionRecord | null {
    const row = this.byId.get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** The submissions still queued on `target`, first in line first. */
  pending(target: string): SubmissionRecord[] {
    return (this.pendingOf.all(target) as Row[]).map(fromRow);
  }

  /** Every submission, oldest first. */
  list(): SubmissionRecord[] {
    return (this.all.all() as Row[]).map(fromRow);
  }

  /** Landed submissions per lineage root. */
  landedPerRoot(): Map<string, number> {
    return new Map((this.landedOf.all() as { root: string; n: number }[]).map((r) => [r.root, r.n]));
  }

  /**
   * Changes some fields of `id`. Throws `StateError` `NOT_FOUND` for an unknown id, and
   * `LANDED_SHA_FIXED` when `landedSha` or `pushedSha` would change once recorded (the triggers' refusal).
   */
  update(id: string, patch: SubmissionPatch): SubmissionRecord {
    const keys = Object.keys(patch) as (keyof SubmissionPatch)[];
    const sets = keys.map((k) => `${COLUMNS[k]} = @${k}`);
    const values: Record<string, unknown> = { id, at: this.clock.now() };
    for (const k of keys) values[k] = k === 'outcome' ? stableStringify(patch.outcome) : patch[k];
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
    return this.get(id)!;
  }
}

function fromRow(row: Row): SubmissionRecord {
  return {
    seq: row.seq,
    id: row.id,
    requestId: row.request_id,
    target: row.target,
    conversation: row.conversation,
    root: row.root,
    chain: JSON.parse(row.chain) as string[],
    commitSha: row.commit_sha,
    divergence: row.divergence,
    summary: row.summary,
    state: row.state,
    attempts: row.attempts,
    baseSha: row.base_sha,
    targetSha: row.target_sha,
    candidateSha: row.candidate_sha,
    landedSha: row.landed_sha,
    pushedSha: row.pushed_sha,
    pushAttempts: row.push_attempts,
    pushError: row.push_error,
    outcome: JSON.parse(row.outcome) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
