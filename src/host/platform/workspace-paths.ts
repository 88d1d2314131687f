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
export type WorkspaceArea = 'worktrees' | 'copies' | 'scratch' | 'lowers' | 'exec' | 'homes';

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
 * The host folder of agent identity `agent`'s home (`/home` in its conversations' namespaces):
 * `<stateDir>/homes/<agent>`. The agent name follows the conversation grammar; throws
 * `WorkspaceError` `PREPARATION_FAILED` (data.reason `BAD_AGENT_NAME`) otherwise.
 */
export function homeFolderOf(base: PathBase, agent: string): string {
  if (!isConversationId(agent)) {
    throw new WorkspaceError(
      'PREPARATION_FAILED',
      `'${String(agent).slice(0, 80)}' is not a valid agent name (^[a-z0-9][a-z0-9_-]{0,62}$)`,
      {
        agent: String(agent).slice(0, 80),
        reason: 'BAD_AGENT_NAME',
      },
    );
  }
  return base.join(base.stateDir, `homes/${agent}`);
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

/**
 * The name grammar of a handoff's artifact folder, `<role>-v<visit>`: a folder-safe role name
 * (`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`, checked at manifest load for roles that hand off) and a
 * visit number from 1.
 */
export const ARTIFACT_FOLDER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}-v[1-9][0-9]{0,8}$/;

/** The folder of the seed inventories of a run's shared receivers (no `-v<n>` suffix: never a handoff's folder). */
const INVENTORY_FOLDER = 'inventory';

/**
 * The host folder of one handoff's collected artifacts, `<stateDir>/artifacts/<run>/<folder>`
 * (`folder` is `<role>-v<visit>`, as `handoffs.folder` records it). Both are checked before they
 * become path parts, so a forged record never names a path: throws `WorkspaceError`
 * `PREPARATION_FAILED` with data.reason `BAD_RUN_NAME` (a run outside the conversation grammar)
 * or `BAD_ARTIFACT_FOLDER` (a folder outside `ARTIFACT_FOLDER`).
 */
export function artifactFolderOf(base: PathBase, run: string, folder: string): string {
  checkRunName(run);
  if (typeof folder !== 'string' || !ARTIFACT_FOLDER.test(folder)) {
    throw new WorkspaceError('PREPARATION_FAILED', `'${String(folder).slice(0, 80)}' is not an artifact folder name (<role>-v<visit>)`, {
      run,
      folder: String(folder).slice(0, 80),
      reason: 'BAD_ARTIFACT_FOLDER',
    });
  }
  return base.join(base.stateDir, `artifacts/${run}/${folder}`);
}

/**
 * The host folder a `shared` receiver's seed inventory is written to and shown from (at
 * namespace path `/artifacts`), `<stateDir>/artifacts/<run>/inventory/<conversation>`. Throws
 * `WorkspaceError` `PREPARATION_FAILED` (data.reason `BAD_RUN_NAME` or `BAD_CONVERSATION_ID`)
 * for a name outside its grammar.
 */
export function inventoryFolderOf(base: PathBase, run: string, conversation: string): string {
  checkRunName(run);
  checkConversationId(conversation);
  return base.join(base.stateDir, `artifacts/${run}/${INVENTORY_FOLDER}/${conversation}`);
}

/** The name no run may have: the artifact store's objects live in `<stateDir>/artifacts/objects`. */
const RESERVED_RUN = 'objects';

/** Throws `WorkspaceError` `PREPARATION_FAILED` (data.reason `BAD_RUN_NAME`) unless `run` is in the conversation grammar and not `objects`. */
export function checkRunName(run: string): void {
  // `objects` is the artifact store's own folder, `<stateDir>/artifacts/objects`: no run may be named so.
  if (!isConversationId(run) || run === RESERVED_RUN) {
    const why =
      run === RESERVED_RUN
        ? "'objects' is reserved (the artifact store's own folder): name the run otherwise"
        : "lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 63";
    throw new WorkspaceError('PREPARATION_FAILED', `'${String(run).slice(0, 80)}' is not a valid run name (${why})`, {
      run: String(run).slice(0, 80),
      reason: 'BAD_RUN_NAME',
    });
  }
}
