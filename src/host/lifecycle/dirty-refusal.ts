/**
 * `dirtyRefusal`: the `DIRTY_WORKTREE` a release answers when the workspace holds work, with the
 * `release.refused` run-log event.
 */
import { terminalSafeLine } from '../../../tools/text/index.js';
import type { StateStore } from '../../state/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { HostPlatform } from '../platform/index.js';
import { checkoutOf } from '../platform/index.js';

/**
 * The DIRTY_WORKTREE refusal for `record`, naming the files and, in its hint, the folder holding
 * them and what can be done there: a worktree's work can be committed on its branch (ignored
 * files cannot: they are deleted or discarded); a copy's changed and new files, and every file of
 * an empty backend's scratch folder, live only in its folder. The hint is for the operator (the CLI), never shown to an agent.
 */
export function dirtyRefusal(
  parts: { readonly store: StateStore; readonly platform: HostPlatform },
  record: WorkspaceRecord,
  files: string[],
): WorkspaceError {
  const { conversation } = record;
  // The names are the agent's: each shown as one line (data.files keeps them exact).
  const shown = files.slice(0, 20).map(terminalSafeLine).join(', ') + (files.length > 20 ? `, … (${files.length} in all)` : '');
  parts.store.runLog.append({
    type: 'release.refused',
    conversation,
    data: { code: 'DIRTY_WORKTREE', files: files.slice(0, 1000), count: files.length },
  });
  const folder = checkoutOf(parts.platform, conversation, record.backend);
  const hint =
    record.backend === 'copy'
      ? `these files exist only in the copy's folder ${folder}: copy out what you want to keep, then release with discard (gatefs release ${conversation} --discard) to delete them`
      : record.backend === 'empty'
        ? `these files exist only in the scratch folder ${folder} (an empty workspace has no repository to commit to): copy out what you want to keep, then release with discard (gatefs release ${conversation} --discard) to delete them`
        : `commit the work on its branch in ${folder} (ignored files cannot be committed: move them out or delete them), ` +
          `or release with discard (gatefs release ${conversation} --discard) to delete it; the branch and its commits are kept either way`;
  const what =
    record.backend === 'copy'
      ? 'changed or new files'
      : record.backend === 'empty'
        ? 'files in its scratch folder'
        : 'work that is not committed (changed, untracked or ignored files)';
  return new WorkspaceError('DIRTY_WORKTREE', `conversation '${conversation}' has ${what}: ${shown}`, { conversation, files, hint });
}
