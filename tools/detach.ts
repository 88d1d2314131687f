/**
 * `detach`: ends the caller's binding of a workspace; it no longer shows in its namespace. Detaching
 * the active workspace makes the own one active again. The own workspace cannot be detached
 * (`INVALID_INPUT`; give its write up with `attach` in `shared-read`).
 *
 * Input: `workspace` (an id or an anchor). Value: `workspace`, `anchor`, `mode` (of the ended
 * binding), `active` (the active anchor now). Errors: `NOT_ATTACHED` (no binding of it),
 * `INVALID_INPUT`.
 */
import { Type } from '@sinclair/typebox';
import { WorkspaceArg } from './attach.js';
import { type DetachValue, bindingsOf } from './binding-requests.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';

const Input = Type.Object({ workspace: WorkspaceArg }, { additionalProperties: false });

const Output = Type.Object({ workspace: Type.String(), anchor: Type.String(), mode: Type.String(), active: Type.String() });

/** The `detach` tool (see the module comment). */
export const detachTool = defineTool({
  name: 'detach',
  description:
    'Stop showing a workspace you attached (its anchor disappears from your namespace). ' +
    'If it was your active workspace, your own becomes active again. Your own workspace cannot be detached.',
  input: Input,
  output: Output,
  annotations: { title: 'Detach a workspace', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok<DetachValue>(await bindingsOf(ctx).detach(input.workspace));
  },
});
