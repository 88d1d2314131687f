/**
 * `conversationMessages`: the `messages` tool's answer for one conversation — the lander's
 * messages to it (src/lander/lander-messages.ts: reports, inputs, notes) as the tool shows them,
 * and its submissions still in the queue. Only rows whose recipient or submitter is that
 * conversation are read, so another conversation's messages are never reachable, whatever
 * request id is asked for. Returning a message marks it read in the store (`read_at`), so
 * `unread` holds across servers and restarts.
 */
import type { CheckOutcome, MessagesValue, MessageView, PendingSubmission } from '../../../tools/index.js';
import { blockedMoveText } from '../../lander/index.js';
import type { MessageRecord, StateStore, SubmissionRecord } from '../../state/index.js';

/** What a `messages` call asks for (see `WorkRequests.messages`). */
interface MessagesRequest {
  requestId?: string;
  unread: boolean;
  max: number;
}

/** The submissions still in the queue (a `failed` or `done` one has its message instead). */
const PENDING: ReadonlySet<string> = new Set(['queued', 'merging', 'checking', 'checked', 'landed', 'pushed']);

/**
 * The messages and pending submissions of `conversation` (see the module comment). With `unread`
 * the oldest unread come first and the rest wait for the next call; without it the newest `max`
 * are returned. `more` counts those left out.
 */
export function conversationMessages(
  store: Pick<StateStore, 'messages' | 'submissions'>,
  conversation: string,
  request: MessagesRequest,
): MessagesValue {
  const under = (id: string) => request.requestId === undefined || id === request.requestId || id.startsWith(`${request.requestId}/`);
  const found = (request.unread ? store.messages.unread(conversation) : store.messages.list(conversation)).filter((m) =>
    under(m.requestId),
  );
  const taken = request.unread ? found.slice(0, request.max) : found.slice(Math.max(0, found.length - request.max));
  store.messages.markRead(
    conversation,
    taken.filter((m) => m.readAt === null).map((m) => m.seq),
  );
  const own = store.submissions.ofConversation(conversation);
  const targets = new Map(own.map((s) => [s.id, s.target]));
  const pending = own.filter((s) => PENDING.has(s.state) && under(s.requestId)).map((s) => pendingOf(store, s));
  return { messages: taken.map((m) => viewOf(m, targets)), pending, more: found.length - taken.length };
}

function pendingOf(store: Pick<StateStore, 'submissions'>, s: SubmissionRecord): PendingSubmission {
  const position = store.submissions.pending(s.target).findIndex((p) => p.id === s.id) + 1;
  const blocked =
    s.blocked !== null && (s.state === 'checked' || s.state === 'landed')
      ? { reason: s.blocked.reason, files: s.blocked.files, ...blockedMoveText(s.blocked, s.target) }
      : undefined;
  return {
    requestId: s.requestId,
    submissionId: s.id,
    target: branchName(s.target),
    state: s.state,
    queuePosition: position,
    ...(blocked ? { blocked } : {}),
  };
}

/** A stored message as the tool shows it (fields read defensively: a body is JSON gatefs wrote). */
function viewOf(m: MessageRecord, targets: ReadonlyMap<string, string>): MessageView {
  const b = m.body;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const submissionId = m.submission ?? str(b.submissionId) ?? null;
  const target = str(b.target) ?? (submissionId === null ? undefined : targets.get(submissionId));
  const common = {
    requestId: m.requestId,
    kind: m.kind,
    submissionId,
    at: m.createdAt,
    ...(target === undefined ? {} : { target: branchName(target) }),
    ...(str(b.commit) === undefined ? {} : { commit: str(b.commit)! }),
  };
  const id = submissionId ?? m.requestId;
  if (m.kind === 'input') {
    const paths = Array.isArray(b.conflicts) ? b.conflicts : Array.isArray(b.paths) ? b.paths : undefined;
    return {
      ...common,
      outcome: 'failed',
      message: `${id} was not landed: ${str(b.message) ?? str(b.reason) ?? 'refused'}`,
      checks: failedChecks(b),
      ...(str(b.reason) === undefined ? {} : { reason: str(b.reason)! }),
      ...(paths ? { paths: paths.map(String) } : {}),
    };
  }
  const landedSha = str(b.landedSha) ?? '';
  const checks = checkList(b.checks);
  const on = `on ${target === undefined ? 'the target' : branchName(target)} at ${landedSha.slice(0, 12)}`;
  if (m.kind === 'note') {
    return {
      ...common,
      outcome: 'landed',
      message: `${str(b.from) ?? 'a conversation'}'s ${id} landed ${on}`,
      landedSha,
      checks,
      ...(str(b.from) === undefined ? {} : { from: str(b.from)! }),
      ...(str(b.summary) === undefined ? {} : { summary: str(b.summary)! }),
      ...(str(b.divergence) === undefined ? {} : { divergence: str(b.divergence)! }),
    };
  }
  const pushed = b.pushed === true;
  const ran =
    b.alreadyLanded === true
      ? 'the target already held it'
      : checks.length === 0
        ? 'no checks are set (the lander: key of gatefs.yaml)'
        : `${checks.length} check(s) passed`;
  return {
    ...common,
    outcome: 'landed',
    message: `${id} landed ${on}${pushed ? ', pushed' : ''}; ${ran}`,
    landedSha,
    pushed,
    checks,
  };
}

/** The checks of a refusal: the recorded list, or (records older than it) the failing check alone. */
function failedChecks(b: Record<string, unknown>): CheckOutcome[] {
  const listed = checkList(b.checks);
  if (listed.length > 0 || typeof b.check !== 'string') return listed;
  return checkList([
    {
      name: b.check,
      exitCode: b.exitCode,
      timedOut: b.timedOut,
      durationMs: b.durationMs ?? 0,
      output: b.output,
      outputTruncated: b.outputTruncated,
    },
  ]);
}

function checkList(v: unknown): CheckOutcome[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((c): CheckOutcome[] => {
    if (typeof c !== 'object' || c === null || typeof c.name !== 'string') return [];
    const exitCode = typeof c.exitCode === 'number' ? c.exitCode : null;
    const output = typeof c.output === 'string' ? { output: c.output, outputTruncated: c.outputTruncated === true } : {};
    return [{ name: c.name, exitCode, timedOut: c.timedOut === true, durationMs: Math.round(Number(c.durationMs)) || 0, ...output }];
  });
}

function branchName(target: string): string {
  return target.replace(/^refs\/heads\//, '');
}
