/**
 * A lander submission as the `submissions` table holds it: one type per state, so what a state
 * guarantees is in the type (a `checked` submission has its candidate, a `landed` one its landed
 * commit), and a lander failure as a typed union. Rows are parsed here, at the table boundary:
 * a row without what its state needs (written by hand, or by a broken gatefs) is a `StateError`
 * `CORRUPT_RECORD` naming the submission, never a `null` discovered half-way through a landing.
 */
import { StateError } from './state-error.js';

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

/** One check's result on a candidate, as recorded and reported. */
export interface CheckSummary {
  name: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

/** One check that ran on a refused candidate: its summary, and for the one that failed the tail of its output. */
export interface CheckResult extends CheckSummary {
  /** The end of what it printed (at most `CHECK_OUTPUT_BYTES`), on the check that failed only. */
  output?: string;
  outputTruncated?: boolean;
}

/**
 * Why the target's move to a checked candidate is blocked right now (the checkout that has the
 * target checked out would lose files): `reason` (`UNCOMMITTED_CHANGES`, `UNTRACKED_FILES`), the
 * files in the way, and when it was found. Cleared once the submission moves on.
 */
export interface BlockedMove {
  reason: string;
  files: string[];
  at: number;
}

/** Why the lander refused a submission: what the submitter's input says (the `reason` is stable). */
export type LanderFailure =
  /** The target branch does not exist. */
  | { reason: 'NO_TARGET'; message: string }
  /** Merging the submission onto the target's head conflicts in `conflicts`. */
  | { reason: 'MERGE_CONFLICT'; message: string; conflicts: string[] }
  /** The candidate's tree holds a name of the state directory (`paths`). */
  | { reason: 'PROTECTED_PATH'; message: string; paths: string[] }
  /** A check failed, or ran past its timeout: its name, exit code and output tail. */
  | {
      reason: 'CHECK_FAILED' | 'CHECK_TIMED_OUT';
      message: string;
      check: string;
      exitCode: number | null;
      timedOut: boolean;
      output: string;
      outputTruncated: boolean;
      /** How long the failing check ran (absent in records older than it). */
      durationMs?: number;
      /** Every check that ran on the candidate, in order, the failing one last with its output tail (absent in older records). */
      checks?: CheckResult[];
    };

/** What a submission that did not fail records about its checks: their results, or that the target already held the work. */
export interface LandingOutcome {
  checks?: CheckSummary[];
  alreadyLanded?: true;
}

/** What every submission has, whatever its state. */
interface SubmissionBase {
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
  /** Merge attempts started (a moved target costs one more). */
  attempts: number;
  /** The commit the candidate was merged onto: the target's head, or the remote's when it was ahead. */
  baseSha: string | null;
  /** The target's local head when the candidate was made: what the compare-and-swap move expects (null in records older than it). */
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
  /** Why the target's move is blocked right now (a `checked` or `landed` submission), else null. */
  blocked: BlockedMove | null;
  outcome: LandingOutcome;
  createdAt: number;
  updatedAt: number;
}

/** Waiting for a (new) attempt; fields of an earlier attempt may remain. */
export interface QueuedSubmission extends SubmissionBase {
  state: 'queued';
}
/** An attempt started: merging onto the target's head. */
export interface MergingSubmission extends SubmissionBase {
  state: 'merging';
}
/** The candidate is made and its checks run. */
export interface CheckingSubmission extends SubmissionBase {
  state: 'checking';
  baseSha: string;
  targetSha: string;
  candidateSha: string;
}
/** The candidate passed its checks; the target moves to it next. */
export interface CheckedSubmission extends SubmissionBase {
  state: 'checked';
  baseSha: string;
  candidateSha: string;
}
/** The target points at `landedSha`; the push (if any) is next. */
export interface LandedSubmission extends SubmissionBase {
  state: 'landed';
  baseSha: string;
  candidateSha: string;
  landedSha: string;
}
/** The remote holds the landing (or there is no remote); the report is next. */
export interface PushedSubmission extends SubmissionBase {
  state: 'pushed';
  landedSha: string;
}
/** Reported: the submitter has its report, the branch starter its note. */
interface DoneSubmission extends SubmissionBase {
  state: 'done';
  landedSha: string;
}
/** Refused: the submitter has an input saying why (`outcome`). */
interface FailedSubmission extends Omit<SubmissionBase, 'outcome'> {
  state: 'failed';
  outcome: LanderFailure;
}

/** One submission as stored, by state. */
export type SubmissionRecord =
  | QueuedSubmission
  | MergingSubmission
  | CheckingSubmission
  | CheckedSubmission
  | LandedSubmission
  | PushedSubmission
  | DoneSubmission
  | FailedSubmission;

/** The submission type of state `S`. */
export type SubmissionIn<S extends SubmissionState> = Extract<SubmissionRecord, { state: S }>;

/** True when `record` is in `state` (narrows it). */
function isSubmissionIn<S extends SubmissionState>(record: SubmissionRecord, state: S): record is SubmissionIn<S> {
  return record.state === state;
}

/**
 * `record` as a submission in `state`. Throws `StateError` `CORRUPT_RECORD` when it is in
 * another (a step recorded a state that did not stick: a bug, or another writer).
 */
export function submissionIn<S extends SubmissionState>(record: SubmissionRecord, state: S): SubmissionIn<S> {
  if (!isSubmissionIn(record, state)) {
    throw new StateError('CORRUPT_RECORD', `submission ${record.id} is ${record.state}, not ${state}`, {
      id: record.id,
      state: record.state,
    });
  }
  return record;
}

/** A row's columns as read, before parsing (the shape `SubmissionTable` selects). */
export interface SubmissionRow {
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
  state: string;
  attempts: number;
  base_sha: string | null;
  target_sha: string | null;
  candidate_sha: string | null;
  landed_sha: string | null;
  pushed_sha: string | null;
  push_attempts: number;
  push_error: string | null;
  blocked: string | null;
  outcome: string;
  created_at: number;
  updated_at: number;
}

/** The submission a row holds. Throws `StateError` `CORRUPT_RECORD` naming the submission and what is wrong. */
export function parseSubmission(row: SubmissionRow): SubmissionRecord {
  const bad = (what: string) =>
    new StateError('CORRUPT_RECORD', `submission ${row.id} (${row.state}) is not a record gatefs writes: ${what}`, {
      id: row.id,
      state: row.state,
    });
  const base = { ...commonOf(row, bad), outcome: {} };
  const needSha = (value: string | null, name: string): string => {
    if (value === null) throw bad(`${name} is missing`);
    return value;
  };
  const outcome = parseJson(row.outcome, bad);
  switch (row.state) {
    case 'queued':
    case 'merging':
      return { ...base, state: row.state, outcome: landingOutcomeOf(outcome, bad) };
    case 'checking':
      return {
        ...base,
        state: 'checking',
        baseSha: needSha(row.base_sha, 'base_sha'),
        targetSha: needSha(row.target_sha, 'target_sha'),
        candidateSha: needSha(row.candidate_sha, 'candidate_sha'),
        outcome: landingOutcomeOf(outcome, bad),
      };
    case 'checked':
    case 'landed': {
      const candidate = { baseSha: needSha(row.base_sha, 'base_sha'), candidateSha: needSha(row.candidate_sha, 'candidate_sha') };
      const result = { ...base, ...candidate, outcome: landingOutcomeOf(outcome, bad) };
      return row.state === 'checked'
        ? { ...result, state: 'checked' }
        : { ...result, state: 'landed', landedSha: needSha(row.landed_sha, 'landed_sha') };
    }
    case 'pushed':
    case 'done':
      return { ...base, state: row.state, landedSha: needSha(row.landed_sha, 'landed_sha'), outcome: landingOutcomeOf(outcome, bad) };
    case 'failed':
      return { ...base, state: 'failed', outcome: failureOf(outcome, bad) };
    default:
      throw bad(`'${row.state}' is not a state`);
  }
}

type Bad = (what: string) => StateError;

function commonOf(row: SubmissionRow, bad: Bad): Omit<SubmissionBase, 'outcome'> {
  const chain = parseJson(row.chain, bad);
  if (!Array.isArray(chain) || !chain.every((c) => typeof c === 'string')) throw bad('chain is not a list of conversation ids');
  return {
    seq: row.seq,
    id: row.id,
    requestId: row.request_id,
    target: row.target,
    conversation: row.conversation,
    root: row.root,
    chain,
    commitSha: row.commit_sha,
    divergence: row.divergence,
    summary: row.summary,
    attempts: row.attempts,
    baseSha: row.base_sha,
    targetSha: row.target_sha,
    candidateSha: row.candidate_sha,
    landedSha: row.landed_sha,
    pushedSha: row.pushed_sha,
    pushAttempts: row.push_attempts,
    pushError: row.push_error,
    blocked: row.blocked === null ? null : blockedOf(parseJson(row.blocked, bad), bad),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function parseJson(text: string, bad: Bad): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw bad('a column that holds JSON does not');
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isExitCode = (v: unknown): v is number | null => v === null || typeof v === 'number';

function isCheckSummary(v: unknown): v is CheckSummary {
  return (
    isRecord(v) &&
    typeof v.name === 'string' &&
    isExitCode(v.exitCode) &&
    typeof v.timedOut === 'boolean' &&
    typeof v.durationMs === 'number'
  );
}

function blockedOf(v: unknown, bad: Bad): BlockedMove {
  if (!isRecord(v) || typeof v.reason !== 'string' || !isStringList(v.files) || typeof v.at !== 'number')
    throw bad('blocked does not say why (reason, files, at)');
  return { reason: v.reason, files: v.files, at: v.at };
}

function isCheckResult(v: unknown): v is CheckResult {
  if (!isRecord(v) || !isCheckSummary(v)) return false;
  const { output, outputTruncated } = v;
  if (output === undefined) return outputTruncated === undefined;
  return typeof output === 'string' && typeof outputTruncated === 'boolean';
}

function landingOutcomeOf(v: unknown, bad: Bad): LandingOutcome {
  if (!isRecord(v)) throw bad('outcome is not an object');
  const { checks, alreadyLanded } = v;
  if (checks !== undefined && !(Array.isArray(checks) && checks.every(isCheckSummary)))
    throw bad('outcome.checks is not a list of check results');
  if (alreadyLanded !== undefined && alreadyLanded !== true) throw bad('outcome.alreadyLanded is not true');
  return { ...(checks === undefined ? {} : { checks }), ...(alreadyLanded === undefined ? {} : { alreadyLanded }) };
}

function failureOf(v: unknown, bad: Bad): LanderFailure {
  if (!isRecord(v) || typeof v.message !== 'string') throw bad('outcome has no failure message');
  const { reason, message } = v;
  switch (reason) {
    case 'NO_TARGET':
      return { reason, message };
    case 'MERGE_CONFLICT':
      if (!isStringList(v.conflicts)) throw bad('outcome.conflicts is not a list of paths');
      return { reason, message, conflicts: v.conflicts };
    case 'PROTECTED_PATH':
      if (!isStringList(v.paths)) throw bad('outcome.paths is not a list of paths');
      return { reason, message, paths: v.paths };
    case 'CHECK_FAILED':
    case 'CHECK_TIMED_OUT': {
      const { check, exitCode, timedOut, output, outputTruncated } = v;
      const ok =
        typeof check === 'string' &&
        isExitCode(exitCode) &&
        typeof timedOut === 'boolean' &&
        typeof output === 'string' &&
        typeof outputTruncated === 'boolean';
      if (!ok) throw bad('outcome does not describe the check that failed (its name, exit code and output)');
      const { durationMs, checks } = v;
      if (durationMs !== undefined && typeof durationMs !== 'number') throw bad('outcome.durationMs is not a number');
      if (checks !== undefined && !(Array.isArray(checks) && checks.every(isCheckResult)))
        throw bad('outcome.checks is not a list of check results');
      return {
        reason,
        message,
        check,
        exitCode,
        timedOut,
        output,
        outputTruncated,
        ...(durationMs === undefined ? {} : { durationMs }),
        ...(checks === undefined ? {} : { checks }),
      };
    }
    default:
      throw bad(`outcome.reason '${String(reason)}' is not a lander failure`);
  }
}
