/**
 * Where a workspace lives on the host, derived — never read from a record (DESIGN.md "Trust
 * boundary": no host path is taken from a record). A `worktree` workspace is
 * `<stateDir>/worktrees/<id>`, a `copy` workspace's upper folder `<stateDir>/copies/<id>`, and
 * a `shared` workspace the repository itself. The id is validated before it becomes a path part.
 */
import { isConversationId } from '../../vfs/registry.js';
import { WorkspaceError } from '../workspace-error.js';
import type { Backend } from './types.js';

/** The state-directory folders that hold workspaces, one per backend that has its own folder. */
export type WorkspaceArea = 'worktrees' | 'copies';

/** What deriving a path needs from the platform. */
export interface PathBase {
  readonly repo: string;
  readonly stateDir: string;
  join(path: string, tail: string): string;
}

/** The area of a backend's workspaces, or null for `shared` (the repository itself). */
export function areaOf(backend: Backend): WorkspaceArea | null {
  return backend === 'worktree' ? 'worktrees' : backend === 'copy' ? 'copies' : null;
}

/**
 * The host folder of `conversation`'s workspace for `backend` (see the file comment). Throws
 * `WorkspaceError` `PREPARATION_FAILED` (data.reason `BAD_CONVERSATION_ID`) for an id outside
 * the conversation grammar, so a forged record can never name a path.
 */
export function checkoutOf(base: PathBase, conversation: string, backend: Backend): string {
  if (!isConversationId(conversation)) {
    throw new WorkspaceError('PREPARATION_FAILED', `'${String(conversation).slice(0, 80)}' is not a valid conversation id (^[a-z0-9][a-z0-9_-]{0,62}$)`, {
      conversation: String(conversation).slice(0, 80),
      reason: 'BAD_CONVERSATION_ID',
    });
  }
  const area = areaOf(backend);
  return area ? base.join(base.stateDir, `${area}/${conversation}`) : base.repo;
}
