/**
 * Where a workspace lives on the host, derived — never read from a record (docs/ARCHITECTURE.md
 * § Trust boundary, "Derived paths": no host path is taken from a record). A `worktree` workspace is
 * `<stateDir>/worktrees/<id>` on branch `gatefs/<id>`, a `copy` workspace's upper folder
 * `<stateDir>/copies/<id>`, an `empty` workspace the scratch folder `<stateDir>/scratch/<id>`
 * (no branch, no repository), and a `shared` workspace the repository itself. The id is
 * validated before it becomes a path part or a branch name, so a record can neither name a
 * folder to open or remove nor a branch (say `main`) to delete.
 */
import { conversationBranch } from '../../git/index.js';
import { isConversationId } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { Backend } from '../../manifest/index.js';

/** The state-directory folders that hold workspaces, one per backend that has its own folder. */
export type WorkspaceArea = 'worktrees' | 'copies' | 'scratch' | 'lowers' | 'exec';

/** What deriving a path needs from the platform. */
export interface PathBase {
  readonly repo: string;
  readonly stateDir: string;
  join(path: string, tail: string): string;
}

/** The area of a backend's workspaces, or null for `shared` (the repository itself). */
function areaOf(backend: Backend): WorkspaceArea | null {
  switch (backend) {
    case 'worktree':
      return 'worktrees';
    case 'copy':
      return 'copies';
    case 'empty':
      return 'scratch';
    case 'shared':
      return null;
  }
}

/**
 * The host folder of `conversation`'s workspace for `backend` (see the file comment). Throws
 * `WorkspaceError` `PREPARATION_FAILED` (data.reason `BAD_CONVERSATION_ID`) for an id outside
 * the conversation grammar, so a forged record can never name a path.
 */
export function checkoutOf(base: PathBase, conversation: string, backend: Backend): string {
  checkConversationId(conversation);
  const area = areaOf(backend);
  return area ? base.join(base.stateDir, `${area}/${conversation}`) : base.repo;
}

/**
 * The branch gatefs made for a `worktree` workspace (`gatefs/<id>`), or null for the other
 * backends. Throws like `checkoutOf` for an id outside the grammar.
 */
export function branchOf(conversation: string, backend: Backend): string | null {
  checkConversationId(conversation);
  return backend === 'worktree' ? conversationBranch(conversation) : null;
}

/**
 * Throws `WorkspaceError` `PREPARATION_FAILED` (data.reason `BAD_CONVERSATION_ID`) unless
 * `conversation` is in the conversation grammar (docs/ARCHITECTURE.md § Glossary, "conversation").
 */
export function checkConversationId(conversation: string): void {
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
}
