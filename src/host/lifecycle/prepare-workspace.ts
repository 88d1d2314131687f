/**
 * `prepareWorkspace`: the preparation task. Materializes a conversation's workspace for its
 * role's backend, pins the base commit, and registers it `ready` only once the checkout exists.
 *
 * - `worktree`: `git worktree add -b gatefs/<id> <stateDir>/worktrees/<id> <baseSha>`; an
 *   existing worktree at that path on that branch is reused as is (never reset); an existing
 *   branch without a worktree is checked out again (refused when `baseRef` names another commit).
 * - A ready workspace is reused only with its own role and base: another `role` or a `baseRef`
 *   naming another commit than its pin is refused (`ROLE_MISMATCH`, `BASE_MISMATCH`).
 * - `copy`: a durable upper folder `<stateDir>/copies/<id>` over the pinned commit's tree (or
 *   over the plain folder when the repository is not a git repository).
 * - `shared`: the integration checkout itself (guarantee `none`).
 *
 * Runs under the store's preparation lock (one preparer per conversation across processes).
 * Each thing created is recorded before it is created, so a failure — here or a crash, on the
 * next start — removes exactly that. Errors: `WorkspaceError` `BUSY`, `BAD_REF`,
 * `NOT_A_GIT_REPOSITORY`, `PREPARATION_FAILED` (data.reason: `ROLE_MISMATCH`, `BASE_MISMATCH`,
 * `BRANCH_EXISTS`, `PATH_EXISTS`, `WORKTREE_CONFLICT`, …), `ManifestError` `UNKNOWN_ROLE`.
 */
import { codeOf } from '../../../vfs/coded-error.js';
import { isGitError, conversationBranch, type GitContext } from '../../git/git-port.js';
import { findRole } from '../../manifest/find-role.js';
import type { Backend, Role } from '../../manifest/types.js';
import type { WorkspaceRecord } from '../../state/workspace-table.js';
import { isConversationId } from '../../../vfs/workspace-root.js';
import { WorkspaceError, isWorkspaceError } from '../../workspace-error.js';
import type { PrepareOptions } from './workspace-types.js';
import { lockOwner, type CreatedByPreparation, type HostContext, type WorkspaceData } from './host-context.js';
import { branchOf, checkoutOf } from '../platform/workspace-paths.js';
import { pendingReleaseOf } from './release-record.js';
import { recoverRelease } from './recover-release.js';
import { registerReady, registrationOf } from './registration.js';
import { rollbackPreparation } from './rollback-preparation.js';
import { sparseCheckoutOf } from '../../disclosure/disclosure-state.js';
import { startDisclosure } from '../../disclosure/initial-disclosure.js';

/** Errors whose `prepare.failed` event is already in the run log. */
const logged = new WeakSet<object>();

/**
 * Runs the preparation task for `options.conversation` (see the file comment). Result: the
 * stored record, `ready`. `chain` is the caller's conversation chain for the run log.
 */
export async function prepareWorkspace(ctx: HostContext, options: PrepareOptions, chain: readonly string[]): Promise<WorkspaceRecord> {
  const { conversation } = options;
  if (!isConversationId(conversation)) {
    throw new WorkspaceError(
      'PREPARATION_FAILED',
      `'${String(conversation).slice(0, 80)}' is not a valid conversation id (^[a-z0-9][a-z0-9_-]{0,62}$)`,
      {
        conversation: String(conversation).slice(0, 80),
        reason: 'BAD_CONVERSATION_ID',
      },
    );
  }
  const role = findRole(ctx.manifest, options.role);
  const context: GitContext = { tag: 'prepare', chain: [...chain, conversation] };
  const token = ctx.ids.next('prepare');
  if (!ctx.store.tryLockPreparation(conversation, lockOwner(ctx, token))) {
    throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared by another process`, { conversation });
  }
  try {
    let existing = ctx.store.getWorkspace(conversation);
    // A release a crash interrupted is finished or undone before anything else (we hold the lock it held).
    if (existing && pendingReleaseOf(existing)) existing = await recoverRelease(ctx, existing, context);
    const intact =
      existing?.backend === 'shared' ||
      (existing !== null && ctx.platform.folderState(checkoutOf(ctx.platform, conversation, existing.backend)) === 'folder');
    if (existing?.state === 'ready' && intact) return await reuse(ctx, existing, role, options, context);
    if (existing?.state === 'ready') {
      // The checkout vanished (removed by hand, or a crash during release): materialize it
      // again from the same branch and pin, like a released workspace.
      ctx.store.appendEvent({ type: 'prepare.checkout_missing', conversation, data: { backend: existing.backend } });
      if (existing.backend === 'worktree') await ctx.platform.git.pruneWorktrees(context);
    }
    if (existing?.state === 'preparing') {
      const report = await rollbackPreparation(ctx, existing, context);
      ctx.store.deleteWorkspace(conversation);
      ctx.store.appendEvent({ type: 'prepare.rolled_back', conversation, data: { ...report } });
    }
    return await materialize(ctx, role, options, context);
  } catch (e) {
    if (!logged.has(e as object)) {
      const { code, data, message } = asPreparationError(e, conversation);
      ctx.store.appendEvent({ type: 'prepare.failed', conversation, data: { code, reason: data.reason ?? null, message } });
    }
    throw e;
  } finally {
    ctx.store.unlockPreparation(conversation, token);
  }
}

async function reuse(
  ctx: HostContext,
  record: WorkspaceRecord,
  role: Role,
  options: PrepareOptions,
  context: GitContext,
): Promise<WorkspaceRecord> {
  if (options.role !== undefined && record.role !== role.name) {
    throw new WorkspaceError(
      'PREPARATION_FAILED',
      `conversation '${record.conversation}' is already prepared with role '${record.role}', not '${role.name}'`,
      {
        conversation: record.conversation,
        reason: 'ROLE_MISMATCH',
        role: record.role,
      },
    );
  }
  if (options.baseRef !== undefined && record.pinnedSha) {
    const asked = await resolveBase(ctx, options.baseRef, context, record.conversation);
    if (asked !== record.pinnedSha) {
      throw new WorkspaceError(
        'PREPARATION_FAILED',
        `conversation '${record.conversation}' is already prepared from ${record.pinnedSha.slice(0, 12)}, not from ${options.baseRef} (${asked.slice(0, 12)})`,
        {
          conversation: record.conversation,
          reason: 'BASE_MISMATCH',
          pinnedSha: record.pinnedSha,
          baseSha: asked,
          hint: 'a workspace keeps the base it was prepared from: prepare it without --base to use it, or prepare another conversation from that base',
        },
      );
    }
  }
  if (ctx.registry.lookup(record.conversation)?.state !== 'ready') registerReady(ctx, record);
  ctx.store.appendEvent({ type: 'prepare.reused', conversation: record.conversation, data: { pinnedSha: record.pinnedSha } });
  return record;
}

/** A workspace being prepared: its latest stored record and the data being written into it. */
interface Draft {
  record: WorkspaceRecord;
  readonly data: WorkspaceData;
}

/**
 * Materializes a workspace that is not ready: chooses the base, records the workspace
 * `preparing`, then creates what its backend needs; on failure undoes exactly what it created.
 */
async function materialize(ctx: HostContext, role: Role, options: PrepareOptions, context: GitContext): Promise<WorkspaceRecord> {
  const base = await chooseBase(ctx, role.workspace.backend, options, context);
  const draft = await recordPreparing(ctx, role, options, context, base);
  try {
    return await build(ctx, role, context, draft);
  } catch (e) {
    throw await abandon(ctx, draft.record, context, e);
  }
}

/**
 * The base ref and the commit it pins (both null for a folder that is not a git repository).
 * Throws `NOT_A_GIT_REPOSITORY` (a worktree, or a base asked for, without a repository), `BAD_REF`,
 * `PREPARATION_FAILED` (`BRANCH_EXISTS`); nothing is recorded yet.
 */
async function chooseBase(
  ctx: HostContext,
  backend: Backend,
  options: PrepareOptions,
  context: GitContext,
): Promise<{ baseRef: string | null; pinnedSha: string | null }> {
  const { platform } = ctx;
  const { conversation } = options;
  const isRepository = await platform.git.isRepository(context);
  if (!isRepository && (backend === 'worktree' || options.baseRef !== undefined)) {
    throw new WorkspaceError(
      'NOT_A_GIT_REPOSITORY',
      `'${platform.repo}' is not a git repository (backend ${backend}${options.baseRef ? `, base ${options.baseRef}` : ''})`,
      {
        conversation,
        backend,
      },
    );
  }
  const baseRef = isRepository ? (options.baseRef ?? 'HEAD') : null;
  const pinnedSha = baseRef ? await resolveBase(ctx, baseRef, context, conversation) : null;
  if (backend === 'worktree' && options.baseRef !== undefined && pinnedSha)
    await refuseOtherBranch(ctx, conversation, options.baseRef, pinnedSha, context);
  return { baseRef, pinnedSha };
}

/** Stores the workspace `preparing`, before anything is created, and registers it so. */
async function recordPreparing(
  ctx: HostContext,
  role: Role,
  options: PrepareOptions,
  context: GitContext,
  base: { baseRef: string | null; pinnedSha: string | null },
): Promise<Draft> {
  const { store } = ctx;
  const { conversation } = options;
  const backend = role.workspace.backend;
  const checkoutPath = checkoutOf(ctx.platform, conversation, backend);
  const data: WorkspaceData = { tools: [...role.tools], mounts: role.workspace.mounts.map((m) => ({ ...m })), created: {} };
  const record = store.putWorkspace({
    conversation,
    role: role.name,
    backend,
    guarantee: backend === 'shared' ? 'none' : 'confined',
    state: 'preparing',
    branch: backend === 'worktree' ? conversationBranch(conversation) : null,
    baseRef: base.baseRef,
    pinnedSha:
      backend === 'worktree' && options.baseRef === undefined
        ? await resumePin(ctx, conversation, base.pinnedSha, context)
        : base.pinnedSha,
    checkoutPath,
    data: { ...data },
  });
  store.appendEvent({
    type: 'prepare.start',
    conversation,
    data: { role: role.name, backend, baseRef: base.baseRef, pinnedSha: record.pinnedSha },
  });
  ctx.registry.set(registrationOf(record, 'preparing'));
  return { record, data };
}

/**
 * Creates what the backend needs (the disclosure state and the worktree, or the copy folder),
 * recording each thing in the draft before creating it, then registers the workspace `ready`.
 */
async function build(ctx: HostContext, role: Role, context: GitContext, draft: Draft): Promise<WorkspaceRecord> {
  const { store } = ctx;
  const { conversation } = draft.record;
  const backend = role.workspace.backend;
  const save = () => {
    draft.record = store.updateWorkspace(conversation, { data: { ...draft.data } });
  };
  const markCreated = (created: CreatedByPreparation) => {
    draft.data.created = { ...draft.data.created, ...created };
    save();
  };
  const policy = role.workspace.progressiveDisclosure;
  if (backend === 'worktree' && policy && draft.record.pinnedSha) {
    draft.data.disclosure = await startDisclosure(ctx, conversation, draft.record.pinnedSha, policy);
    save();
  }
  if (backend === 'worktree') draft.data.reused = await checkOutWorktree(ctx, draft.record, context, markCreated);
  if (backend === 'copy') {
    makeCopyFolder(ctx, conversation, markCreated);
    // A lower folder an earlier workspace of this id left (it may hold another commit).
    await ctx.lowers?.remove(conversation);
  }
  save();
  registerReady(ctx, draft.record);
  draft.record = store.updateWorkspace(conversation, { state: 'ready' });
  store.appendEvent({
    type: 'prepare.ready',
    conversation,
    data: { backend, pinnedSha: draft.record.pinnedSha, branch: draft.record.branch, reused: draft.data.reused ?? false },
  });
  return draft.record;
}

/** Creates the copy's upper folder when missing (recorded first); an existing folder is kept, anything else refused (`PATH_EXISTS`). */
function makeCopyFolder(ctx: HostContext, conversation: string, markCreated: (created: CreatedByPreparation) => void): void {
  const { platform } = ctx;
  const checkoutPath = checkoutOf(platform, conversation, 'copy');
  const found = platform.folderState(checkoutPath);
  if (found === 'missing') {
    markCreated({ folder: true });
    platform.makeFolder(checkoutPath);
  } else if (found !== 'folder') {
    throw failure(
      conversation,
      'PATH_EXISTS',
      `'${checkoutPath}' exists and is ${found === 'link' ? 'a symbolic link' : 'not a folder'}: it is left untouched`,
    );
  }
}

/**
 * After a failed preparation: removes exactly what `record` says was created, forgets the
 * workspace, logs `prepare.failed` once, and returns the error to throw (a `WorkspaceError`).
 */
async function abandon(ctx: HostContext, record: WorkspaceRecord, context: GitContext, e: unknown): Promise<WorkspaceError> {
  const { store } = ctx;
  const { conversation } = record;
  const report = await rollbackPreparation(ctx, record, context);
  ctx.views.get(conversation)?.close();
  ctx.views.delete(conversation);
  ctx.registry.delete(conversation);
  store.deleteWorkspace(conversation);
  const error = asPreparationError(e, conversation);
  store.appendEvent({
    type: 'prepare.failed',
    conversation,
    data: { code: error.code, reason: error.data.reason ?? null, message: error.message, rollback: { ...report } },
  });
  logged.add(error);
  return error;
}

/**
 * The pin of a worktree prepared without a base: the base itself, unless a branch
 * `gatefs/<id>` from an earlier preparation (or a subagent) is still there. Then:
 * - every commit of the branch is in the base already (its work landed): the branch is moved
 *   up to the base by compare-and-swap (nothing is lost: its head is an ancestor) and the
 *   workspace starts from the base, as a new one would;
 * - otherwise its commits are work not home yet: the branch is checked out as it is, pinned at
 *   the merge base of the branch and the base, so `diff` shows exactly what is not in the base.
 * Either way a `prepare.resumed` event says what happened. Null base (no repository): null.
 */
async function resumePin(ctx: HostContext, conversation: string, base: string | null, context: GitContext): Promise<string | null> {
  const branch = branchOf(conversation, 'worktree')!;
  const head = base === null ? null : await ctx.platform.git.branchHead(branch, context);
  if (base === null || head === null) return base;
  if (await ctx.platform.git.isAncestor(head, base, context)) {
    if (head !== base) {
      const moved = await ctx.landing.fastForward(`refs/heads/${branch}`, head, base, context);
      if (moved.outcome !== 'moved') {
        throw new WorkspaceError('BUSY', `the branch ${branch} moved while '${conversation}' was being prepared; prepare again`, {
          conversation,
          branch,
        });
      }
    }
    ctx.store.appendEvent({ type: 'prepare.resumed', conversation, data: { branch, head, pinnedSha: base, landed: true } });
    return base;
  }
  const pin = (await ctx.platform.git.mergeBase(head, base, context)) ?? base;
  ctx.store.appendEvent({ type: 'prepare.resumed', conversation, data: { branch, head, pinnedSha: pin, landed: false } });
  return pin;
}

/**
 * A branch `gatefs/<id>` left by an earlier preparation is checked out again as it is (its
 * commits are the conversation's work). When the caller asked for a base and that branch points
 * elsewhere, serving the old branch would silently ignore the request: throws
 * `PREPARATION_FAILED` (reason `BRANCH_EXISTS`) before anything is recorded or created.
 */
async function refuseOtherBranch(
  ctx: HostContext,
  conversation: string,
  baseRef: string,
  baseSha: string,
  context: GitContext,
): Promise<void> {
  const branch = branchOf(conversation, 'worktree')!;
  const head = await ctx.platform.git.branchHead(branch, context);
  if (head === null || head === baseSha) return;
  throw new WorkspaceError(
    'PREPARATION_FAILED',
    `the branch ${branch} already exists at ${head.slice(0, 12)} (from an earlier preparation of '${conversation}'), not at ${baseRef} (${baseSha.slice(0, 12)})`,
    {
      conversation,
      reason: 'BRANCH_EXISTS',
      branch,
      head,
      hint: `prepare without --base to continue that branch, or delete it (git branch -D ${branch}, after keeping what you need of its commits) to start again from ${baseRef}`,
    },
  );
}

/** Creates (or safely reuses) the worktree. Result: true when an existing worktree was reused. */
async function checkOutWorktree(
  ctx: HostContext,
  record: WorkspaceRecord,
  context: GitContext,
  markCreated: (created: CreatedByPreparation) => void,
): Promise<boolean> {
  const { platform } = ctx;
  const path = checkoutOf(platform, record.conversation, 'worktree');
  const branch = branchOf(record.conversation, 'worktree')!;
  if (platform.exists(path)) {
    const here = (await platform.git.listWorktrees(context)).find((w) => platform.relativeInside(w.path, path) === '');
    if (here?.branch === `refs/heads/${branch}`) return true;
    const what = here ? `a worktree of ${here.branch ?? 'a detached HEAD'}` : 'not a worktree';
    throw failure(
      record.conversation,
      here ? 'WORKTREE_CONFLICT' : 'PATH_EXISTS',
      `'${path}' exists and is ${what}, not of ${branch}: it is left untouched`,
    );
  }
  const existingBranch = (await platform.git.branchHead(branch, context)) !== null;
  markCreated(existingBranch ? { worktree: true } : { worktree: true, branch: true });
  await platform.git.addWorktree({ path, branch, base: record.pinnedSha!, existingBranch, ...sparseCheckoutOf(record.data) }, context);
  return false;
}

async function resolveBase(ctx: HostContext, ref: string, context: GitContext, conversation: string): Promise<string> {
  try {
    return await ctx.platform.git.resolveCommit(ref, context);
  } catch (e) {
    if (isGitError(e, 'BAD_REF')) {
      const why = ref === 'HEAD' ? 'HEAD names no commit (a repository without commits yet?)' : `base ref '${ref}' names no commit`;
      throw new WorkspaceError('BAD_REF', why, { conversation, ref }, { cause: e });
    }
    throw asPreparationError(e, conversation);
  }
}

function failure(conversation: string, reason: string, message: string): WorkspaceError {
  return new WorkspaceError('PREPARATION_FAILED', message, { conversation, reason });
}

function asPreparationError(e: unknown, conversation: string): WorkspaceError {
  if (isWorkspaceError(e)) return e;
  const reason = isGitError(e) ? `GIT_${e.code}` : (codeOf(e) ?? 'ERROR');
  return new WorkspaceError(
    'PREPARATION_FAILED',
    `preparing '${conversation}' failed: ${(e as Error)?.message ?? String(e)}`,
    { conversation, reason },
    { cause: e },
  );
}
