/**
 * The binding service (docs/ARCHITECTURE.md § Agent model): `attach`, `detach` and `switch` of a
 * conversation, validated here and recorded by the store's binding table
 * (src/state/binding-table.ts: one IMMEDIATE transaction each, one `exclusive-write` holder per
 * workspace across processes). Each change appends its `binding.*` run-log event; a call that
 * changes nothing (the same mode again, the active workspace again) appends none. The
 * conversation's version moves with every change, so its view is opened again on its next call,
 * in this process or another (src/host/lifecycle/registration.ts `followBindings`).
 *
 * Workspaces are named by id or anchor (`/worktrees/<id>`, `/canonical`, `/home`). A `shared`
 * conversation's workspace is the source checkout: naming it means `canonical`.
 *
 * Errors (`WorkspaceError`): `UNKNOWN_CONVERSATION` (no such conversation or workspace, a failed
 * one, an id outside the grammar, `home` to attach or detach: it is never bound), `BUSY` (still
 * being prepared), `WORKSPACE_RELEASED`, `OCCUPIED` (data.holder: who holds it exclusive-write),
 * `NOT_ATTACHED` (data.workspace, data.attached: the anchors it holds; data.own for the own
 * workspace, which cannot be detached).
 */
import { isConversationId } from '../../../vfs/index.js';
import { CANONICAL_WORKSPACE, HOME_WORKSPACE, type BindingMode, type BindingRecord, type StateStore } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { anchorOf } from '../views/index.js';
import { defaultAgentOf } from '../platform/index.js';

/** What the service uses of the host. */
export interface BindingParts {
  readonly store: StateStore;
}

/** A binding as the host answers it: the record and its anchor. */
export type BindingResult = BindingRecord & { anchor: string };

/** A switch as the host answers it: the new active workspace and the one before. */
export interface SwitchResult {
  conversation: string;
  /** The active workspace id now (`home`, `canonical`, the own or an attached conversation id). */
  workspace: string;
  anchor: string;
  /** The active workspace id before. */
  from: string;
}

/** A detach as the host answers it: the ended binding and the active workspace after it. */
export type DetachResult = BindingResult & { active: string };

/** The workspace id a workspace argument names (an id or an anchor), as given. */
export function workspaceIdOf(ref: string): string {
  if (ref === '/canonical') return CANONICAL_WORKSPACE;
  if (ref === '/home') return HOME_WORKSPACE;
  const m = /^\/worktrees\/([^/]+)\/?$/.exec(ref);
  return m ? m[1]! : ref;
}

/**
 * Binds `workspace` for `conversation` in `mode` (see the file comment): another conversation's
 * ready workspace, `canonical`, or its own (`shared-read` gives write up, `exclusive-write` takes
 * it back).
 */
export function attachWorkspace(parts: BindingParts, conversation: string, workspace: string, mode: BindingMode): BindingResult {
  const { store } = parts;
  const backend = readyBackend(store, conversation);
  const id = boundId(store, conversation, backend, workspaceIdOf(workspace), 'attach');
  const before = store.bindings.bindingsOf(conversation).find((b) => b.workspace === id);
  const record = withOccupiedHint(() => store.bindings.attach(conversation, id, mode));
  if (record.id !== before?.id) {
    store.runLog.append({
      type: 'binding.attach',
      conversation,
      data: { workspace: id, mode, ...(before ? { previous: before.mode } : {}) },
    });
  }
  return { ...record, anchor: anchorOf(id) };
}

/** Ends `conversation`'s binding of `workspace`; the own workspace active again when it was the active one. */
export function detachWorkspace(parts: BindingParts, conversation: string, workspace: string): DetachResult {
  const { store } = parts;
  const backend = readyBackend(store, conversation);
  const id = boundId(store, conversation, backend, workspaceIdOf(workspace), 'detach');
  if (id === conversation) {
    throw new WorkspaceError(
      'NOT_ATTACHED',
      `'${conversation}' cannot detach its own workspace; attach it shared-read to give its write up`,
      { conversation, workspace: id, own: true, attached: attachedAnchors(store, conversation) },
    );
  }
  const activeBefore = store.bindings.stateOf(conversation)?.active ?? conversation;
  const ended = store.bindings.detach(conversation, id);
  if (!ended) throw notAttached(store, conversation, id);
  store.runLog.append({ type: 'binding.detach', conversation, data: { workspace: id, mode: ended.mode } });
  const active = store.bindings.stateOf(conversation)?.active ?? conversation;
  if (active !== activeBefore)
    store.runLog.append({ type: 'binding.switch', conversation, data: { workspace: active, from: activeBefore } });
  return { ...ended, anchor: anchorOf(id), active: anchorOf(active) };
}

/** Makes `workspace` (own, `home`, or attached) `conversation`'s active workspace. */
export function switchWorkspace(parts: BindingParts, conversation: string, workspace: string): SwitchResult {
  const { store } = parts;
  const backend = readyBackend(store, conversation);
  let id = workspaceIdOf(workspace);
  if (id !== HOME_WORKSPACE && id !== conversation) id = boundId(store, conversation, backend, id, 'switch');
  const state = store.bindings.stateOf(conversation) ?? register(store, conversation, backend);
  const held = id === conversation || id === HOME_WORKSPACE || store.bindings.bindingsOf(conversation).some((b) => b.workspace === id);
  if (!held) throw notAttached(store, conversation, id);
  if (state.active !== id) {
    store.bindings.switchTo(conversation, id);
    store.runLog.append({ type: 'binding.switch', conversation, data: { workspace: id, from: state.active } });
  }
  return { conversation, workspace: id, anchor: anchorOf(id), from: state.active };
}

/** The backend of `conversation`'s ready workspace (registered in the agent model if it was prepared before it). */
function readyBackend(store: StateStore, conversation: string): string {
  const record = isConversationId(conversation) ? store.workspaces.get(conversation) : null;
  if (!record || record.state === 'failed') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${String(conversation).slice(0, 64)}'`, {
      conversation,
    });
  }
  if (record.state === 'preparing') throw new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation });
  if (record.state === 'released') {
    throw new WorkspaceError('WORKSPACE_RELEASED', `the workspace of '${conversation}' was released`, { conversation });
  }
  if (!store.bindings.stateOf(conversation)) register(store, conversation, record.backend);
  return record.backend;
}

/** Records a conversation prepared before the agent model (its role's default agent name as its agent). */
function register(store: StateStore, conversation: string, backend: string) {
  const record = store.workspaces.get(conversation);
  store.bindings.register(conversation, defaultAgentOf(record?.role ?? conversation), backend !== 'shared');
  return store.bindings.stateOf(conversation)!;
}

/**
 * The workspace id `id` binds for `conversation`: `canonical`, its own (isolated) id, or another
 * ready conversation's id; a `shared` conversation's workspace (its own included) is `canonical`.
 */
function boundId(store: StateStore, conversation: string, backend: string, id: string, op: string): string {
  if (id === CANONICAL_WORKSPACE) return id;
  if (id === HOME_WORKSPACE) {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `'home' is never bound: every conversation sees its agent's home at /home (${op})`, {
      conversation,
      workspace: id,
    });
  }
  if (id === conversation) return backend === 'shared' ? CANONICAL_WORKSPACE : id;
  const record = isConversationId(id) ? store.workspaces.get(id) : null;
  if (!record || record.state === 'failed') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${id.slice(0, 80)}'`, { conversation, workspace: id });
  }
  if (record.state === 'released') {
    // Detach of a binding the release already ended: nothing is held.
    if (op !== 'attach') throw notAttached(store, conversation, id);
    throw new WorkspaceError('WORKSPACE_RELEASED', `the workspace of '${id}' was released`, { conversation, workspace: id });
  }
  if (record.state === 'preparing') throw new WorkspaceError('BUSY', `the workspace of '${id}' is being prepared`, { workspace: id });
  return record.backend === 'shared' ? CANONICAL_WORKSPACE : id;
}

/**
 * Runs the table's attach; its `OCCUPIED` gains `data.hint` (the CLI prints it): how the holder
 * lets go of the workspace. Without it the CLI printed the hint of a session's occupancy.
 */
function withOccupiedHint<T>(attach: () => T): T {
  try {
    return attach();
  } catch (e) {
    if (!(e instanceof WorkspaceError) || e.code !== 'OCCUPIED') throw e;
    const { workspace, holder } = e.data as { workspace?: unknown; holder?: unknown };
    const hint =
      holder === workspace
        ? `'${holder}' holds its own workspace from preparation: gatefs attach ${holder} ${holder} --mode shared-read gives its write up`
        : `gatefs detach ${holder} ${workspace}, or gatefs attach ${holder} ${workspace} --mode shared-read ends the write of '${holder}'`;
    throw new WorkspaceError('OCCUPIED', e.message, { ...e.data, hint }, { cause: e });
  }
}

function notAttached(store: StateStore, conversation: string, id: string): WorkspaceError {
  const attached = attachedAnchors(store, conversation);
  return new WorkspaceError(
    'NOT_ATTACHED',
    `'${conversation}' holds no binding of ${anchorOf(id)}; it has attached ${attached.length > 0 ? attached.join(', ') : 'nothing'}`,
    { conversation, workspace: id, attached },
  );
}

/** The anchors of what `conversation` has attached (its own left out). */
function attachedAnchors(store: StateStore, conversation: string): string[] {
  return store.bindings
    .bindingsOf(conversation)
    .filter((b) => b.workspace !== conversation)
    .map((b) => anchorOf(b.workspace));
}
