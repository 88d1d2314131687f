/**
 * What the lander tells conversations, through the messages port (the store's outbox, read by
 * `host.messages(conversation)`): a landing `report` to the submitter and a one-way `note` to
 * whoever started the branch (the parent of a subagent; a root conversation started its own),
 * or an `input` to the submitter when the submission was refused (a failed check with its
 * output tail, a merge conflict). Each is keyed by the submission's request id (the report and
 * the input under it, the note under `<requestId>/note`), so delivering again after a crash
 * changes nothing. Callers run these inside the transaction that records the step.
 */
import type { StateStore } from '../state/index.js';
import type { LanderFailure, PushedSubmission, SubmissionRecord } from '../state/index.js';

/** The part of the state store these use: the outbox. */
type Outbox = Pick<StateStore, 'messages'>;

/** Delivers the report and the note of a landed submission (each at most once). */
export function deliverLanding(store: Outbox, sub: PushedSubmission): void {
  const starter = sub.chain.length > 1 ? sub.chain[sub.chain.length - 2]! : sub.conversation;
  const landed = {
    submissionId: sub.id,
    requestId: sub.requestId,
    target: sub.target.replace(/^refs\/heads\//, ''),
    landedSha: sub.landedSha,
    commit: sub.commitSha,
  };
  store.messages.deliver({
    requestId: sub.requestId,
    conversation: sub.conversation,
    kind: 'report',
    submission: sub.id,
    // `pushedSha`: the remote commit holding the landing (its re-merge when another lander pushed first); null when not pushed.
    body: {
      ...landed,
      outcome: 'landed',
      pushed: sub.pushedSha !== null || (sub.pushAttempts > 0 && sub.pushError === null),
      pushedSha: sub.pushedSha,
      ...sub.outcome,
    },
  });
  store.messages.deliver({
    requestId: `${sub.requestId}/note`,
    conversation: starter,
    kind: 'note',
    submission: sub.id,
    body: { ...landed, from: sub.conversation, summary: sub.summary, divergence: sub.divergence },
  });
}

/** Delivers the input of a refused submission to its submitter (at most once). */
export function deliverFailure(store: Outbox, sub: SubmissionRecord, failure: LanderFailure): void {
  store.messages.deliver({
    requestId: sub.requestId,
    conversation: sub.conversation,
    kind: 'input',
    submission: sub.id,
    body: { submissionId: sub.id, requestId: sub.requestId, outcome: 'failed', commit: sub.commitSha, ...failure },
  });
}
