/**
 * Step 4 of a landing (src/lander/lander.ts): bringing a local landing to the remote named by
 * the settings' `push`. The remote is someone else's machine: it can be unreachable, refuse a
 * push, or have moved on because another lander (another clone, another host) pushed first.
 *
 * Each try pushes; when the push is refused, the lander fetches the remote's branch and decides:
 * - the remote already holds the landing (an earlier try went through, or a later landing that
 *   contains it): `pushed`, with `pushedSha` the remote's head;
 * - the remote cannot be reached: the landing stays local and its push is pending (the next run
 *   tries again); later submissions of the same run land locally without fetching and push once;
 * - the remote is behind the commit being pushed (a lock, a hook refused it): try again later;
 * - the remote moved on: re-merge. The local branch's head (which holds the landing) is merged
 *   onto the remote's head in the lander's checkout, the checks run again on that new candidate,
 *   the local branch moves to it by compare-and-swap, and that candidate is pushed. `landedSha`
 *   stays what it was (the local landing, written once); `pushedSha` records the remote commit
 *   that holds it. A re-merge that conflicts or fails a check leaves the push pending with the
 *   reason in `pushError` (a person merges the remote by hand; the next run tries again).
 *
 * Every re-merge is recorded (`lander.remerging`, `lander.rechecked`) before it is acted on and
 * starts from scratch when repeated: after a crash the submission is still `landed`, its next
 * push of `landedSha` is refused, and the same decision is made from what git holds then.
 */
import { isGitError, type GitContext } from '../git/index.js';
import type { BlockedReason } from '../git/index.js';
import type { LandedSubmission } from '../state/index.js';
import type { RunEventData } from '../state/index.js';
import { runChecks } from './lander-checks.js';
import type { LanderOptions } from './lander.js';
import type { LanderSteps } from './lander-steps.js';

/** What a push step ended with. */
type PushOutcome =
  /** The remote holds the landing (`pushed` recorded). */
  | { outcome: 'pushed' }
  /** Still pending after this run's tries (the reason in `pushError`); the next run tries again. */
  | { outcome: 'pending' }
  /** The re-merge could not move the local branch: the checkout that has it would lose these files' changes. */
  | { outcome: 'blocked'; reason: BlockedReason; files: string[] };

/** What one drain learned about the remote: the reason it is unreachable, once a fetch failed. */
export interface RemoteState {
  unreachable: string | null;
}

/** The remote's head of `branch` (null when it has none), or why it cannot be reached. */
type FetchOutcome = { reachable: true; head: string | null } | { reachable: false; detail: string };

/**
 * Fetches `branch` from `remote`. A fetch git could not do (`COMMAND_FAILED`: no such
 * repository, no network, a timeout, a transport refused) is `reachable: false` and is
 * remembered in `state` for the rest of the drain; anything else is thrown.
 */
export async function fetchRemote(
  options: LanderOptions,
  remote: string,
  branch: string,
  context: GitContext,
  state: RemoteState,
): Promise<FetchOutcome> {
  try {
    return { reachable: true, head: await options.git.fetch(remote, branch, context) };
  } catch (e) {
    if (!isGitError(e, 'COMMAND_FAILED')) throw e;
    const detail = `remote '${remote}' unreachable: ${e.detail}`;
    state.unreachable = detail;
    return { reachable: false, detail };
  }
}

type Remerge =
  | { kind: 'candidate'; sha: string; sub: LandedSubmission }
  | { kind: 'stale'; sub: LandedSubmission }
  | { kind: 'blocked'; reason: BlockedReason; files: string[]; sub: LandedSubmission }
  | { kind: 'stuck'; sub: LandedSubmission };

/** What a failed push try adds to its event: the re-merge's conflicts, or the check that failed on it. */
type PushFailureDetail = Pick<RunEventData['lander.push_failed'], 'conflicts' | 'check' | 'exitCode'>;

/** The push step of one landed submission (see the module comment). */
export class LandingPush {
  constructor(
    private readonly options: LanderOptions,
    private readonly steps: LanderSteps,
    private readonly remote: RemoteState,
  ) {}

  /** Pushes `sub`'s landing (a `landed` record) with retries. Throws what the git port throws unexpectedly. */
  async push(sub: LandedSubmission): Promise<PushOutcome> {
    const { git, push: remote } = this.options;
    if (remote === null) {
      this.steps.record(sub, { state: 'pushed' }, { type: 'lander.local', data: { submission: sub.id } });
      return { outcome: 'pushed' };
    }
    const context: GitContext = { tag: 'lander', chain: sub.chain };
    const branch = short(sub.target);
    const landed = sub.landedSha;
    // An unreachable remote ends this run's tries at once; once found so, one try each for the rest.
    const tries = this.remote.unreachable !== null ? 1 : (this.options.pushTries ?? 3);
    let sha = landed;
    let current = sub;
    for (let attempt = 1; attempt <= tries; attempt++) {
      const result = await git.push(remote, sha, branch, context);
      if (result.ok) {
        this.steps.save('push-accepted', current);
        return this.confirm(current, sha, true);
      }
      const fetched = await fetchRemote(this.options, remote, branch, context, this.remote);
      if (!fetched.reachable) {
        this.pending(current, fetched.detail);
        return { outcome: 'pending' };
      }
      const head = fetched.head;
      if (head !== null && (await this.holds(head, landed, context))) return this.confirm(current, head, false);
      if (head === null || (await this.holds(sha, head, context))) {
        // The remote is not ahead: it refused for a reason of its own (a lock, a hook).
        current = this.pending(current, `rejected by '${remote}': ${result.detail}`);
        await this.pause(attempt, tries);
        continue;
      }
      // Another lander pushed first: re-merge onto the remote's head, check, move, push that.
      const re = await this.remerge(current, head, context);
      current = re.sub;
      if (re.kind === 'candidate') sha = re.sha;
      else if (re.kind === 'blocked') return { outcome: 'blocked', reason: re.reason, files: re.files };
      else if (re.kind === 'stuck') return { outcome: 'pending' };
    }
    return { outcome: 'pending' };
  }

  /**
   * Merges the local branch's head onto `remoteHead` in the lander's checkout, runs the checks
   * on the result and moves the local branch to it (compare-and-swap from the head merged).
   */
  private async remerge(sub: LandedSubmission, remoteHead: string, context: GitContext): Promise<Remerge> {
    const { git, push: remote } = this.options;
    const branch = short(sub.target);
    const landed = sub.landedSha;
    const local = await git.readRef(sub.target, context);
    if (local === null || !(await this.holds(local, landed, context))) {
      const why = `${branch} no longer holds the landing ${landed.slice(0, 12)} and '${remote}' has moved on: merge by hand`;
      return { kind: 'stuck', sub: this.pending(sub, why) };
    }
    let current = this.steps.note(sub, {}, { type: 'lander.remerging', data: { submission: sub.id, remote: remoteHead, local } });
    this.steps.save('remerging', current);
    const dir = this.options.checkoutFor(sub.target);
    await git.checkoutDetached(dir, remoteHead, context);
    const message = `Merge ${remote}/${branch} into ${branch} to push ${sub.id} from ${sub.conversation}`;
    const merged = await git.merge(dir, local, { message, committer: this.options.committer, timeMs: this.options.clock.now() }, context);
    if (!merged.ok) {
      const why = `merging '${remote}' ${branch} with the landing conflicts (${merged.conflicts.join(', ')}): merge by hand`;
      return { kind: 'stuck', sub: this.pending(current, why, { conflicts: merged.conflicts }) };
    }
    const checked = await runChecks(this.options.runner, this.options.checks, dir, sub.chain, () => this.steps.save('check-ran', current));
    if (!checked.ok) {
      const { failure } = checked;
      const why = `on the merge with '${remote}' ${branch}, ${String(failure.message)}: fix ${branch} by hand`;
      return { kind: 'stuck', sub: this.pending(current, why, { check: failure.check, exitCode: failure.exitCode }) };
    }
    current = this.steps.note(
      current,
      {},
      {
        type: 'lander.rechecked',
        data: { submission: sub.id, candidate: merged.sha, expected: local, checks: checked.results.length },
      },
    );
    this.steps.save('rechecked', current);
    if (merged.sha !== local) {
      const moved = await git.fastForward(sub.target, local, merged.sha, context);
      if (moved.outcome === 'blocked') {
        const blocked = { reason: moved.reason, files: moved.files, at: this.options.clock.now() };
        const event = { type: 'lander.blocked', data: { submission: sub.id, reason: moved.reason, files: moved.files } } as const;
        return { kind: 'blocked', reason: moved.reason, files: moved.files, sub: this.steps.note(current, { blocked }, event) };
      }
      if (moved.outcome === 'stale') {
        // A person (or another lander of this clone) moved the branch: the next try starts over.
        const event = { type: 'lander.target_moved', data: { submission: sub.id, expected: local, head: moved.head } } as const;
        return { kind: 'stale', sub: this.steps.note(current, {}, event) };
      }
      this.steps.save('remerge-moved', current);
    }
    return { kind: 'candidate', sha: merged.sha, sub: current };
  }

  /** Records `pushed` with the remote commit that holds the landing (`accepted`: this push put it there). */
  private confirm(sub: LandedSubmission, remoteSha: string, accepted: boolean): PushOutcome {
    const pushed = this.steps.record(
      sub,
      {
        state: 'pushed',
        pushedSha: remoteSha,
        pushAttempts: sub.pushAttempts + 1,
        pushError: null,
        ...(sub.blocked ? { blocked: null } : {}),
      },
      { type: 'lander.pushed', data: { submission: sub.id, remote: this.options.push, pushedSha: remoteSha, accepted } },
    );
    this.steps.save('pushed', pushed);
    return { outcome: 'pushed' };
  }

  /** Records a failed try and why (`pushError`, shown by `gatefs lander run|status`). */
  private pending(sub: LandedSubmission, detail: string, data: PushFailureDetail = {}): LandedSubmission {
    return this.steps.note(
      sub,
      { pushAttempts: sub.pushAttempts + 1, pushError: detail },
      { type: 'lander.push_failed', data: { submission: sub.id, remote: this.options.push, detail, ...data } },
    );
  }

  /** True when `commit` holds `ancestor` (equal, or descends from it). */
  private async holds(commit: string, ancestor: string, context: GitContext): Promise<boolean> {
    return commit === ancestor || this.options.git.isAncestor(ancestor, commit, context);
  }

  private async pause(attempt: number, tries: number): Promise<void> {
    if (attempt < tries) await (this.options.wait ?? realWait)(1000 * attempt);
  }
}

/** `main` for `refs/heads/main`. */
export function short(target: string): string {
  return target.startsWith('refs/heads/') ? target.slice('refs/heads/'.length) : target;
}

function realWait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
