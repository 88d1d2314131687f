/**
 * `bindingRequestsOf`: the `attach`, `detach` and `switch` tools' port of one conversation
 * (tools/binding-requests.ts) over the binding service. The role's `attach_mode` is the strongest
 * mode its `attach` may take: a stronger one answers `TOOL_NOT_ALLOWED` (the role's declaration
 * does not allow it, as with an undeclared tool; `READ_ONLY` stays the answer of a change refused
 * at a path). Host refusals become tool codes with messages of their own, naming ids and anchors
 * only: `BUSY` (being prepared) → `WORKSPACE_NOT_READY`; the own workspace to detach →
 * `INVALID_INPUT`; `UNKNOWN_CONVERSATION`, `WORKSPACE_RELEASED`, `OCCUPIED`, `NOT_ATTACHED` as they are.
 */
import type { AttachMode, BindingRequests } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';
import { findRole, type Manifest } from '../../manifest/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { anchorOf } from '../views/index.js';
import { attachWorkspace, detachWorkspace, switchWorkspace, type BindingParts } from './binding-service.js';

/** The port of `conversation` (see the file comment). */
export function bindingRequestsOf(parts: BindingParts & { readonly manifest: Manifest }, conversation: string): BindingRequests {
  return {
    attach: async (workspace, mode = 'shared-read') => {
      const role = parts.store.workspaces.get(conversation)?.role;
      const allowed: AttachMode = role ? findRole(parts.manifest, role).attachMode : 'shared-read';
      if (mode === 'exclusive-write' && allowed !== 'exclusive-write') {
        throw new ToolFailure(
          'TOOL_NOT_ALLOWED',
          `the role '${role}' may attach shared-read only (its attach_mode); attach with mode shared-read, or ask the operator (gatefs attach --mode exclusive-write)`,
        );
      }
      const r = asTool(() => attachWorkspace(parts, conversation, workspace, mode));
      return { workspace: r.workspace, anchor: r.anchor, mode: r.mode, acquiredAt: r.acquiredAt };
    },
    detach: async (workspace) => {
      const r = asTool(() => detachWorkspace(parts, conversation, workspace));
      return { workspace: r.workspace, anchor: r.anchor, mode: r.mode, active: r.active };
    },
    switch: async (workspace) => {
      const r = asTool(() => switchWorkspace(parts, conversation, workspace));
      return { workspace: r.workspace, anchor: r.anchor, from: anchorOf(r.from) };
    },
  };
}

/** Runs a service call, its `WorkspaceError` answered as a tool code (see the file comment). */
function asTool<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    if (!(e instanceof WorkspaceError)) throw e;
    const data = e.data as { workspace?: unknown; own?: unknown; attached?: unknown };
    const workspace = typeof data.workspace === 'string' ? data.workspace : undefined;
    switch (e.code) {
      case 'NOT_ATTACHED':
        if (data.own === true)
          throw new ToolFailure('INVALID_INPUT', 'your own workspace cannot be detached; attach it shared-read to give its write up');
        throw new ToolFailure('NOT_ATTACHED', e.message, undefined, { attached: data.attached });
      case 'BUSY':
        throw new ToolFailure(
          'WORKSPACE_NOT_READY',
          `the workspace${workspace ? ` '${workspace}'` : ''} is still being prepared; retry once it is`,
        );
      case 'UNKNOWN_CONVERSATION':
      case 'WORKSPACE_RELEASED':
      case 'OCCUPIED':
        throw new ToolFailure(e.code, e.message);
      default:
        throw e;
    }
  }
}
