/**
 * The lander's submissions as the store reads them: one shape per state, parsed at the table
 * boundary. A row without what its state needs (a candidate once checked, a landed commit once
 * landed, a failure that says why) is a `StateError` `CORRUPT_RECORD` naming the submission, and
 * an update that would leave one is refused with nothing changed.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.js';
import { StateError, StateStore, type LanderFailure, type SubmissionRecord } from '../../src/state/index.js';

let dir: string;
let store: StateStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatefs-submissions-'));
  store = StateStore.open(join(dir, 'gatefs.db'), { clock: new ManualClock(1_000) });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const draft = {
  id: 'sub-1',
  requestId: 'req-sub-1',
  target: 'refs/heads/main',
  conversation: 'a',
  root: 'a',
  chain: ['a'],
  commitSha: 'c0ffee',
  divergence: 'None',
  summary: null,
};

/** Changes the row by hand, as another program (or a person with sqlite3) could. */
function editRow(sql: string): void {
  const db = new Database(join(dir, 'gatefs.db'));
  try {
    db.prepare(`UPDATE submissions SET ${sql} WHERE id = 'sub-1'`).run();
  } finally {
    db.close();
  }
}

/** The error `fn` throws, as `{ name, code, id }`. */
function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e instanceof StateError ? { name: e.name, code: e.code, id: e.data.id } : e;
  }
  return 'no error';
}

describe('submissions, one shape per state', () => {
  it('reads each state with what it guarantees: a candidate once checking, the landed commit once landed', () => {
    const queued: SubmissionRecord = store.submissions.insert(draft);
    expect(queued).toMatchObject({ state: 'queued', attempts: 0, candidateSha: null, landedSha: null, outcome: {} });
    store.submissions.update('sub-1', { state: 'merging', attempts: 1 });
    store.submissions.update('sub-1', { state: 'checking', baseSha: 'b', targetSha: 'b', candidateSha: 'k' });
    const checks = [{ name: 'unit', exitCode: 0, timedOut: false, durationMs: 5 }];
    store.submissions.update('sub-1', { state: 'checked', outcome: { checks } });
    const landed = store.submissions.update('sub-1', { state: 'landed', landedSha: 'k' });
    expect(landed).toMatchObject({ state: 'landed', baseSha: 'b', candidateSha: 'k', landedSha: 'k', outcome: { checks } });
    expect(store.submissions.get('sub-1')).toEqual(landed);
  });

  it('keeps a failure as the submitter is told it: its reason and the fields of that reason', () => {
    store.submissions.insert(draft);
    const failure: LanderFailure = { reason: 'MERGE_CONFLICT', message: 'merging onto main conflicts', conflicts: ['a.txt'] };
    const failed = store.submissions.update('sub-1', { state: 'failed', outcome: failure });
    expect(failed).toMatchObject({ state: 'failed', outcome: failure });
  });

  it('refuses an update that would leave a state without what it needs, changing nothing', () => {
    store.submissions.insert(draft);
    expect(refusal(() => store.submissions.update('sub-1', { state: 'checked', baseSha: 'b' }))).toEqual({
      name: 'StateError',
      code: 'CORRUPT_RECORD',
      id: 'sub-1',
    });
    expect(store.submissions.get('sub-1')).toMatchObject({ state: 'queued', baseSha: null });
  });

  it.each([
    ['a landed row without its landed commit', "state = 'landed', base_sha = 'b', candidate_sha = 'k'"],
    ['a checked row without its candidate', "state = 'checked', base_sha = 'b'"],
    ['a failed row whose reason is no lander failure', `state = 'failed', outcome = '{"reason":"OOPS","message":"m"}'`],
    ['a failed check without its output', `state = 'failed', outcome = '{"reason":"CHECK_FAILED","message":"m","check":"unit"}'`],
    ['a chain that is not a list of ids', `chain = '{"a":1}'`],
    ['outcome that is not JSON', "outcome = 'not json'"],
  ])('reads %s as CORRUPT_RECORD naming it, in every query', (_what, sql) => {
    store.submissions.insert(draft);
    editRow(sql);
    const corrupt = { name: 'StateError', code: 'CORRUPT_RECORD', id: 'sub-1' };
    expect(refusal(() => store.submissions.get('sub-1'))).toEqual(corrupt);
    expect(refusal(() => store.submissions.list())).toEqual(corrupt);
  });
});
