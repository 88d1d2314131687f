/**
 * `emptyWork`: the way home of an `empty` workspace, which has none: a scratch folder with no
 * repository behind it has nothing to diff against, no branch to commit to and nothing to land.
 * `diff`, `commit` and `submit` answer `BACKEND_UNAVAILABLE` naming that, instead of the generic
 * "not a git worktree"; `messages` (landing reports) likewise, as no submission can come from it.
 */
import type { WorkRequests } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';

/** The `WorkRequests` of the empty workspace of `conversation`: every request refused (see the file comment). */
export function emptyWork(conversation: string): WorkRequests {
  const refuse = (what: string): never => {
    throw new ToolFailure(
      'BACKEND_UNAVAILABLE',
      `the workspace of '${conversation}' has backend empty: a scratch folder with no repository, so ${what}; its files stay in the folder (read, write, exec work there)`,
    );
  };
  return {
    diff: async () => refuse('it has no commit to diff against'),
    commit: async () => refuse('it has no branch to commit to'),
    submit: async () => refuse('it has nothing to land'),
    messages: async () => refuse('it cannot submit work, and no landing messages come to it'),
  };
}
