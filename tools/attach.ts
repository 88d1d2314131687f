/**
 * `attach`: shows another conversation's workspace (at `/worktrees/<id>`) or the source checkout
 * (at `/canonical`) in the caller's namespace. `shared-read` (the default) is read-only (changes
 * answer `READ_ONLY`) and sees the writer's changes live; `exclusive-write` is writable and
 * refused with `OCCUPIED` while another conversation holds the workspace exclusive-write. The
 * caller's own workspace: `shared-read` gives its write up (its root becomes read-only to it, so
 * another conversation can take it), `exclusive-write` takes it back. Attaching never changes the
 * active workspace (see `switch`).
 *
 * Input: `workspace` (an id or an anchor), `mode?`. Value: `workspace`, `anchor`, `mode`,
 * `acquiredAt`. Errors: `TOOL_NOT_ALLOWED` for a mode stronger than the role's `attach_mode` (the
 * role's declaration does not allow it, as it does not allow an undeclared tool; `READ_ONLY` is
 * kept for a change refused at a path), `OCCUPIED`, `UNKNOWN_CONVERSATION`, `WORKSPACE_NOT_READY`,
 * `WORKSPACE_RELEASED`, `INVALID_INPUT`.
 */
import { Type } from '@sinclair/typebox';
import { type BindingValue, bindingsOf } from './binding-requests.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';

/** The schema of a workspace argument: an id or an anchor. */
export const WorkspaceArg = Type.String({
  minLength: 1,
  maxLength: 80,
  description: "A workspace: another conversation's id or /worktrees/<id>, canonical or /canonical (the source checkout), home or /home.",
});

const Input = Type.Object(
  {
    workspace: WorkspaceArg,
    mode: Type.Optional(
      Type.Union([Type.Literal('shared-read'), Type.Literal('exclusive-write')], {
        description: 'shared-read (default): read-only, beside a writer; exclusive-write: writable, one holder at a time.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  workspace: Type.String(),
  anchor: Type.String(),
  mode: Type.String(),
  acquiredAt: Type.Integer(),
});

/** The `attach` tool (see the module comment). */
export const attachTool = defineTool({
  name: 'attach',
  description:
    "Show another conversation's workspace at /worktrees/<id>, or the source checkout at /canonical, beside your own. " +
    'shared-read (default) is read-only and sees its writer work live; exclusive-write lets you change it, one holder at a time (OCCUPIED while another holds it). ' +
    'Your own workspace in shared-read gives your write up to another; exclusive-write takes it back. ' +
    'It does not change where relative paths resolve: use switch for that.',
  input: Input,
  output: Output,
  annotations: { title: 'Attach a workspace', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok<BindingValue>(await bindingsOf(ctx).attach(input.workspace, input.mode));
  },
});
