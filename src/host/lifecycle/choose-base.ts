/**
 * The commit a workspace is pinned at: the base ref asked for (default the integration
 * checkout's HEAD), resolved once; on an explicit branch, what choose-branch.ts decides; for a
 * `worktree` whose branch `gatefs/<id>` is left from an
 * earlier preparation, the pin that keeps that branch's work (`resumePin`), or a refusal when a
 * base was asked for and the branch points elsewhere (`BRANCH_EXISTS`). Nothing is recorded here
 * except the `prepare.resumed` event.
 */
import { isGitError, type GitContext, type GitPort } from '../../git/index.js';
import type { Backend } from '../../manifest/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { branchOf } from '../platform/index.js';
import { askedBranch, explicitBranchPin, refuseBranchOfBackend } from './choose-branch.js';
import { asPreparationError } from './preparation-error.js';
import type { RegistrationParts } from './registration.js';
import type { PrepareOptions } from './workspace-types.js';

/**
 * The base ref and the commit it pins (both null for a folder that is not a git repository, and
 * always for `empty`, which starts from nothing); with an explicit branch (choose-branch.ts), the
 * pin on that branch. Throws `NOT_A_GIT_REPOSITORY` (a worktree, or a base asked for, without a
 * repository), `BAD_REF` (also: any base asked for an `empty` workspace, any branch asked for a
 * backend other than `worktree`), `PREPARATION_FAILED` (`BRANCH_EXISTS`, `BAD_BRANCH_NAME`,
 * `BRANCH_IN_USE`, `BASE_MISMATCH`); nothing is recorded yet but `prepare.resumed`.
 */
export async function chooseBase(
  parts: Pick<RegistrationParts, 'platform' | 'store'>,
  backend: Backend,
  options: PrepareOptions,
  context: GitContext,
): Promise<{ baseRef: string | null; pinnedSha: string | null }> {
  const { platform } = parts;
  const { conversation } = options;
  refuseBranchOfBackend(conversation, backend, options.branch);
  if (backend === 'empty') {
    if (options.baseRef !== undefined) {
      throw new WorkspaceError(
        'BAD_REF',
        `'${conversation}' has backend empty: its workspace starts empty, from no commit, so it takes no base (${options.baseRef}); prepare it without one`,
        { conversation, backend, ref: options.baseRef },
      );
    }
    return { baseRef: null, pinnedSha: null };
  }
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
  const pinnedSha = baseRef ? await resolveBase(platform.git, baseRef, context, conversation) : null;
  const branch = askedBranch(options);
  if (backend === 'worktree' && branch !== null && baseRef && pinnedSha) {
    const base = { ref: baseRef, sha: pinnedSha, asked: options.baseRef !== undefined };
    return { baseRef, pinnedSha: await explicitBranchPin(parts, conversation, branch, base, context) };
  }
  if (backend === 'worktree' && options.baseRef !== undefined && pinnedSha)
    await refuseOtherBranch(platform.git, conversation, options.baseRef, pinnedSha, context);
  return { baseRef, pinnedSha };
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
export async function resumePin(
  parts: Pick<RegistrationParts, 'platform' | 'store'>,
  conversation: string,
  base: string | null,
  context: GitContext,
): Promise<string | null> {
  const { git, landing } = parts.platform;
  const branch = branchOf(conversation, 'worktree')!;
  const head = base === null ? null : await git.branchHead(branch, context);
  if (base === null || head === null) return base;
  if (await git.isAncestor(head, base, context)) {
    if (head !== base) {
      const moved = await landing.fastForward(`refs/heads/${branch}`, head, base, context);
      if (moved.outcome !== 'moved') {
        throw new WorkspaceError('BUSY', `the branch ${branch} moved while '${conversation}' was being prepared; prepare again`, {
          conversation,
          branch,
        });
      }
    }
    parts.store.runLog.append({ type: 'prepare.resumed', conversation, data: { branch, head, pinnedSha: base, landed: true } });
    return base;
  }
  const pin = (await git.mergeBase(head, base, context)) ?? base;
  parts.store.runLog.append({ type: 'prepare.resumed', conversation, data: { branch, head, pinnedSha: pin, landed: false } });
  return pin;
}

/**
 * A branch `gatefs/<id>` left by an earlier preparation is checked out again as it is (its
 * commits are the conversation's work). When the caller asked for a base and that branch points
 * elsewhere, serving the old branch would silently ignore the request: throws
 * `PREPARATION_FAILED` (reason `BRANCH_EXISTS`) before anything is recorded or created.
 */
async function refuseOtherBranch(
  git: Pick<GitPort, 'branchHead'>,
  conversation: string,
  baseRef: string,
  baseSha: string,
  context: GitContext,
): Promise<void> {
  const branch = branchOf(conversation, 'worktree')!;
  const head = await git.branchHead(branch, context);
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

/** The commit `ref` names. Throws `BAD_REF` when it names none, else what `asPreparationError` makes of the failure. */
export async function resolveBase(
  git: Pick<GitPort, 'resolveCommit'>,
  ref: string,
  context: GitContext,
  conversation: string,
): Promise<string> {
  try {
    return await git.resolveCommit(ref, context);
  } catch (e) {
    if (isGitError(e, 'BAD_REF')) {
      const why = ref === 'HEAD' ? 'HEAD names no commit (a repository without commits yet?)' : `base ref '${ref}' names no commit`;
      throw new WorkspaceError('BAD_REF', why, { conversation, ref }, { cause: e });
    }
    throw asPreparationError(e, conversation);
  }
}
