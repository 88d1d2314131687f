/**
 * `BindingRequests`: the port `attach`, `detach` and `switch` call to change the caller's bindings
 * (docs/ARCHITECTURE.md § Agent model). Declared here, by the tools that need it, so tools/
 * depends on nothing outside vfs/; the host implements it (src/host/agents/) and hands it to the
 * tools as `ToolContext.bindings`, scoped to one conversation: a tool only ever changes its own
 * conversation's bindings.
 *
 * A workspace is named by its id (another conversation's id, `canonical`, `home`) or its anchor
 * (`/worktrees/<id>`, `/canonical`, `/home`). Values name namespace anchors only, never a host
 * path. Refusals are thrown as `ToolFailure` with the public codes: `NOT_ATTACHED`, `OCCUPIED`,
 * `TOOL_NOT_ALLOWED` (a mode stronger than the role's `attach_mode`), `UNKNOWN_CONVERSATION`,
 * `WORKSPACE_NOT_READY`, `WORKSPACE_RELEASED`, `INVALID_INPUT`.
 */
import { ToolFailure } from './result.js';

/** How a binding may use its workspace. */
export type AttachMode = 'shared-read' | 'exclusive-write';

/** A binding as the tools show it. */
export interface BindingValue {
  /** The workspace id: another conversation's id, or `canonical` (own: the caller's own id). */
  workspace: string;
  /** Where it shows: `/worktrees/<id>` or `/canonical`. */
  anchor: string;
  mode: AttachMode;
  /** When the binding was made (ms since the epoch, the host's clock). */
  acquiredAt: number;
}

/** The value of `detach`: the ended binding and the active workspace's anchor after it. */
export interface DetachValue {
  workspace: string;
  anchor: string;
  mode: AttachMode;
  /** The active workspace's anchor now (the own root when the detached one was active). */
  active: string;
}

/** The value of `switch`: the new active workspace and the one it replaced. */
export interface SwitchValue {
  workspace: string;
  /** Relative paths resolve here from the next call on. */
  anchor: string;
  /** The anchor that was active before. */
  from: string;
}

/** One conversation's bindings, as the tools see them. */
export interface BindingRequests {
  /** Binds `workspace` in `mode` (default `shared-read`). */
  attach(workspace: string, mode: AttachMode | undefined): Promise<BindingValue>;
  /** Ends the binding of `workspace`. */
  detach(workspace: string): Promise<DetachValue>;
  /** Makes `workspace` (own, `home`, or attached) the active one. */
  switch(workspace: string): Promise<SwitchValue>;
}

/** The conversation's binding port, or `BACKEND_UNAVAILABLE` when its workspace has none. */
export function bindingsOf(ctx: { readonly bindings?: BindingRequests; readonly conversation: string }): BindingRequests {
  if (ctx.bindings) return ctx.bindings;
  throw new ToolFailure('BACKEND_UNAVAILABLE', `the workspace of '${ctx.conversation}' takes no bindings here`);
}
