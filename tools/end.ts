/**
 * `end`: ends the caller's visit and its whole run: no role is visited after it (preparing a
 * conversation into the run is refused with `RUN_ENDED`, and every later `handoff` or `end` in it
 * answers `VISIT_ENDED`). Nothing is collected; a worktree role with `auto_patch` keeps a patch of
 * its workspace against its pinned base.
 *
 * Input: `message?` (at most 4000 characters). Value: `handoffId`, `run`, `visit`, `patch` (or
 * null). Errors: `VISIT_ENDED`, `OCCUPIED`, `BUSY`.
 */
import { Type } from '@sinclair/typebox';
import { type EndValue, handoffsOf } from './handoff-requests.js';
import { HANDOFF_MAX_MESSAGE } from './handoff.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';

const Input = Type.Object(
  {
    message: Type.Optional(
      Type.String({ maxLength: HANDOFF_MAX_MESSAGE, description: 'How the run ended, for the operator (at most 4000 characters).' }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  handoffId: Type.Integer(),
  run: Type.String(),
  visit: Type.Integer(),
  patch: Type.Union([Type.Object({ n: Type.Integer(), sha256: Type.String(), bytes: Type.Integer(), files: Type.Integer() }), Type.Null()]),
});

/** The `end` tool (see the module comment). */
export const endTool = defineTool({
  name: 'end',
  description:
    'Finish the whole run: call it when the work of every role is done and nothing is to be handed on. ' +
    'No role is visited after it, and handoff or end then answer VISIT_ENDED; your other tools keep working. ' +
    'To pass work to another role instead, use handoff.',
  input: Input,
  output: Output,
  annotations: { title: 'End the run', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok<EndValue>(await handoffsOf(ctx).end(input.message === undefined ? {} : { message: input.message }, ctx.holder));
  },
});
