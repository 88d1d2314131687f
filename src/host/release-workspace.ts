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
import { terminalSafeLine } from '../../tools/text/terminal-text.js';
import { codeOf } from '../../vfs/coded-error.js';
import { isGitError, type GitContext } from '../git/git-port.js';
import type { WorkspaceRecord } from '../state/workspace-table.js';
import { WorkspaceError, isWorkspaceError } from '../workspace-error.js';
import type { ReleaseOptions, ReleaseResult } from './types.js';
import type { ShutDoor } from '../ports/write-door.js';
import { lockOwner, type HostContext } from './host-context.js';
import { closeView, registerReady, registrationOf } from './registration.js';
import { pendingReleaseOf, withPendingRelease, type PendingRelease } from './release-record.js';
import { recoverRelease } from './recover-release.js';
import { removeWorktreeOf } from './rollback-preparation.js';
import { branchOf, checkoutOf } from './workspace-paths.js';
import { workOf } from './workspace-work.js';
import { worktreeWorkFiles } from './worktree-work-files.js';

/** Releases one workspace (see the file comment). Result: what was removed and why a branch was kept. */
export async function releaseWorkspace(
  ctx: HostContext,
  conversation: string,
  options: ReleaseOptions,
  chain: readonly string[],
): Promise<ReleaseResult> {
  const first = ctx.store.getWorkspace(conversation);
  if (!first || first.state === 'failed') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
  }
  const token = ctx.ids.next('release');
  if (first.state === 'preparing' || !ctx.store.tryLockPreparation(conversation, lockOwner(ctx, token))) {
    throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared or released`, { conversation });
  }
  const context: GitContext = { tag: 'release', chain: [...chain, conversation] };
  try {
    let record = ctx.store.getWorkspace(conversation) ?? first;
    if (pendingReleaseOf(record)) record = await recoverRelease(ctx, record, context);
    if (record.state === 'preparing')
      throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation });
    const taken =
      record.state === 'ready' ? await takeDown(ctx, record, token, options, context) : { removed: false, discarded: false, forced: [] };
    const branch = await branchStep(ctx, record, options, context);
    const result: ReleaseResult = {
      conversation,
      removed: taken.removed,
      ...branch,
      ...(options.discard ? { discarded: taken.discarded } : {}),
      ...(taken.forced.length > 0 ? { forcedHolders: taken.forced } : {}),
    };
    ctx.store.appendEvent({ type: 'release', conversation, data: { ...result, backend: record.backend } });
    return result;
  } finally {
    ctx.store.unlockPreparation(conversation, token);
  }
}

interface TakenDown {
  removed: boolean;
  discarded: boolean;
  forced: string[];
}

/** Steps 1–4 for a `ready` workspace; on any failure the workspace is put back in service. */
async function takeDown(
  ctx: HostContext,
  record: WorkspaceRecord,
  holder: string,
  options: ReleaseOptions,
  context: GitContext,
): Promise<TakenDown> {
  const { conversation } = record;
  const discard = options.discard === true;
  const forced = takeOccupancy(ctx, conversation, holder, options.force === true);
  ctx.releasing.add(conversation);
  const pending: PendingRelease = { step: 'checking', holder, discard };
  let door: ShutDoor | null = null;
  try {
    setPending(ctx, conversation, pending);
    ctx.store.appendEvent({ type: 'release.start', conversation, data: { holder, discard, force: options.force === true } });
    await ctx.drain(conversation);
    door = await shutDoor(ctx, conversation);
    const work = await workOf(ctx, record, context, discard);
    if (work.length > 0 && !discard) throw dirty(ctx, record, work);
    setPending(ctx, conversation, { ...pending, step: 'removing' });
    ctx.registry.set(registrationOf(record, 'preparing'));
    closeView(ctx, conversation);
    const removed = await removeCheckout(ctx, record, discard, context);
    const released = ctx.store.transaction(() => {
      const done = ctx.store.updateWorkspace(conversation, {
        state: 'released',
        data: withPendingRelease(ctx.store.getWorkspace(conversation)?.data ?? {}, null),
      });
      ctx.store.releaseOccupancy(conversation, holder);
      return done;
    });
    ctx.registry.set(registrationOf(released, 'released'));
    return { removed, discarded: discard && work.length > 0, forced };
  } catch (e) {
    backInService(ctx, conversation, holder, e);
    throw e;
  } finally {
    door?.open();
    ctx.releasing.delete(conversation);
  }
}

/**
 * Step 1, across processes: shuts the workspace's write door (src/ports/write-door.ts), waiting
 * for writes another process started before the release took the workspace. Result: the shut
 * door (null on a host without doors). Throws `BUSY` when writers stay inside past the bound.
 */
async function shutDoor(ctx: HostContext, conversation: string): Promise<ShutDoor | null> {
  if (!ctx.doors) return null;
  const door = await ctx.doors.shut(conversation);
  if (door) return door;
  const seconds = Math.round(ctx.doors.shutWaitMs / 100) / 10;
  throw new WorkspaceError(
    'BUSY',
    `writes to '${conversation}' were still running after ${seconds} s (another process, maybe stopped): it was not released`,
    {
      conversation,
      hint: 'retry the release once those writes are done',
    },
  );
}

/**
 * Step 1: exclusive occupancy for the release's holder. Result: the live holders ended by
 * `force`. Throws `OCCUPIED` (data.holder, data.hint) while a live holder has it and `force`
 * is not given.
 */
function takeOccupancy(ctx: HostContext, conversation: string, holder: string, force: boolean): string[] {
  try {
    ctx.occupancy.acquire(conversation, holder, 'exclusive-write');
    return [];
  } catch (e) {
    if (!isWorkspaceError(e, 'OCCUPIED')) throw e;
    const current = String(e.data.holder);
    if (!force) {
      ctx.store.appendEvent({ type: 'release.refused', conversation, data: { code: 'OCCUPIED', holder: current } });
      throw new WorkspaceError(
        'OCCUPIED',
        `conversation '${conversation}' is in use by '${current}' (${String(e.data.mode)}): it was not released`,
        {
          ...e.data,
          hint: 'stop that session first, or release with force (gatefs release --force) to end its occupancy',
        },
      );
    }
    const others = ctx.store.activeOccupancy(conversation).filter((r) => r.holder !== holder);
    for (const r of others) {
      if (ctx.store.endOccupancy(r.id))
        ctx.store.appendEvent({ type: 'occupancy.forced_end', conversation, data: { holder: r.holder, mode: r.mode, by: holder } });
    }
    ctx.occupancy.acquire(conversation, holder, 'exclusive-write');
    return others.map((r) => r.holder);
  }
}

/** Step 3 (see the file comment). Result: true when a folder was removed. */
async function removeCheckout(ctx: HostContext, record: WorkspaceRecord, discard: boolean, context: GitContext): Promise<boolean> {
  const { platform } = ctx;
  const { conversation } = record;
  if (record.backend === 'shared') return false;
  if (record.backend === 'copy') {
    // The lower folder holds no work (the pinned commit, checked out): it goes first, always.
    await ctx.lowers?.remove(conversation);
    return platform.removeWorkspaceFolder('copies', conversation, { onlyIfEmpty: !discard });
  }
  const path = checkoutOf(platform, conversation, 'worktree');
  if (platform.folderState(path) === 'missing') {
    await platform.git.pruneWorktrees(context);
    return false;
  }
  if (discard) {
    await removeWorktreeOf(ctx, conversation, context);
    return true;
  }
  const known = (await platform.git.listWorktrees(context)).some((w) => platform.relativeInside(w.path, path) === '');
  if (!known) return platform.removeWorkspaceFolder('worktrees', conversation, { onlyIfEmpty: true });
  try {
    await platform.git.removeWorktree(path, context);
  } catch (e) {
    if (platform.folderState(path) === 'missing') {
      // The folder went and only git's bookkeeping failed: the release is done; git forgets it.
      await platform.git.pruneWorktrees(context).catch(() => undefined);
      return true;
    }
    // git looked once more and found work that appeared after the check: name it.
    if (isGitError(e)) {
      const now = await worktreeWorkFiles(platform, path, context).catch(() => []);
      if (now.length > 0) throw dirty(ctx, record, now);
    }
    throw e;
  }
  return true;
}

async function branchStep(
  ctx: HostContext,
  record: WorkspaceRecord,
  options: ReleaseOptions,
  context: GitContext,
): Promise<Pick<ReleaseResult, 'branchDeleted' | 'branchKeptReason'>> {
  const branch = branchOf(record.conversation, record.backend);
  if (!branch) return { branchDeleted: false };
  if (!options.deleteBranch) return { branchDeleted: false, branchKeptReason: 'deleteBranch was not asked for' };
  const { git } = ctx.platform;
  const head = await git.branchHead(branch, context);
  if (head === null) return { branchDeleted: false, branchKeptReason: `branch ${branch} does not exist` };
  const baseRef = record.baseRef ?? 'HEAD';
  let base: string;
  try {
    base = await git.resolveCommit(baseRef, context);
  } catch {
    return { branchDeleted: false, branchKeptReason: `the base ref '${baseRef}' no longer names a commit` };
  }
  if (!(await git.isAncestor(head, base, context))) {
    return {
      branchDeleted: false,
      branchKeptReason: `branch ${branch} (${head.slice(0, 12)}) is not merged into ${baseRef} (${base.slice(0, 12)})`,
    };
  }
  await git.deleteBranch(branch, head, context);
  return { branchDeleted: true };
}

function setPending(ctx: HostContext, conversation: string, pending: PendingRelease): void {
  ctx.store.transaction(() => {
    const current = ctx.store.getWorkspace(conversation);
    if (current) ctx.store.updateWorkspace(conversation, { data: withPendingRelease(current.data, pending) });
  });
}

/**
 * The DIRTY_WORKTREE refusal for `record`, naming the files and, in its hint, the folder holding
 * them and what can be done there: a worktree's work can be committed on its branch (ignored
 * files cannot: they are deleted or discarded); a copy's changed and new files live only in its
 * folder. The hint is for the operator (the CLI), never shown to an agent.
 */
function dirty(ctx: HostContext, record: WorkspaceRecord, files: string[]): WorkspaceError {
  const { conversation } = record;
  // The names are the agent's: each shown as one line (data.files keeps them exact).
  const shown = files.slice(0, 20).map(terminalSafeLine).join(', ') + (files.length > 20 ? `, … (${files.length} in all)` : '');
  ctx.store.appendEvent({
    type: 'release.refused',
    conversation,
    data: { code: 'DIRTY_WORKTREE', files: files.slice(0, 1000), count: files.length },
  });
  const folder = checkoutOf(ctx.platform, conversation, record.backend);
  const hint =
    record.backend === 'copy'
      ? `these files exist only in the copy's folder ${folder}: copy out what you want to keep, then release with discard (gatefs release --discard) to delete them`
      : `commit the work on its branch in ${folder} (ignored files cannot be committed: move them out or delete them), ` +
        'or release with discard (gatefs release --discard) to delete it; the branch and its commits are kept either way';
  const what = record.backend === 'copy' ? 'changed or new files' : 'work that is not committed (changed, untracked or ignored files)';
  return new WorkspaceError('DIRTY_WORKTREE', `conversation '${conversation}' has ${what}: ${shown}`, { conversation, files, hint });
}

/**
 * Puts the workspace back in service after a refused or failed release: a view is open and
 * registered `ready` again, the pending release is cleared, and the release's occupancy is
 * returned. A workspace whose folder is gone cannot serve: its registration says so, and the
 * next `prepare` materializes it again. Writes a `release.aborted` event. Never throws (the
 * original error is what the caller reports); a view that cannot open is a
 * `release.restore_failed` event.
 */
function backInService(ctx: HostContext, conversation: string, holder: string, cause: unknown): void {
  try {
    const record = ctx.store.getWorkspace(conversation);
    if (record?.state === 'ready') {
      const cleared = ctx.store.updateWorkspace(conversation, { data: withPendingRelease(record.data, null) });
      if (ctx.registry.lookup(conversation)?.state !== 'ready' || !ctx.views.has(conversation)) {
        try {
          registerReady(ctx, cleared);
        } catch (e) {
          ctx.registry.delete(conversation);
          ctx.store.appendEvent({ type: 'release.restore_failed', conversation, data: { message: (e as Error).message } });
        }
      }
    }
    ctx.store.appendEvent({ type: 'release.aborted', conversation, data: { code: codeOf(cause) ?? 'ERROR' } });
  } finally {
    ctx.store.releaseOccupancy(conversation, holder);
  }
}
