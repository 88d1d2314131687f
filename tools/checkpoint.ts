/**
 * `checkpoint`: takes a snapshot of the caller's whole workspace, to `rollback` to later.
 *
 * Input: `label?` (at most 200 characters, no control characters). Value: `snapshotId` (pass it
 * to `rollback`), `label`, `files`, `bytes` (of the files it holds) and `storedBytes` (what it
 * added to the store: unchanged files cost nothing).
 *
 * A snapshot holds every file of the workspace — tracked, untracked and ignored, with modes,
 * empty folders and links as links — and never a mount. It never touches the branch, its commits
 * or the index. The host holds the workspace's write door itself while it reads, so for the gate
 * the tool writes nothing (`writes: false`; a gate-held door would deadlock). Errors:
 * `BACKEND_UNAVAILABLE` (a workspace that takes no snapshots: `shared`), `OCCUPIED`, `BUSY`.
 */
import { Type } from '@sinclair/typebox';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { type CheckpointValue, snapshotsOf } from './snapshot-requests.js';

/** Longest label, in characters. */
export const CHECKPOINT_MAX_LABEL = 200;

const Input = Type.Object(
  {
    label: Type.Optional(
      Type.String({
        maxLength: CHECKPOINT_MAX_LABEL,
        pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$',
        description: 'A few words saying what state this is (at most 200 characters, one line), shown when snapshots are listed.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  snapshotId: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  files: Type.Integer(),
  bytes: Type.Integer(),
  storedBytes: Type.Integer(),
});

/** The `checkpoint` tool (see the module comment). */
export const checkpointTool = defineTool({
  name: 'checkpoint',
  description:
    'Save the current state of your whole workspace as a checkpoint you can return to with rollback. ' +
    'It holds every file of the workspace — tracked, untracked and ignored by git, with their modes, empty folders and symlinks — ' +
    'but never the files of a mount outside the workspace. It does not commit anything and never touches your branch. ' +
    'Unchanged files cost nothing, so take one before a risky change (a refactor, a command that deletes or rewrites files). ' +
    'Returns the snapshotId to pass to rollback.',
  input: Input,
  output: Output,
  annotations: {
    title: 'Checkpoint the workspace',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    return ok<CheckpointValue>(await snapshotsOf(ctx).checkpoint(input.label, ctx.holder));
  },
});
