/**
 * `rollback`: returns the caller's workspace to exactly a checkpoint's files.
 *
 * Input: `snapshotId` (what `checkpoint` answered, or an id `gatefs snapshots` lists). Value:
 * `snapshotId`, `before` (the snapshot taken first of the workspace as it was: `rollback` to it
 * undoes this one), `written` and `removed` (entries changed and entries taken away).
 *
 * Only the caller's own conversation's snapshots can be named. Files only: the branch, its
 * commits and the index stay as they are; mounts are never touched. The host holds the
 * workspace's write door itself during the restore (`writes: false` for the gate, whose door
 * would deadlock). Errors: `SNAPSHOT_NOT_FOUND` (`details.available`: the ids there are),
 * `BACKEND_UNAVAILABLE` (a workspace that takes no snapshots), `OCCUPIED`, `BUSY`.
 */
import { Type } from '@sinclair/typebox';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { type RollbackValue, snapshotsOf } from './snapshot-requests.js';

const Input = Type.Object(
  {
    // A model often writes the id as the number it reads: 3 is taken as "3".
    snapshotId: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 1 })], {
      description: 'The snapshotId a checkpoint answered (like "3").',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  snapshotId: Type.String(),
  before: Type.String(),
  written: Type.Integer(),
  removed: Type.Integer(),
});

/** The `rollback` tool (see the module comment). */
export const rollbackTool = defineTool({
  name: 'rollback',
  description:
    'Return your whole workspace to exactly the files of a checkpoint: files changed since are put back, files added since are removed, ' +
    'deleted ones come back (untracked and ignored files included; mounts outside the workspace are never touched). ' +
    'It first takes a checkpoint of the current state and answers its id as before, so a rollback can itself be undone: rollback to that id. ' +
    'It restores files only: it never moves your branch and never undoes commits (their files come back only as uncommitted changes).',
  input: Input,
  output: Output,
  annotations: {
    title: 'Roll back to a checkpoint',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok<RollbackValue>(await snapshotsOf(ctx).rollback(String(input.snapshotId), ctx.holder));
  },
});
