/**
 * `diff`: what the agent changed in its workspace, as `git diff` would show it — tracked edits,
 * deletions and new files that are not ignored.
 *
 * Input: `path?` (a file or folder of the workspace; default the whole workspace), `base?`:
 * `pinned` (default: the commit the workspace was prepared from, so committed work shows too; once
 * work of it landed, the last commit of it the target holds, so only work not yet home shows) or
 * `head` (the branch's last commit: only what is not committed yet).
 * Value: `base`, `baseSha`, `landedOn?` (the target, when the base moved for a landing),
 * `files: [{path, status}]` (status added|modified|deleted|typechange),
 * `patch` (unified diff, at most 256 KiB) and `truncated`. Git runs host-side (the host's work
 * port); nothing the repository configures runs. Errors: the path codes, `OUTSIDE_MOUNTS` for a
 * path in another mount, `NOT_A_WORKTREE` for a workspace that is not a git worktree.
 */
import { Type } from '@sinclair/typebox';
import { PathArg } from './path-arg.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { type DiffValue, workOf } from './work-requests.js';
import { repositoryPaths } from './work-paths.js';

/** Most bytes of patch a diff returns. */
export const DIFF_MAX_PATCH_BYTES = 256 * 1024;

const Input = Type.Object(
  {
    path: Type.Optional(PathArg('A file or folder of your workspace to limit the diff to (default: everything).')),
    base: Type.Optional(
      Type.Union([Type.Literal('pinned'), Type.Literal('head')], {
        description: 'pinned (default): against the commit the workspace started from; head: only changes not committed yet.',
      }),
    ),
  },
  { additionalProperties: false },
);

const FileSchema = Type.Object({ path: Type.String(), status: Type.String() });
const Output = Type.Object({
  base: Type.String(),
  baseSha: Type.String(),
  files: Type.Array(FileSchema),
  patch: Type.String(),
  truncated: Type.Boolean(),
  landedOn: Type.Optional(Type.String()),
});

/** The `diff` tool (see the module comment). */
export const diffTool = defineTool({
  name: 'diff',
  description:
    'Show what you changed in your workspace: the changed files (added, modified, deleted) and a unified diff. ' +
    'base "pinned" (default) compares with the commit your workspace started from (once your work has landed, with the last of it the target holds), ' +
    'so committed work not yet landed shows too; ' +
    'base "head" shows only what is not committed yet. Limit it to a file or folder with path.',
  input: Input,
  output: Output,
  annotations: { title: 'Diff', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: () => [],
  async handler(input, ctx) {
    const work = workOf(ctx, ', so it has no diff');
    const paths = input.path === undefined ? [] : await repositoryPaths(ctx.namespace, ctx.conversation, [input.path], 'diff', false);
    return ok<DiffValue>(
      await work.diff({ base: input.base ?? 'pinned', maxPatchBytes: DIFF_MAX_PATCH_BYTES, ...(paths.length > 0 ? { paths } : {}) }),
    );
  },
});
