/**
 * `submit`: hands the branch's committed work to the lander, which merges it onto the target
 * branch in a checkout of its own, runs the operator's checks and fast-forwards the target.
 *
 * Input: `divergence` (how the work differs from what was asked: "None" when it matches),
 * `summary?` (what the work does, for the report and the note to whoever started the branch).
 * Value: `submissionId`, `requestId` (the landing report arrives under it, exactly once: the
 * `messages` tool reads it with `{requestId}`),
 * `queuePosition` (1: next in line), `commit`, `target`.
 * Errors: `DIRTY_WORKTREE` while anything is not committed (commit first), `QUEUE_REJECTED`
 * (nothing to land beyond the target, no target branch), `NOT_A_WORKTREE`, `OCCUPIED`.
 */
import { Type } from '@sinclair/typebox';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { type SubmitValue, workOf } from './work-requests.js';

const Input = Type.Object(
  {
    divergence: Type.String({
      minLength: 1,
      maxLength: 10_000,
      pattern: '\\S',
      description: 'How your work differs from what was asked; write "None" when it matches the request.',
    }),
    summary: Type.Optional(Type.String({ maxLength: 10_000, description: 'What the work does (goes into the landing report).' })),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  submissionId: Type.String(),
  requestId: Type.String(),
  queuePosition: Type.Integer(),
  commit: Type.String(),
  target: Type.String(),
});

/** The `submit` tool (see the module comment). */
export const submitTool = defineTool({
  name: 'submit',
  description:
    'Submit your committed work to be landed: it is merged onto the target branch, checked, and fast-forwarded there. ' +
    'Everything must be committed first (use commit). divergence says how the work differs from the request ("None" when it matches). ' +
    'You get a submissionId and a requestId; read the outcome with messages {requestId} (the checks that ran with their exit codes, ' +
    'or the failing check with the end of its output); it arrives once the lander has run.',
  input: Input,
  output: Output,
  annotations: { title: 'Submit', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: true,
  paths: () => [],
  async handler(input, ctx) {
    const work = workOf(ctx, ', so there is no branch to land');
    return ok<SubmitValue>(await work.submit({ divergence: input.divergence, ...(input.summary ? { summary: input.summary } : {}) }));
  },
});
