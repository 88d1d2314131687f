/**
 * `operatorWork`: diff, commit and submit for a conversation's workspace as an operator (the
 * CLI's `gatefs diff|commit|submit`): the same service the tools call, found through the
 * registry, whatever tools the role declares.
 */
import type { WorkRequests } from '../../../tools/index.js';
import { isConversationId } from '../../../vfs/index.js';
import type { Registry } from '../../gate/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/**
 * The work service of `conversation`'s ready workspace. Throws `WorkspaceError`
 * `UNKNOWN_CONVERSATION` (none, not ready, released, or not an id) or `BACKEND_UNAVAILABLE`
 * (not a git worktree).
 */
export function operatorWork(registry: Pick<Registry, 'lookup'>, conversation: string): WorkRequests {
  const registration = isConversationId(conversation) ? registry.lookup(conversation) : undefined;
  if (registration?.state !== 'ready') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
  }
  if (!registration.work) {
    throw new WorkspaceError(
      'BACKEND_UNAVAILABLE',
      `the workspace of '${conversation}' is not a git worktree: it has no branch to diff, commit or submit`,
      {
        conversation,
        hint: `a copy workspace's changes go home with gatefs apply ${conversation}, and gatefs apply ${conversation} --dry-run shows first what it would write; a shared one works in the checkout itself`,
      },
    );
  }
  return registration.work;
}
