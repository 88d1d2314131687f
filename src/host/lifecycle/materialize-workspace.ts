/**
 * `materialize`: the preparation of a workspace that is not ready (new, released, or whose
 * checkout vanished): the base is chosen (choose-base.ts), the workspace recorded `preparing`
 * before anything is created and registered so (the gate answers `WORKSPACE_NOT_READY`), then
 * what its backend needs is created — the disclosure state and the worktree, the copy's
 * upper folder, or the empty backend's scratch folder — each recorded in `data.created` before it is created, and the workspace
 * registered `ready` only once its checkout exists and its visit is recorded (run-visit.ts). On failure exactly what was created is
 * removed (`rollbackPreparation`) and the record forgotten.
 */
import { sparseCheckoutOf } from '../../disclosure/index.js';
import { startDisclosure } from '../../disclosure/index.js';
import { conversationBranch, type GitContext } from '../../git/index.js';
import type { Role } from '../../manifest/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import type { WorkspaceError } from '../../workspace-error.js';
import type { HostPlatform } from '../platform/index.js';
import { branchOfRecord, checkoutOf } from '../platform/index.js';
import { chooseBase, resumePin } from './choose-base.js';
import { askedBranch } from './choose-branch.js';
import { asPreparationError, failure, markLogged } from './preparation-error.js';
import { closeView, registerReady, registrationOf, type RegistrationParts } from './registration.js';
import { rollbackPreparation } from './rollback-preparation.js';
import { startRunVisit } from './run-visit.js';
import { workspaceData, type CreatedByPreparation, type WorkspaceData } from './workspace-data.js';
import type { PrepareOptions } from './workspace-types.js';

/** A workspace being prepared: its latest stored record and the data being written into it. */
interface Draft {
  record: WorkspaceRecord;
  readonly data: WorkspaceData;
}

/**
 * Materializes a workspace that is not ready: chooses the base, records the workspace
 * `preparing`, then creates what its backend needs; on failure undoes exactly what it created.
 */
export async function materialize(
  parts: RegistrationParts,
  role: Role,
  options: PrepareOptions,
  context: GitContext,
): Promise<WorkspaceRecord> {
  const base = await chooseBase(parts, role.workspace.backend, options, context);
  const draft = await recordPreparing(parts, role, options, context, base);
  try {
    return await build(parts, role, context, draft, options.run);
  } catch (e) {
    throw await abandon(parts, draft.record, context, e);
  }
}

/** Stores the workspace `preparing`, before anything is created, and registers it so. */
async function recordPreparing(
  parts: RegistrationParts,
  role: Role,
  options: PrepareOptions,
  context: GitContext,
  base: { baseRef: string | null; pinnedSha: string | null },
): Promise<Draft> {
  const { store } = parts;
  const { conversation } = options;
  const backend = role.workspace.backend;
  const checkoutPath = checkoutOf(parts.platform, conversation, backend);
  const explicit = backend === 'worktree' ? askedBranch(options) : null;
  const branch = backend === 'worktree' ? (explicit ?? conversationBranch(conversation)) : null;
  const data: WorkspaceData = { tools: [...role.tools], mounts: role.workspace.mounts.map((m) => ({ ...m })), created: {} };
  if (branch !== null && madeEarlier(store.workspaces.get(conversation), branch)) data.branchMade = true;
  const record = store.workspaces.put({
    conversation,
    role: role.name,
    backend,
    guarantee: backend === 'shared' ? 'none' : 'confined',
    state: 'preparing',
    branch,
    baseRef: base.baseRef,
    pinnedSha:
      backend === 'worktree' && options.baseRef === undefined && explicit === null
        ? await resumePin(parts, conversation, base.pinnedSha, context)
        : base.pinnedSha,
    checkoutPath,
    data: { ...data },
  });
  store.runLog.append({
    type: 'prepare.start',
    conversation,
    data: { role: role.name, backend, baseRef: base.baseRef, pinnedSha: record.pinnedSha, ...(explicit ? { branch: explicit } : {}) },
  });
  parts.registry.set(registrationOf(record, 'preparing'));
  return { record, data };
}

/**
 * Creates what the backend needs (the disclosure state and the worktree, or the copy folder),
 * recording each thing in the draft before creating it, then registers the workspace `ready`.
 */
async function build(
  parts: RegistrationParts,
  role: Role,
  context: GitContext,
  draft: Draft,
  run: string | undefined,
): Promise<WorkspaceRecord> {
  const { store } = parts;
  const { conversation } = draft.record;
  const backend = role.workspace.backend;
  const save = () => {
    draft.record = store.workspaces.update(conversation, { data: { ...draft.data } });
  };
  const markCreated = (created: CreatedByPreparation) => {
    draft.data.created = { ...draft.data.created, ...created };
    save();
  };
  const policy = role.workspace.progressiveDisclosure;
  if (backend === 'worktree' && policy && draft.record.pinnedSha) {
    draft.data.disclosure = await startDisclosure(parts, conversation, draft.record.pinnedSha, policy);
    save();
  }
  if (backend === 'worktree') {
    draft.data.reused = await checkOutWorktree(parts.platform, draft.record, context, markCreated);
    if (draft.data.created.branch) draft.data.branchMade = true;
  }
  if (backend === 'copy') {
    makeOwnFolder(parts.platform, conversation, 'copy', markCreated);
    // A lower folder an earlier workspace of this id left (it may hold another commit).
    await parts.lowers?.remove(conversation);
  }
  if (backend === 'empty') makeOwnFolder(parts.platform, conversation, 'empty', markCreated);
  save();
  // Last before serving: a visit lost to a concurrent preparer throws, and what was made is rolled back.
  startRunVisit(store, conversation, role, run);
  registerReady(parts, draft.record);
  draft.record = store.workspaces.update(conversation, { state: 'ready' });
  store.runLog.append({
    type: 'prepare.ready',
    conversation,
    data: { backend, pinnedSha: draft.record.pinnedSha, branch: draft.record.branch, reused: draft.data.reused ?? false },
  });
  return draft.record;
}

/**
 * Creates the copy's upper folder or the empty backend's scratch folder when missing (recorded
 * first); an existing folder is kept (a workspace whose release or preparation a crash cut short:
 * what it holds is work), anything else refused (`PATH_EXISTS`).
 */
function makeOwnFolder(
  platform: HostPlatform,
  conversation: string,
  backend: 'copy' | 'empty',
  markCreated: (created: CreatedByPreparation) => void,
): void {
  const checkoutPath = checkoutOf(platform, conversation, backend);
  const found = platform.folderState(checkoutPath);
  if (found === 'missing') {
    markCreated({ folder: true });
    // Private like the state directory's other areas: the trust check refuses a scratch area others may write.
    platform.makeFolder(checkoutPath, 0o700);
  } else if (found !== 'folder') {
    throw failure(
      conversation,
      'PATH_EXISTS',
      `'${checkoutPath}' exists and is ${found === 'link' ? 'a symbolic link' : 'not a folder'}: it is left untouched`,
    );
  }
}

/**
 * After a failed preparation: removes exactly what `record` says was created, forgets the
 * workspace, logs `prepare.failed` once, and returns the error to throw (a `WorkspaceError`).
 */
async function abandon(parts: RegistrationParts, record: WorkspaceRecord, context: GitContext, e: unknown): Promise<WorkspaceError> {
  const { store } = parts;
  const { conversation } = record;
  const report = await rollbackPreparation(parts, record, context);
  closeView(parts.views, conversation);
  parts.registry.delete(conversation);
  store.workspaces.delete(conversation);
  const error = asPreparationError(e, conversation);
  store.runLog.append({
    type: 'prepare.failed',
    conversation,
    data: { code: error.code, reason: error.data.reason ?? null, message: error.message, rollback: { ...report } },
  });
  markLogged(error);
  return error;
}

/** Creates (or safely reuses) the worktree. Result: true when an existing worktree was reused. */
async function checkOutWorktree(
  platform: HostPlatform,
  record: WorkspaceRecord,
  context: GitContext,
  markCreated: (created: CreatedByPreparation) => void,
): Promise<boolean> {
  const path = checkoutOf(platform, record.conversation, 'worktree');
  const branch = branchOfRecord(record)!;
  if (platform.exists(path)) {
    const here = (await platform.git.listWorktrees(context)).find((w) => platform.relativeInside(w.path, path) === '');
    if (here?.branch === `refs/heads/${branch}`) return true;
    const what = here ? `a worktree of ${here.branch ?? 'a detached HEAD'}` : 'not a worktree';
    throw failure(
      record.conversation,
      here ? 'WORKTREE_CONFLICT' : 'PATH_EXISTS',
      `'${path}' exists and is ${what}, not of ${branch}: it is left untouched`,
    );
  }
  const existingBranch = (await platform.git.branchHead(branch, context)) !== null;
  markCreated(existingBranch ? { worktree: true } : { worktree: true, branch: true });
  await platform.git.addWorktree({ path, branch, base: record.pinnedSha!, existingBranch, ...sparseCheckoutOf(record.data) }, context);
  return false;
}

/**
 * True when the released record `previous` shows gatefs made `branch` for this conversation
 * before: checking it out again keeps it gatefs's own (see `WorkspaceData.branchMade`).
 */
function madeEarlier(previous: WorkspaceRecord | null | undefined, branch: string): boolean {
  return previous?.state === 'released' && previous.branch === branch && workspaceData(previous).branchMade === true;
}
