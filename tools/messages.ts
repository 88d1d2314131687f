/**
 * `messages`: what became of the caller's submitted work — the lander's reports and inputs to its
 * own conversation, never another's.
 *
 * Input: `requestId?` (the id `submit` answered: that submission's messages and state only),
 * `unread?` (only messages this tool has not returned to this conversation before).
 * Value: `messages` (oldest first, at most 20): a landing `report` with each check's name, exit
 * code and duration; an `input` for a refused submission with its reason and the checks that ran,
 * the failing one with its output tail (at most 8 KiB); a `note` when work of a branch it started
 * landed. `pending`: its submissions still in the queue, with their state and place in line, and
 * for one whose landing is blocked, why and what unblocks it. `more`: matches past the cap.
 * Every message returned is marked read in the state store (a later server sees it read).
 * Read-only for the workspace: the gate takes no write door and no occupancy.
 * Errors: `NOT_A_WORKTREE` (a workspace that cannot submit work gets no landing messages).
 */
import { Type } from '@sinclair/typebox';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { type MessagesValue, workOf } from './work-requests.js';

/** Most messages one call returns. */
export const MESSAGES_MAX = 20;

const Input = Type.Object(
  {
    requestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The requestId submit answered: only that submission (its report or refusal, and its state while queued).',
      }),
    ),
    unread: Type.Optional(Type.Boolean({ description: 'Only messages not returned to you before (default false: every one).' })),
  },
  { additionalProperties: false },
);

const CheckSchema = Type.Object({
  name: Type.String(),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  timedOut: Type.Boolean(),
  durationMs: Type.Number(),
  output: Type.Optional(Type.String()),
  outputTruncated: Type.Optional(Type.Boolean()),
});

const MessageSchema = Type.Object({
  requestId: Type.String(),
  kind: Type.Union([Type.Literal('report'), Type.Literal('note'), Type.Literal('input')]),
  submissionId: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union([Type.Literal('landed'), Type.Literal('failed')]),
  message: Type.String(),
  at: Type.Number(),
  target: Type.Optional(Type.String()),
  commit: Type.Optional(Type.String()),
  landedSha: Type.Optional(Type.String()),
  pushed: Type.Optional(Type.Boolean()),
  checks: Type.Array(CheckSchema),
  reason: Type.Optional(Type.String()),
  paths: Type.Optional(Type.Array(Type.String())),
  from: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String()),
  divergence: Type.Optional(Type.String()),
});

const PendingSchema = Type.Object({
  requestId: Type.String(),
  submissionId: Type.String(),
  target: Type.String(),
  state: Type.String(),
  queuePosition: Type.Integer(),
  blocked: Type.Optional(
    Type.Object({ reason: Type.String(), files: Type.Array(Type.String()), why: Type.String(), unblock: Type.String() }),
  ),
});

const Output = Type.Object({ messages: Type.Array(MessageSchema), pending: Type.Array(PendingSchema), more: Type.Integer() });

/** The `messages` tool (see the module comment). */
export const messagesTool = defineTool({
  name: 'messages',
  description:
    'Read what became of the work you submitted: the landing report (the checks that ran, each with its exit code and duration), ' +
    'or why it was refused (the failing check with the end of its output, a merge conflict), and notes when work of a branch you started landed. ' +
    'Pass the requestId submit gave you to see that submission only (while it waits in the queue you get its state, and why it is blocked if it is); ' +
    'unread: true returns only messages you have not seen. Only your own messages are visible.',
  input: Input,
  output: Output,
  annotations: { title: 'Messages', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    const work = workOf(ctx, ': it cannot submit work, so no landing messages come to it');
    return ok<MessagesValue>(
      await work.messages({
        ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
        unread: input.unread === true,
        max: MESSAGES_MAX,
      }),
    );
  },
});
