/**
 * `prepareWorkspace`: the preparation task. Materializes a conversation's workspace for its
 * role's backend, pins the base commit, and registers it `ready` only once the checkout exists.
 *
 * - `worktree`: `git worktree add -b gatefs/<id> <stateDir>/worktrees/<id> <baseSha>`; an
 *   existing worktree at that path on that branch is reused as is (never reset); an existing
 *   branch without a worktree is checked out again (refused when `baseRef` names another commit).
 * - An explicit `branch` (worktree only; choose-branch.ts): made at the base, or an existing one
 *   taken when the base is in its history; refused when checked out elsewhere (`BRANCH_IN_USE`),
 *   not a name git takes (`BAD_BRANCH_NAME`), or not agreeing with the base (`BASE_MISMATCH`).
 * - A ready workspace is reused only with its own role, branch and base: another `role`, another
 *   `branch` or a `baseRef` naming another commit than its pin is refused (`ROLE_MISMATCH`,
 *   `BASE_MISMATCH`).
 * - `copy`: a durable upper folder `<stateDir>/copies/<id>` over the pinned commit's tree (or
 *   over the plain folder when the repository is not a git repository).
 * - `shared`: the integration checkout itself (guarantee `none`).
 * - Runs and visits (run-visit.ts): a new conversation gets the next visit of its role in its run
 *   once its workspace is made; a refused visit (`RUN_ENDED`, `VISITS_EXHAUSTED`, `RUN_MISMATCH`)
 *   is refused before anything is made. A reused workspace keeps its visit.
 *
 * Runs under the store's preparation lock (one preparer per conversation across processes).
 * Each thing created is recorded before it is created, so a failure — here or a crash, on the
 * next start — removes exactly that. Errors: `WorkspaceError` `BUSY`, `BAD_REF`,
 * `NOT_A_GIT_REPOSITORY`, `RUN_ENDED`, `VISITS_EXHAUSTED`, `PREPARATION_FAILED` (data.reason:
 * `BAD_RUN_NAME`, `ROLE_MISMATCH`, `RUN_MISMATCH`, `BASE_MISMATCH`, `BRANCH_EXISTS`, `BAD_BRANCH_NAME`,
 * `BRANCH_IN_USE`, `PATH_EXISTS`,
 * `WORKTREE_CONFLICT`, …), `ManifestError` `UNKNOWN_ROLE`.
 */
import type { GitContext } from '../../git/index.js';
import { findRole } from '../../manifest/index.js';
import type { Role } from '../../manifest/index.js';
import type { IdSource } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { checkConversationId, checkoutOf, checkRunName } from '../platform/index.js';
import { resolveBase } from './choose-base.js';
import { askedBranch, keepRecordedBranch } from './choose-branch.js';
import { materialize } from './materialize-workspace.js';
import { refuseReservedId } from './end-bindings.js';
import { agentForPreparation, seedHomeFor } from './agent-identity.js';
import { asPreparationError, isLogged } from './preparation-error.js';
import { recoverRelease } from './recover-release.js';
import { registerReady, type RegistrationParts } from './registration.js';
import { pendingReleaseOf } from './release-record.js';
import { rollbackPreparation } from './rollback-preparation.js';
import { refuseVisit, startRunVisit } from './run-visit.js';
import type { PrepareOptions } from './workspace-types.js';

/** What the preparation task uses of the host: what registering uses, and ids and this process for the preparation lock. */
export interface PreparationParts extends RegistrationParts {
  readonly ids: IdSource;
  /** This process (pid + start time), the owner of the preparation lock. */
  readonly liveness: Pick<ProcessLiveness, 'self'>;
}

/**
 * Runs the preparation task for `options.conversation` (see the file comment). Result: the
 * stored record, `ready`. `chain` is the caller's conversation chain for the run log.
 */
export async function prepareWorkspace(
  parts: PreparationParts,
  options: PrepareOptions,
  chain: readonly string[],
): Promise<WorkspaceRecord> {
  const { conversation } = options;
  checkConversationId(conversation);
  refuseReservedId(conversation);
  if (options.run !== undefined) checkRunName(options.run);
  askedBranch(options);
  const role = findRole(parts.manifest, options.role);
  const context: GitContext = { tag: 'prepare', chain: [...chain, conversation] };
  const token = parts.ids.next('prepare');
  if (!parts.store.preparationLocks.tryLock(conversation, { ...parts.liveness.self, token })) {
    throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared by another process`, { conversation });
  }
  try {
    refuseVisit(parts.store, conversation, visitRole(parts, conversation, role, options), options.run);
    const agent = agentForPreparation(parts.platform, parts.store, conversation, options.agent, role);
    await seedHomeFor(parts, conversation, agent);
    const existing = await reusable(parts, conversation, context);
    const isNew = parts.store.bindings.stateOf(conversation) === null;
    // Recorded before the view opens: registration reads the agent whose home it shows.
    parts.store.bindings.register(conversation, agent, (existing?.backend ?? role.workspace.backend) !== 'shared');
    try {
      if (existing) return await reuse(parts, existing, role, options, context);
      // A ready record here lost its checkout: it is made again on its own branch.
      return await materialize(parts, role, keepRecordedBranch(parts.store.workspaces.get(conversation), options), context);
    } catch (e) {
      if (isNew && parts.store.workspaces.get(conversation)?.state !== 'ready') parts.store.bindings.unregister(conversation);
      throw e;
    }
  } catch (e) {
    if (!isLogged(e)) {
      const { code, data, message } = asPreparationError(e, conversation);
      parts.store.runLog.append({ type: 'prepare.failed', conversation, data: { code, reason: data.reason ?? null, message } });
    }
    throw e;
  } finally {
    parts.store.preparationLocks.unlock(conversation, token);
  }
}

/**
 * The `ready` record of `conversation` when its checkout is there to reuse, else null, once
 * what stands in the way is settled: a release a crash interrupted is finished or undone first
 * (the caller holds the lock it held); a ready workspace whose checkout vanished (removed by
 * hand, or a crash during release) is materialized again from the same branch and pin, like a
 * released one; an interrupted preparation is rolled back and its record deleted.
 */
async function reusable(parts: RegistrationParts, conversation: string, context: GitContext): Promise<WorkspaceRecord | null> {
  let existing = parts.store.workspaces.get(conversation);
  if (existing && pendingReleaseOf(existing)) existing = await recoverRelease(parts, existing, context);
  if (existing === null) return null;
  const intact =
    existing.backend === 'shared' || parts.platform.folderState(checkoutOf(parts.platform, conversation, existing.backend)) === 'folder';
  if (existing.state === 'ready' && intact) return existing;
  if (existing.state === 'ready') {
    parts.store.runLog.append({ type: 'prepare.checkout_missing', conversation, data: { backend: existing.backend } });
    if (existing.backend === 'worktree') await parts.platform.git.pruneWorktrees(context);
  }
  if (existing.state === 'preparing') {
    const report = await rollbackPreparation(parts, existing, context);
    parts.store.workspaces.delete(conversation);
    parts.store.runLog.append({ type: 'prepare.rolled_back', conversation, data: { ...report } });
  }
  return null;
}

/**
 * Reuses a ready workspace, refusing another role (`ROLE_MISMATCH`) or a base naming another
 * commit than its pin (`BASE_MISMATCH`); registers it `ready` when it is not yet.
 */
async function reuse(
  parts: RegistrationParts,
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
  keepRecordedBranch(record, options);
  if (options.baseRef !== undefined && record.pinnedSha) {
    const asked = await resolveBase(parts.platform.git, options.baseRef, context, record.conversation);
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
  startRunVisit(parts.store, record.conversation, visitRole(parts, record.conversation, role, options), options.run);
  if (parts.registry.lookup(record.conversation)?.state !== 'ready') registerReady(parts, record);
  parts.store.runLog.append({ type: 'prepare.reused', conversation: record.conversation, data: { pinnedSha: record.pinnedSha } });
  return record;
}

/** The role a visit is counted for: the one asked for, else the role of the conversation's workspace (when the manifest still has it). */
function visitRole(parts: RegistrationParts, conversation: string, role: Role, options: PrepareOptions): Role {
  if (options.role !== undefined) return role;
  const recorded = parts.store.workspaces.get(conversation)?.role;
  return parts.manifest.roles.find((r) => r.name === recorded) ?? role;
}
