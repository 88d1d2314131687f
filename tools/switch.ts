/**
 * `switch`: makes a workspace the caller's active one: relative paths resolve at its anchor from
 * the next call on, and commands start there. It must be the caller's own workspace, `home`, or
 * one it has attached; the old one stays bound. Tools tied to the own workspace (diff, commit,
 * submit, handoff, checkpoint, rollback, request_files) keep acting on it.
 *
 * Input: `workspace` (an id or an anchor). Value: `workspace`, `anchor`, `from` (the anchor active
 * before). Errors: `NOT_ATTACHED`, `INVALID_INPUT`.
 */
import { Type } from '@sinclair/typebox';
import { WorkspaceArg } from './attach.js';
import { type SwitchValue, bindingsOf } from './binding-requests.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';

const Input = Type.Object({ workspace: WorkspaceArg }, { additionalProperties: false });

const Output = Type.Object({ workspace: Type.String(), anchor: Type.String(), from: Type.String() });

/** The `switch` tool (see the module comment). */
export const switchTool = defineTool({
  name: 'switch',
  description:
    'Make a workspace your active one: relative paths resolve there from your next call, and commands start there. ' +
    'It must be your own workspace, home, or one you attached. Diff, commit, submit, handoff, checkpoint and rollback keep acting on your own workspace.',
  input: Input,
  output: Output,
  annotations: {
    title: 'Switch the active workspace',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok<SwitchValue>(await bindingsOf(ctx).switch(input.workspace));
  },
});
