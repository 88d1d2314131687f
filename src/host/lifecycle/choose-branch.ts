/**
 * The explicit branch of a `worktree` preparation (`prepare({ branch, baseRef })`, after Holon's
 * CreateWorktree: "creates or safely reuses a linked worktree from an explicit branch and
 * base_ref"). The name is checked as git does and more (`explicitBranchProblem`), must be checked
 * out nowhere else, and an existing branch is taken only when it agrees with the base asked for:
 * - the branch does not exist: it is made at the base (default HEAD) and gatefs records that it
 *   made it (only such a branch may ever be deleted by gatefs: release, rollback);
 * - it exists and no base was asked for: it is checked out as it is, never moved, pinned at the
 *   merge base of its head and HEAD (as `resumePin` pins a `gatefs/<id>` holding work), so `diff`
 *   shows what the branch has that HEAD lacks;
 * - it exists and a base was asked for: the base must be its head or an ancestor of it (then the
 *   pin is the base), else `BASE_MISMATCH`.
 */
import { isConversationId } from '../../../vfs/index.js';
import type { GitContext } from '../../git/index.js';
import type { Backend } from '../../manifest/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { branchOfRecord, checkoutOf, explicitBranchProblem, isConversationBranch } from '../platform/index.js';
import type { RegistrationParts } from './registration.js';
import type { PrepareOptions } from './workspace-types.js';

/**
 * The explicit branch `options` asks for, or null for the default (`gatefs/<id>`, also when that
 * is what was asked). Throws `PREPARATION_FAILED` (reason `BAD_BRANCH_NAME`, data.branch,
 * data.problem) for a name `explicitBranchProblem` refuses.
 */
export function askedBranch(options: Pick<PrepareOptions, 'conversation' | 'branch'>): string | null {
  const { conversation, branch } = options;
  if (branch === undefined) return null;
  const problem = explicitBranchProblem(branch, conversation);
  if (problem !== null) {
    const shown = JSON.stringify(String(branch).slice(0, 80));
    throw new WorkspaceError('PREPARATION_FAILED', `the branch ${shown} ${problem}`, {
      conversation,
      reason: 'BAD_BRANCH_NAME',
      branch: String(branch).slice(0, 80),
      problem,
    });
  }
  return isConversationBranch(conversation, branch) ? null : branch;
}

/**
 * `BAD_REF` when a branch was asked for a backend other than `worktree` (only a worktree is on a
 * branch of its own), like a base asked for an `empty` workspace.
 */
export function refuseBranchOfBackend(conversation: string, backend: Backend, branch: string | undefined): void {
  if (branch === undefined || backend === 'worktree') return;
  throw new WorkspaceError(
    'BAD_REF',
    `'${conversation}' has backend ${backend}: only a worktree workspace is on a branch of its own, so it takes no branch (${JSON.stringify(branch.slice(0, 80))}); prepare it without one`,
    { conversation, backend, branch: branch.slice(0, 80) },
  );
}

/**
 * The pin of a new worktree on the explicit `branch` (see the file comment), once no other
 * checkout holds it (`refuseBranchInUse`). `baseSha` is the base asked for, or HEAD's commit
 * when `baseAsked` is false. Throws `PREPARATION_FAILED` (`BRANCH_IN_USE`, `BASE_MISMATCH`).
 */
export async function explicitBranchPin(
  parts: Pick<RegistrationParts, 'platform' | 'store'>,
  conversation: string,
  branch: string,
  base: { ref: string; sha: string; asked: boolean },
  context: GitContext,
): Promise<string> {
  await refuseBranchInUse(parts, conversation, branch, context);
  const { git } = parts.platform;
  const head = await git.branchHead(branch, context);
  if (head === null) return base.sha;
  if (base.asked) {
    if (await git.isAncestor(base.sha, head, context)) return base.sha;
    throw new WorkspaceError(
      'PREPARATION_FAILED',
      `the branch ${branch} (${head.slice(0, 12)}) does not hold ${base.ref} (${base.sha.slice(0, 12)}) in its history, so it cannot be prepared from that base`,
      {
        conversation,
        reason: 'BASE_MISMATCH',
        branch,
        head,
        baseSha: base.sha,
        hint: `prepare without --base to take the branch as it is, or name a new branch to start from ${base.ref}`,
      },
    );
  }
  const pin = (await git.mergeBase(head, base.sha, context)) ?? base.sha;
  parts.store.runLog.append({ type: 'prepare.resumed', conversation, data: { branch, head, pinnedSha: pin, landed: false } });
  return pin;
}

/**
 * `PREPARATION_FAILED` (reason `BRANCH_IN_USE`, data.holder: `canonical` for the source
 * checkout, another conversation's id, or `another worktree`) when `branch` is checked out in any
 * worktree of the repository other than `conversation`'s own, or is the branch of another
 * conversation's workspace that is ready or being prepared (its checkout may be missing).
 */
export async function refuseBranchInUse(
  parts: Pick<RegistrationParts, 'platform' | 'store'>,
  conversation: string,
  branch: string,
  context: GitContext,
): Promise<void> {
  const { platform } = parts;
  const own = checkoutOf(platform, conversation, 'worktree');
  const worktrees = await platform.git.listWorktrees(context);
  const here = worktrees.find((w) => w.branch === `refs/heads/${branch}` && platform.relativeInside(w.path, own) !== '');
  const holder = here ? holderOf(platform, here.path, worktrees[0]?.path) : recordHolder(parts, conversation, branch);
  if (holder === null) return;
  throw new WorkspaceError(
    'PREPARATION_FAILED',
    `the branch ${branch} is checked out ${whereHeld(holder)}; a branch is checked out in one place at a time`,
    {
      conversation,
      reason: 'BRANCH_IN_USE',
      branch,
      holder,
      hint: 'name another branch, or release the conversation or switch the checkout that holds it',
    },
  );
}

/** Where `holder` (see `holderOf`) has the branch, in words. */
function whereHeld(holder: string): string {
  if (holder === 'canonical') return 'in the source checkout';
  return holder === 'another worktree' ? 'in another worktree' : `by conversation '${holder}'`;
}

/** Who holds the worktree at `path`: `canonical` (the main worktree), a conversation id, or `another worktree`. */
function holderOf(platform: RegistrationParts['platform'], path: string, main: string | undefined): string {
  if (main !== undefined && platform.relativeInside(main, path) === '') return 'canonical';
  const inside = platform.relativeInside(platform.join(platform.stateDir, 'worktrees'), path);
  return inside && isConversationId(inside) ? inside : 'another worktree';
}

/** The other conversation whose ready or preparing worktree record names `branch`, or null. */
function recordHolder(parts: Pick<RegistrationParts, 'store'>, conversation: string, branch: string): string | null {
  for (const r of parts.store.workspaces.list()) {
    if (r.conversation === conversation || r.backend !== 'worktree' || (r.state !== 'ready' && r.state !== 'preparing')) continue;
    if (safeBranchOf(r) === branch) return r.conversation;
  }
  return null;
}

/** `branchOfRecord`, or null for a record whose branch is refused (it holds no branch anyone may take). */
function safeBranchOf(record: Parameters<typeof branchOfRecord>[0]): string | null {
  try {
    return branchOfRecord(record);
  } catch {
    return null;
  }
}

/**
 * `options` for preparing again the conversation of `record`. When it is `ready` (reused, or its
 * checkout vanished and is made again) its branch is kept: an explicit one is carried into the
 * options when none was asked, and another branch asked for is refused with `PREPARATION_FAILED`
 * (reason `BASE_MISMATCH`, data.branch: the recorded one, data.askedBranch). When it was
 * `released`, a preparation without a branch continues its explicit branch, as one without a base
 * continues `gatefs/<id>`; any branch may be asked. Any other record: `options` as they are.
 */
export function keepRecordedBranch(
  record: (Parameters<typeof branchOfRecord>[0] & { state: string }) | null,
  options: PrepareOptions,
): PrepareOptions {
  if (record?.state === 'released' && record.backend === 'worktree' && options.branch === undefined) {
    const recorded = branchOfRecord(record)!;
    return isConversationBranch(record.conversation, recorded) ? options : { ...options, branch: recorded };
  }
  if (record?.state !== 'ready') return options;
  if (record.backend !== 'worktree') {
    refuseBranchOfBackend(record.conversation, record.backend, options.branch);
    return options;
  }
  const recorded = branchOfRecord(record)!;
  const explicit = isConversationBranch(record.conversation, recorded) ? undefined : recorded;
  if (options.branch === undefined) return explicit === undefined ? options : { ...options, branch: explicit };
  const asked = askedBranch(options);
  if ((asked ?? undefined) === explicit) return options;
  throw new WorkspaceError(
    'PREPARATION_FAILED',
    `conversation '${record.conversation}' is already prepared on the branch ${recorded}, not ${asked ?? options.branch}`,
    {
      conversation: record.conversation,
      reason: 'BASE_MISMATCH',
      branch: recorded,
      askedBranch: asked ?? options.branch,
      hint: 'a workspace keeps the branch it was prepared on: prepare it without --branch to use it, or prepare another conversation on that branch',
    },
  );
}
