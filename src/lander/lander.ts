/**
 * `Lander`: lands submitted work, one FIFO queue per target branch of the source checkout
 * (docs/ARCHITECTURE.md § Lander). For each submission, first in line first:
 *
 * 1. record `merging`; fetch the target from the remote (with `push`; an unreachable remote is
 *    recorded and the landing goes on locally); merge the submitted commit onto the target's
 *    head in the lander's own detached checkout under the state directory (a fast-forward when
 *    the head is its ancestor); a candidate whose tree holds the state directory's name fails
 *    (`PROTECTED_PATH`) before any check runs;
 * 2. record `checking` with the candidate and the head it was made on; run the checks one after
 *    another in that checkout (with their timeouts, the submitter's conversation chain); a
 *    failure (or a merge conflict) delivers an `input` to the submitter with the check's name,
 *    exit code and output tail, and the submission is `failed`;
 * 3. record `checked`; move the target from that head to the candidate by compare-and-swap and
 *    read it back — a target that moved meanwhile (a person's commit) sends the submission back
 *    to step 1 (re-merged, re-checked, never a lost commit); a move that would overwrite the
 *    checked-out checkout's uncommitted, untracked or ignored files is `blocked` (nothing moves;
 *    why is recorded on the submission until it moves on);
 * 4. record `landed.sha` (written once: the store refuses to change it); push with retries
 *    (landing-push.ts: a failure or an unreachable remote keeps the local landing and the next
 *    run tries again; a remote another lander moved gets the landing re-merged onto its head,
 *    re-checked and pushed); record `pushed` with `pushed.sha`, the remote commit holding it;
 * 5. append one line to project memory, then deliver the report (to the submitter) and the note
 *    (to whoever started the branch) keyed by the submission's request id, and record `done`,
 *    in one transaction.
 *
 * A lander that dies anywhere resumes from the last record: a `checked` submission whose target
 * already points at (or past) its candidate is recorded landed without merging again; a
 * `landed` one is pushed and reported with exactly the recorded SHA. One lander per target runs
 * at a time across processes (the store's lander lock; a dead owner's lock is taken over).
 */
import type { GitContext } from '../git/index.js';
import type { BlockedReason, GitIdentity, LandingGit } from '../git/index.js';
import type { CheckRunner, CheckSpec } from '../ports/index.js';
import type { Clock } from '../ports/index.js';
import type { LockOwner } from '../state/index.js';
import type { StateStore } from '../state/index.js';
import type {
  CheckedSubmission,
  CheckingSubmission,
  LanderFailure,
  MergingSubmission,
  PushedSubmission,
  QueuedSubmission,
  SubmissionRecord,
} from '../state/index.js';
import { runChecks } from './lander-checks.js';
import { deliverFailure, deliverLanding } from './lander-messages.js';
import { LanderSteps } from './lander-steps.js';
import { fetchRemote, LandingPush, type RemoteState, short } from './landing-push.js';
import type { SavePointHook } from './save-points.js';

export { short } from './landing-push.js';

/** Where the lander keeps the line it appends to project memory per landing. */
interface ProjectMemory {
  /** Appends `line` unless a line holding `key` is there. Result: true when appended. */
  appendOnce(key: string, line: string): boolean;
}

/**
 * The part of the state store a lander uses: its queue, its outbox, the run log, its lock per
 * target, and transactions to record a step with its event.
 */
type LanderStore = Pick<StateStore, 'transaction' | 'submissions' | 'messages' | 'runLog' | 'landerLocks'>;

/** What a lander needs. */
export interface LanderOptions {
  store: LanderStore;
  git: LandingGit;
  checks: readonly CheckSpec[];
  runner: CheckRunner;
  /** The remote to push to, or null to land locally only. */
  push: string | null;
  /** The lander's checkout for a target (derived from the state directory; never from a record). */
  checkoutFor(target: string): string;
  memory: ProjectMemory;
  clock: Clock;
  /** This process, for the lander lock. */
  owner: Omit<LockOwner, 'token'>;
  /** A token unique to this lander run. */
  token: string;
  committer: GitIdentity;
  savePoint?: SavePointHook;
  /** Waits between push tries (default: a real timer; the memory host passes one that returns at once). */
  wait?: (ms: number) => Promise<void>;
  /** Push tries per run before the submission waits for the next run (default 3). */
  pushTries?: number;
  /**
   * Repository-relative paths a candidate's tree must not hold (the state directory's names,
   * src/host/state-trust/state-dir-names.ts; matched as a case-insensitive filesystem would): such a
   * submission fails with reason `PROTECTED_PATH` before any check runs. Default: none.
   */
  protectedPaths?: readonly string[];
}

/** What one drain did. */
export interface DrainReport {
  /** Submissions that reached `done` in this run, in order. */
  landed: string[];
  failed: string[];
  /** Submissions whose push is still pending (landed locally; why is in the submission's `pushError`). */
  pushPending: string[];
  /**
   * A target whose move (or the move to a landing's re-merge) is blocked by the checkout that has it checked out: its uncommitted
   * changes, or its untracked or ignored files in the way (`reason`, src/git/landing-git.ts
   * `BlockedReason`). The submission stays `checked`; the next run tries again.
   */
  blocked: { submission: string; reason: BlockedReason; files: string[] }[];
  /** Targets another lander holds right now. */
  busy: string[];
}

type Step = 'continue' | 'stop';

/** The lander (see the module comment). */
export class Lander {
  /** What this drain learned about the remote (an unreachable one is asked once per drain). */
  private remote: RemoteState = { unreachable: null };

  /** How each step is recorded and saved (the push step records through it too). */
  private readonly steps: LanderSteps;

  constructor(private readonly options: LanderOptions) {
    this.steps = new LanderSteps(options.store, options.savePoint);
  }

  /**
   * Lands every pending submission of `target` (every target with pending submissions when
   * omitted) and returns; see `DrainReport`. Throws what the git port or the store throws for
   * an unexpected failure (the submission stays at its last record and is resumed next time).
   */
  async drain(target?: string): Promise<DrainReport> {
    const { store } = this.options;
    const report: DrainReport = { landed: [], failed: [], pushPending: [], blocked: [], busy: [] };
    this.remote = { unreachable: null };
    const targets =
      target !== undefined
        ? [target]
        : [
            ...new Set(
              store.submissions
                .list()
                .filter(isPending)
                .map((s) => s.target),
            ),
          ].sort();
    for (const t of targets) {
      if (!store.landerLocks.tryLock(t, { ...this.options.owner, token: this.options.token })) {
        report.busy.push(t);
        continue;
      }
      try {
        await this.drainTarget(t, report);
      } finally {
        store.landerLocks.unlock(t, this.options.token);
      }
    }
    return report;
  }

  private async drainTarget(target: string, report: DrainReport): Promise<void> {
    const skipped = new Set<string>();
    for (;;) {
      const next = this.options.store.submissions.pending(target).find((s) => !skipped.has(s.id));
      if (!next) return;
      if ((await this.advance(next, report, skipped)) === 'stop') return;
    }
  }

  /** Moves one submission forward by one stage. */
  private async advance(sub: SubmissionRecord, report: DrainReport, skipped: Set<string>): Promise<Step> {
    switch (sub.state) {
      case 'queued':
      case 'merging':
      case 'checking':
        await this.mergeAndCheck(sub, report);
        return 'continue';
      case 'checked':
        return this.moveTarget(sub, report);
      case 'landed': {
        const pushed = await new LandingPush(this.options, this.steps, this.remote).push(sub);
        if (pushed.outcome === 'blocked') {
          report.blocked.push({ submission: sub.id, reason: pushed.reason, files: pushed.files });
          return 'stop';
        }
        if (pushed.outcome === 'pending') {
          report.pushPending.push(sub.id);
          skipped.add(sub.id);
        }
        return 'continue';
      }
      case 'pushed':
        this.reportLanding(sub);
        report.landed.push(sub.id);
        return 'continue';
      default:
        skipped.add(sub.id);
        return 'continue';
    }
  }

  /** Steps 1–2: a fresh attempt (an interrupted merge or check is started again). */
  private async mergeAndCheck(first: QueuedSubmission | MergingSubmission | CheckingSubmission, report: DrainReport): Promise<void> {
    const { git } = this.options;
    const context = contextOf(first);
    const attempt = first.attempts + 1;
    const sub = this.steps.record(
      first,
      { state: 'merging', attempts: attempt },
      { type: 'lander.merging', data: { submission: first.id, attempt } },
    );
    this.steps.save('merging', sub);
    const heads = await this.headsOf(sub, context);
    if (heads === null) {
      this.fail(sub, { reason: 'NO_TARGET', message: `the target branch ${short(sub.target)} does not exist` }, report);
      return;
    }
    const { base, local } = heads;
    const common = await git.mergeBase(base, sub.commitSha, context);
    if (common === sub.commitSha) {
      // Already on the target (submitted twice, or landed by hand): landed as it is, nothing merged.
      const patch = { state: 'checked', baseSha: base, targetSha: local, candidateSha: base, outcome: { alreadyLanded: true } } as const;
      const checked = this.steps.record(sub, patch, {
        type: 'lander.checked',
        data: { submission: sub.id, candidate: base, alreadyLanded: true },
      });
      this.steps.save('checked', checked);
      return;
    }
    const dir = this.options.checkoutFor(sub.target);
    // A submission built on the head lands as it is (a fast-forward): its commit is the candidate.
    const fastForward = common === base;
    // A fast-forward's candidate is known now: its tree is read while the checkout runs.
    const heldEarly = fastForward ? this.protectedIn(sub.commitSha, context) : undefined;
    heldEarly?.catch(() => {});
    await git.checkoutDetached(dir, fastForward ? sub.commitSha : base, context);
    const merged = fastForward
      ? ({ ok: true, sha: sub.commitSha, fastForward: true } as const)
      : await git.merge(
          dir,
          sub.commitSha,
          { message: mergeMessage(sub), committer: this.options.committer, timeMs: this.options.clock.now() },
          context,
        );
    if (!merged.ok) {
      this.fail(
        sub,
        { reason: 'MERGE_CONFLICT', message: `merging onto ${short(sub.target)} conflicts`, conflicts: merged.conflicts },
        report,
      );
      return;
    }
    const held = await (heldEarly ?? this.protectedIn(merged.sha, context));
    if (held.length > 0) {
      const names = held.map((p) => `'${p}'`).join(', ');
      const message = `the work holds ${names}, a name of the gatefs state directory: a checkout updated to it would lose its state; remove it from the branch and submit again`;
      this.fail(sub, { reason: 'PROTECTED_PATH', message, paths: held }, report);
      return;
    }
    const checking = this.steps.record(
      sub,
      { state: 'checking', baseSha: base, targetSha: local, candidateSha: merged.sha },
      { type: 'lander.checking', data: { submission: sub.id, base, candidate: merged.sha, fastForward: merged.fastForward } },
    );
    this.steps.save('checking', checking);
    const checked = await runChecks(this.options.runner, this.options.checks, dir, sub.chain, () => this.steps.save('check-ran', checking));
    if (!checked.ok) {
      this.fail(checking, checked.failure, report);
      return;
    }
    const passed = this.steps.record(
      checking,
      { state: 'checked', outcome: { checks: checked.results } },
      { type: 'lander.checked', data: { submission: sub.id, candidate: merged.sha, checks: checked.results.length } },
    );
    this.steps.save('checked', passed);
  }

  /** Step 3: the compare-and-swap move of the target, or back to step 1 when it moved. */
  private async moveTarget(sub: CheckedSubmission, report: DrainReport): Promise<Step> {
    const { git } = this.options;
    const context = contextOf(sub);
    // The move compares with the target's head the candidate was made from (it descends from it,
    // through the remote's head when that was ahead; records older than `targetSha` have only that base).
    const expected = sub.targetSha ?? sub.baseSha;
    const candidate = sub.candidateSha;
    const moved = expected === candidate ? { outcome: 'moved' as const } : await git.fastForward(sub.target, expected, candidate, context);
    if (moved.outcome === 'blocked') {
      // Recorded on the submission (why, and since when) for `lander status` and the submitter's `messages`.
      const blocked = { reason: moved.reason, files: moved.files, at: this.options.clock.now() };
      this.steps.record(
        sub,
        { state: 'checked', blocked },
        { type: 'lander.blocked', data: { submission: sub.id, reason: moved.reason, files: moved.files } },
      );
      report.blocked.push({ submission: sub.id, reason: moved.reason, files: moved.files });
      return 'stop';
    }
    let landedSha = candidate;
    if (moved.outcome === 'stale') {
      const head = moved.head;
      const contains = head !== null && (head === candidate || (await git.isAncestor(candidate, head, context)));
      if (!contains) {
        // Someone moved the target after the candidate was checked: merge and check again.
        const patch = { state: 'queued', ...(sub.blocked ? { blocked: null } : {}) } as const;
        this.steps.record(sub, patch, { type: 'lander.target_moved', data: { submission: sub.id, expected, head } });
        return 'continue';
      }
      // Moved by an earlier run of this lander that died before recording it (and maybe built on since).
      landedSha = candidate;
    } else {
      this.steps.save('fast-forwarded', sub);
    }
    const landed = this.steps.record(
      sub,
      { state: 'landed', landedSha, ...(sub.blocked ? { blocked: null } : {}) },
      { type: 'lander.landed', data: { submission: sub.id, landedSha, target: sub.target } },
    );
    this.steps.save('landed', landed);
    return 'continue';
  }

  /** Step 5: project memory, then report and note and `done` in one transaction. */
  private reportLanding(sub: PushedSubmission): void {
    const day = new Date(this.options.clock.now()).toISOString().slice(0, 10);
    const summary = (sub.summary ?? sub.divergence).replace(/\s+/g, ' ').slice(0, 200);
    this.options.memory.appendOnce(
      `[${sub.id}]`,
      `- ${day} [${sub.id}] ${sub.conversation} landed ${sub.landedSha.slice(0, 12)} on ${short(sub.target)}: ${summary}`,
    );
    this.steps.save('memory-appended', sub);
    const { store } = this.options;
    store.transaction(() => {
      deliverLanding(store, sub);
      this.steps.record(sub, { state: 'done' }, { type: 'lander.reported', data: { submission: sub.id, landedSha: sub.landedSha } });
    });
    this.steps.save('reported', sub);
  }

  /**
   * The target's local head and the head to merge onto: the local one, or the remote's when it
   * is ahead (the local head its ancestor). Null when the target branch does not exist.
   */
  private async headsOf(sub: SubmissionRecord, context: GitContext): Promise<{ base: string; local: string } | null> {
    const { git, push } = this.options;
    const local = await git.readRef(sub.target, context);
    if (local === null) return null;
    if (push === null) return { base: local, local };
    const fetched =
      this.remote.unreachable === null
        ? await fetchRemote(this.options, push, short(sub.target), context, this.remote)
        : ({ reachable: false, detail: this.remote.unreachable } as const);
    if (!fetched.reachable) {
      // The remote is someone else's machine: without it the landing stays local, its push pending.
      this.options.store.runLog.append({
        type: 'lander.remote_unreachable',
        conversation: sub.conversation,
        data: { submission: sub.id, remote: push, detail: fetched.detail },
      });
      return { base: local, local };
    }
    const remote = fetched.head;
    if (remote !== null && remote !== local && (await git.isAncestor(local, remote, context))) return { base: remote, local };
    return { base: local, local };
  }

  /** The protected paths `commit`'s tree holds (see `LanderOptions.protectedPaths`). */
  private async protectedIn(commit: string, context: GitContext): Promise<string[]> {
    const paths = this.options.protectedPaths ?? [];
    return paths.length === 0 ? [] : this.options.git.findTreePaths(commit, paths, context);
  }

  /** Refuses `sub`: the submitter's input, `failed` with the failure, and its event, in one transaction. */
  private fail(sub: SubmissionRecord, failure: LanderFailure, report: DrainReport): void {
    const { store } = this.options;
    store.transaction(() => {
      deliverFailure(store, sub, failure);
      this.steps.record(
        sub,
        { state: 'failed', outcome: failure },
        { type: 'lander.failed', data: { submission: sub.id, reason: failure.reason } },
      );
    });
    report.failed.push(sub.id);
  }
}

function isPending(s: SubmissionRecord): boolean {
  return s.state !== 'done' && s.state !== 'failed';
}

function contextOf(sub: SubmissionRecord): GitContext {
  return { tag: 'lander', chain: sub.chain };
}

function mergeMessage(sub: SubmissionRecord): string {
  const summary = sub.summary ? `\n\n${sub.summary}` : '';
  return `Land ${sub.id} from ${sub.conversation}${summary}\n\nDivergence: ${sub.divergence}`;
}
