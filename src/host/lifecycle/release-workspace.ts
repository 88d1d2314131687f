/**
 * `releaseWorkspace`: ends a conversation's workspace, keeping a tombstone record (`released`;
 * the gate then answers `WORKSPACE_RELEASED`). Nothing is ever cleaned up automatically.
 *
 * Steps, each recorded before it is acted on (`release-record.ts`), under the conversation's
 * preparation lock:
 * 1. out of service: the release takes exclusive occupancy as its own holder, so the gate of
 *    every process answers `OCCUPIED` to writers; a live holder refuses the release with
 *    `OCCUPIED` unless `force` (its occupancy is ended; holders whose process is gone are
 *    ended anyway). Tool calls already in flight in this process are waited for, and the
 *    write door is shut (src/ports/write-door.ts): writes other processes started before are
 *    waited for too (`BUSY` past its bound), and it stays shut until the release ends.
 * 2. check: changed, untracked and ignored files are work (`git status --ignored` for a
 *    worktree; every file of a copy's upper folder). Any → `DIRTY_WORKTREE` (data.files)
 *    unless `discard`. A worktree whose HEAD left `gatefs/<id>` (detached, another branch) is
 *    refused even with `discard`: its commits would be left unreachable.
 * 3. remove: a clean worktree with `git worktree remove` (no force: git checks once more); a
 *    discarded one by the confined removal of `<stateDir>/worktrees/<id>` and `git worktree
 *    prune`; a copy's lower folder `<stateDir>/lowers/<id>` (the pinned commit checked out: no
 *    work; a build of it is stopped first) and its upper folder `<stateDir>/copies/<id>` the
 *    confined way (only empty folders unless `discard`). `shared`: nothing is removed. Paths are derived, never read
 *    from the record.
 * 4. record `released`, end the release's occupancy. The branch step follows: `deleteBranch`
 *    deletes the branch only when git proves it merged into the base ref, compare-and-delete;
 *    `discard` never deletes a branch or its commits.
 *
 * A refused or failed release leaves the workspace serving: registered `ready` over an open
 * view, the release's occupancy returned, the record as before. A crash is finished or undone
 * on the next start (`recover-release.ts`). Releasing a released workspace only retries the
 * branch step.
 *
 * Errors: `WorkspaceError` `UNKNOWN_CONVERSATION`, `BUSY` (being prepared or released, or
 * writes of another process still running at the door's bound),
 * `OCCUPIED`, `DIRTY_WORKTREE`, `STATE_UNTRUSTED` (the workspace folder is a link); a git
 * failure as `GitError`.
 */
import { codeOf } from '../../../vfs/index.js';
import type { GitContext } from '../../git/index.js';
import type { IdSource } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import type { ShutDoor, WriteDoors } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { OccupancyGuard } from '../occupancy/index.js';
import { branchStep } from './branch-step.js';
import { dirtyRefusal } from './dirty-refusal.js';
import { shutDoor, takeOccupancy } from './out-of-service.js';
import { recoverRelease } from './recover-release.js';
import { closeView, registerReady, registrationOf, type RegistrationParts } from './registration.js';
import { pendingReleaseOf, withPendingRelease, type PendingRelease } from './release-record.js';
import { removeCheckout } from './remove-checkout.js';
import { workOf } from './workspace-work.js';
import type { ReleaseOptions, ReleaseResult } from './workspace-types.js';
import { endBindingsOf } from './end-bindings.js';

/** What a release uses of the host: what registering uses, and the parts that take a workspace out of service. */
export interface ReleaseParts extends RegistrationParts {
  readonly ids: IdSource;
  /** This process (pid + start time), the owner of the preparation lock. */
  readonly liveness: Pick<ProcessLiveness, 'self'>;
  /** Occupancy with gone holders ended (src/host/occupancy/occupancy-guard.ts). */
  readonly occupancy: Pick<OccupancyGuard, 'acquire'>;
  /** Conversations a release of this process is taking down (the registry refresh leaves them alone). */
  readonly releasing: Set<string>;
  /** Resolves once no tool call of the conversation is in flight in this process. */
  drain(conversation: string): Promise<void>;
  /** The write doors every process's gated writes pass (disk host); absent: this process's calls only. */
  readonly doors?: WriteDoors;
}

/** Releases one workspace (see the file comment). Result: what was removed and why a branch was kept. */
export async function releaseWorkspace(
  parts: ReleaseParts,
  conversation: string,
  options: ReleaseOptions,
  chain: readonly string[],
): Promise<ReleaseResult> {
  const first = parts.store.workspaces.get(conversation);
  if (!first || first.state === 'failed') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
  }
  const token = parts.ids.next('release');
  if (first.state === 'preparing' || !parts.store.preparationLocks.tryLock(conversation, { ...parts.liveness.self, token })) {
    throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared or released`, { conversation });
  }
  const context: GitContext = { tag: 'release', chain: [...chain, conversation] };
  try {
    let record = parts.store.workspaces.get(conversation) ?? first;
    if (pendingReleaseOf(record)) record = await recoverRelease(parts, record, context);
    if (record.state === 'preparing')
      throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation });
    const taken =
      record.state === 'ready'
        ? await takeDown(parts, record, token, options, context)
        : { removed: false, discarded: false, forced: [], bindingsEnded: [] };
    const branch = await branchStep(parts.platform.git, record, options, context);
    const result: ReleaseResult = {
      conversation,
      removed: taken.removed,
      ...branch,
      ...(options.discard ? { discarded: taken.discarded } : {}),
      ...(taken.forced.length > 0 ? { forcedHolders: taken.forced } : {}),
      ...(taken.bindingsEnded.length > 0 ? { bindingsEnded: taken.bindingsEnded } : {}),
    };
    parts.store.runLog.append({ type: 'release', conversation, data: { ...result, backend: record.backend } });
    return result;
  } finally {
    parts.store.preparationLocks.unlock(conversation, token);
  }
}

interface TakenDown {
  removed: boolean;
  discarded: boolean;
  forced: string[];
  /** The other conversations whose binding of the workspace ended. */
  bindingsEnded: string[];
}

/** Steps 1–4 for a `ready` workspace; on any failure the workspace is put back in service. */
async function takeDown(
  parts: ReleaseParts,
  record: WorkspaceRecord,
  holder: string,
  options: ReleaseOptions,
  context: GitContext,
): Promise<TakenDown> {
  const { conversation } = record;
  const discard = options.discard === true;
  const forced = takeOccupancy(parts, conversation, holder, options.force === true);
  parts.releasing.add(conversation);
  const pending: PendingRelease = { step: 'checking', holder, discard };
  let door: ShutDoor | null = null;
  try {
    setPending(parts.store, conversation, pending);
    parts.store.runLog.append({ type: 'release.start', conversation, data: { holder, discard, force: options.force === true } });
    // A release ends the conversation's commands (background and foreground, whole process trees) first.
    await parts.commands?.runs.stop(conversation);
    await parts.drain(conversation);
    door = await shutDoor(parts.doors, conversation);
    const work = await workOf(parts.platform, record, context, discard);
    if (work.length > 0 && !discard) throw dirtyRefusal(parts, record, work);
    setPending(parts.store, conversation, { ...pending, step: 'removing' });
    parts.registry.set(registrationOf(record, 'preparing'));
    closeView(parts.views, conversation);
    const removed = await removeCheckout(parts, record, discard, context);
    const released = parts.store.transaction(() => {
      const done = parts.store.workspaces.update(conversation, {
        state: 'released',
        data: withPendingRelease(parts.store.workspaces.get(conversation)?.data ?? {}, null),
      });
      parts.store.occupancy.release(conversation, holder);
      return done;
    });
    parts.registry.set(registrationOf(released, 'released'));
    const bindingsEnded = endBindingsOf(parts.store, conversation);
    return { removed, discarded: discard && work.length > 0, forced, bindingsEnded };
  } catch (e) {
    backInService(parts, conversation, holder, e);
    throw e;
  } finally {
    door?.open();
    parts.releasing.delete(conversation);
  }
}

/** Records `pending` as `data.release` of the workspace, in one transaction. */
function setPending(store: StateStore, conversation: string, pending: PendingRelease): void {
  store.transaction(() => {
    const current = store.workspaces.get(conversation);
    if (current) store.workspaces.update(conversation, { data: withPendingRelease(current.data, pending) });
  });
}

/**
 * Puts the workspace back in service after a refused or failed release: a view is open and
 * registered `ready` again, the pending release is cleared, and the release's occupancy is
 * returned. A workspace whose folder is gone cannot serve: its registration says so, and the
 * next `prepare` materializes it again. Writes a `release.aborted` event. Never throws (the
 * original error is what the caller reports); a view that cannot open is a
 * `release.restore_failed` event.
 */
function backInService(parts: RegistrationParts, conversation: string, holder: string, cause: unknown): void {
  try {
    const record = parts.store.workspaces.get(conversation);
    if (record?.state === 'ready') {
      const cleared = parts.store.workspaces.update(conversation, { data: withPendingRelease(record.data, null) });
      if (parts.registry.lookup(conversation)?.state !== 'ready' || !parts.views.has(conversation)) {
        try {
          registerReady(parts, cleared);
        } catch (e) {
          parts.registry.delete(conversation);
          parts.store.runLog.append({ type: 'release.restore_failed', conversation, data: { message: (e as Error).message } });
        }
      }
    }
    parts.store.runLog.append({ type: 'release.aborted', conversation, data: { code: codeOf(cause) ?? 'ERROR' } });
  } finally {
    parts.store.occupancy.release(conversation, holder);
  }
}
