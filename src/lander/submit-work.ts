/**
 * `submitWork`: puts a conversation's committed work in the lander's queue (the `submit` tool,
 * `gatefs submit`). The checkout must be clean — every change committed (`DIRTY_WORKTREE`
 * naming what is not) — and its branch must hold a commit the target lacks
 * (`QUEUE_REJECTED`). Submitting the same head again while it is queued returns the queued
 * submission. The submission is recorded first, then its commit is pinned under
 * `refs/gatefs/submissions/<id>`, so the lander never depends on the conversation's branch
 * (a release or a later reset cannot take the commit away).
 */
import type { GitContext } from '../git/index.js';
import type { LandingGit } from '../git/index.js';
import type { IdSource } from '../ports/index.js';
import type { StateStore } from '../state/index.js';
import { ToolFailure } from '../../tools/index.js';
import type { SubmitValue } from '../../tools/index.js';
import { short } from './lander.js';

/** What a submission needs to know about the workspace. */
interface SubmitRequest {
  conversation: string;
  /** The branch the workspace has checked out (full ref). */
  branch: string;
  /** The target branch (full ref), or null when there is none to land on. */
  target: string | null;
  divergence: string;
  summary?: string;
  /** Files not committed in the checkout (changed, untracked and not ignored). */
  uncommitted: readonly string[];
}

/** The part of the state store a submission uses: the lineage of the submitter, the queue, the run log, transactions. */
type SubmitStore = Pick<StateStore, 'transaction' | 'lineage' | 'submissions' | 'runLog'>;

/** Queues the branch's head for the lander (see the module comment). Throws `ToolFailure` `DIRTY_WORKTREE`, `QUEUE_REJECTED`. */
export async function submitWork(store: SubmitStore, git: LandingGit, ids: IdSource, request: SubmitRequest): Promise<SubmitValue> {
  const { conversation } = request;
  const lineage = store.lineage.of(conversation);
  const context: GitContext = { tag: 'submit', chain: lineage.chain };
  if (request.uncommitted.length > 0) {
    const shown =
      request.uncommitted.slice(0, 20).join(', ') + (request.uncommitted.length > 20 ? `, … (${request.uncommitted.length} in all)` : '');
    throw new ToolFailure('DIRTY_WORKTREE', `commit your changes before submitting; not committed: ${shown}`);
  }
  const { target } = request;
  if (target === null) {
    throw new ToolFailure(
      'QUEUE_REJECTED',
      'there is no target branch to land on (the source checkout has no branch checked out and no lander branch is set)',
    );
  }
  const head = await git.readRef(request.branch, context);
  const targetHead = await git.readRef(target, context);
  if (head === null || targetHead === null) {
    throw new ToolFailure('QUEUE_REJECTED', `the branch ${short(head === null ? request.branch : target)} does not exist`);
  }
  if (await git.isAncestor(head, targetHead, context)) {
    throw new ToolFailure(
      'QUEUE_REJECTED',
      `nothing to land: ${short(target)} already has every commit of your branch (commit your changes first)`,
    );
  }
  const pending = store.submissions.pending(target);
  const again = pending.find((s) => s.conversation === conversation && s.commitSha === head);
  if (again) return valueOf(again.id, again.requestId, pending.indexOf(again) + 1, head, target);
  const id = ids.next('sub');
  const record = store.transaction(() => {
    const inserted = store.submissions.insert({
      id,
      requestId: `req-${id}`,
      target,
      conversation,
      root: lineage.root,
      chain: lineage.chain,
      commitSha: head,
      divergence: request.divergence,
      summary: request.summary ?? null,
    });
    store.runLog.append({ type: 'lander.submitted', conversation, data: { submission: id, commit: head, target } });
    return inserted;
  });
  await git.pinRef(`refs/gatefs/submissions/${id}`, head, context);
  const position = store.submissions.pending(target).findIndex((s) => s.id === id) + 1;
  return valueOf(record.id, record.requestId, position, head, target);
}

function valueOf(submissionId: string, requestId: string, queuePosition: number, commit: string, target: string): SubmitValue {
  return { submissionId, requestId, queuePosition, commit, target: short(target) };
}
