/**
 * `workOf`: what in a workspace is work that a release must not delete unasked — the check of
 * `releaseWorkspace` (step 2). Changed, untracked and ignored files of a worktree
 * (`git status --ignored`, fsmonitor off, and the files inside submodule folders never checked
 * out, which git does not report: src/host/lifecycle/worktree-work-files.ts), every file of a copy's upper folder (deletions show
 * as `(deleted files)`), every file (and link) of an empty backend's scratch folder — only folders
 * are not work there — and nothing for `shared`. The folder is the derived one
 * (`<stateDir>/worktrees/<id>`, `copies/<id>`, `scratch/<id>`), looked at without following a link.
 */
import type { GitContext, WorktreeInfo } from '../../git/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { OVERLAY_META } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { HostPlatform } from '../platform/index.js';
import { branchOfRecord, checkoutOf } from '../platform/index.js';
import { worktreeWorkFiles } from './worktree-work-files.js';

/**
 * The files that are work — changed, untracked or ignored — in `record`'s workspace, sorted
 * ([] when its folder is missing). A worktree folder git does not know as its worktree has
 * every file counted. With `discard` a failing check counts as work instead of stopping the
 * release. Throws `WorkspaceError` `STATE_UNTRUSTED` when the folder is a link or not a
 * folder or its record names a branch prepare never takes (`FORGED_BRANCH`), `DIRTY_WORKTREE`
 * when the worktree's HEAD left its branch, `gatefs/<id>` or the explicit one (even with `discard`:
 * its commits would be left unreachable), and what git throws (without `discard`).
 */
export async function workOf(platform: HostPlatform, record: WorkspaceRecord, context: GitContext, discard: boolean): Promise<string[]> {
  if (record.backend === 'shared') return [];
  const path = checkoutOf(platform, record.conversation, record.backend);
  const found = platform.folderState(path);
  if (found === 'missing') return [];
  if (found !== 'folder') {
    throw new WorkspaceError(
      'STATE_UNTRUSTED',
      `the workspace folder '${path}' is ${found === 'link' ? 'a symbolic link' : 'not a folder'}: gatefs did not make it and removes nothing through it`,
      {
        conversation: record.conversation,
        reason: 'LINK_IN_STATE_DIR',
        hint: 'remove it by hand after checking what it points to',
      },
    );
  }
  if (record.backend === 'copy') return copyWork(platform, path);
  if (record.backend === 'empty') return platform.listFiles(path);
  return worktreeWork(platform, record, path, context, discard);
}

/** Every file of a copy's upper folder (deletions shown once, as `(deleted files)`). */
function copyWork(platform: HostPlatform, path: string): string[] {
  return platform
    .listFiles(path)
    .map((f) => (f.startsWith(`${OVERLAY_META}/`) ? '(deleted files)' : f))
    .filter((f, i, all) => all.indexOf(f) === i);
}

/** The work of the worktree at `path` (see `workOf`). */
async function worktreeWork(
  platform: HostPlatform,
  record: WorkspaceRecord,
  path: string,
  context: GitContext,
  discard: boolean,
): Promise<string[]> {
  let here: WorktreeInfo | undefined;
  try {
    here = (await platform.git.listWorktrees(context)).find((w) => platform.relativeInside(w.path, path) === '');
    if (!here) return platform.listFiles(path).filter((f) => f !== '.git');
  } catch (e) {
    if (discard) return ['(unknown: the check failed)'];
    throw e;
  }
  refuseHeadElsewhere(record, here);
  try {
    return await worktreeWorkFiles(platform, path, context);
  } catch (e) {
    if (discard) return ['(unknown: the check failed)'];
    throw e;
  }
}

/**
 * `DIRTY_WORKTREE` when the worktree's HEAD left its branch (detached, another branch):
 * commits made there would be left unreachable, so it is never removed, even with discard.
 */
function refuseHeadElsewhere(record: WorkspaceRecord, here: WorktreeInfo): void {
  const { conversation } = record;
  const branch = branchOfRecord(record)!;
  if (here.branch === `refs/heads/${branch}`) return;
  const at = here.branch ? `on ${here.branch.replace(/^refs\/heads\//, '')}` : `detached at ${here.head?.slice(0, 12) ?? 'no commit'}`;
  throw new WorkspaceError(
    'DIRTY_WORKTREE',
    `conversation '${conversation}' has its HEAD ${at}, not on ${branch}: its commits could be lost`,
    {
      conversation,
      files: [`(HEAD ${at})`],
      hint: `check out ${branch} in the worktree again, or put those commits on a branch first; discard does not remove commits`,
    },
  );
}
