/**
 * The branch of a `worktree` workspace: `gatefs/<id>` by default, or the explicit branch its
 * preparation was asked for (`prepare({ branch })`), kept in the record's `branch` column. The
 * recorded name is checked again every time it is read (`branchOfRecord`), so a record can never
 * hand git a name it would parse as an option, a full ref, `HEAD`, a path or another
 * conversation's `gatefs/<id>` (docs/ARCHITECTURE.md § Trust boundary, "Branches").
 */
import { conversationBranch } from '../../git/index.js';
import { branchNameProblem, type Backend } from '../../manifest/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { checkConversationId } from './workspace-paths.js';

/** The longest explicit branch name gatefs takes (git's own limit is the file system's). */
const MAX_BRANCH_LENGTH = 200;

/**
 * Says what is wrong with `name` as the explicit branch of `conversation`'s workspace, or null
 * when it may be one. On top of git's rules (`branchNameProblem`): at most `MAX_BRANCH_LENGTH`
 * characters; no C1 control characters (a branch name is shown on the operator's terminal); not
 * a full ref (`refs/…`); not a name like `HEAD` (`FETCH_HEAD`, `ORIG_HEAD`, …); not in `gatefs/`
 * unless it is the conversation's own `gatefs/<id>`.
 */
export function explicitBranchProblem(name: unknown, conversation: string): string | null {
  if (typeof name !== 'string') return 'is not a string';
  if (name.length > MAX_BRANCH_LENGTH) return `is longer than ${MAX_BRANCH_LENGTH} characters`;
  const problem = branchNameProblem(name);
  if (problem !== null) return problem;
  if (/[\u0080-\u009f]/.test(name)) return 'cannot contain control characters';
  if (name.startsWith('refs/')) return "looks like a full ref: give the branch name without 'refs/heads/'";
  if (/^[A-Z_]*HEAD$/.test(name)) return 'looks like a special ref (HEAD, FETCH_HEAD, …)';
  if (name === conversationBranch(conversation)) return null;
  if (name.startsWith('gatefs/')) return 'is in gatefs/, the branches gatefs names after conversations';
  return null;
}

/** True when `branch` is the one gatefs names after `conversation` (`gatefs/<id>`), not an explicit one. */
export function isConversationBranch(conversation: string, branch: string): boolean {
  return branch === conversationBranch(conversation);
}

/**
 * The branch of a workspace record: null for a backend without one; for a `worktree`, the
 * recorded branch, or `gatefs/<id>` when none is recorded. Throws `WorkspaceError`
 * `PREPARATION_FAILED` (`BAD_CONVERSATION_ID`) for an id outside its grammar and
 * `STATE_UNTRUSTED` (reason `FORGED_BRANCH`) for a recorded name `prepare` would never have
 * taken (`explicitBranchProblem`): nothing is done with it. Limit: a name `prepare` could have
 * taken (say `main`) passes; what deletes or moves a branch checks more (branch-step.ts).
 */
export function branchOfRecord(record: { conversation: string; backend: Backend; branch: string | null }): string | null {
  checkConversationId(record.conversation);
  if (record.backend !== 'worktree') return null;
  const own = conversationBranch(record.conversation);
  if (record.branch === null || record.branch === own) return own;
  const problem = explicitBranchProblem(record.branch, record.conversation);
  if (problem === null) return record.branch;
  const shown = JSON.stringify(String(record.branch).slice(0, 80));
  throw new WorkspaceError(
    'STATE_UNTRUSTED',
    `the record of '${record.conversation}' names the branch ${shown}, which ${problem}: gatefs never takes such a branch, so nothing is done with it`,
    { conversation: record.conversation, reason: 'FORGED_BRANCH', problem },
  );
}
