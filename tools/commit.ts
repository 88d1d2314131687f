/**
 * `commit`: records the workspace's changes as a commit on its branch (`gatefs/<id>`).
 *
 * Input: `message` (1–10,000 characters), `paths?` (files or folders of the workspace to commit;
 * default every change: edits, deletions, new files that are not ignored).
 * Value: `sha` (the new commit; the branch's head when there was nothing to commit), `branch`,
 * `files: [{path, status}]` (empty when nothing was committed). The author is the conversation.
 *
 * Git runs host-side through the host's process port with the repository's hooks, filters,
 * fsmonitor, signing and the user's global config neutralised: the agent never writes `.git`
 * and nothing in the repository runs. A writing tool for the gate: the workspace's write door
 * and occupancy apply (`OCCUPIED`). Errors: the path codes, `OUTSIDE_MOUNTS`, `NOT_A_WORKTREE`
 * (not a git worktree), `PROTECTED_PATH` for a protected path in `paths` and when the commit would
 * take a file or folder named like the state directory at the workspace root (one no tool
 * writes, put there from outside gatefs): nothing is committed.
 */
import { Type } from '@sinclair/typebox';
import { PathArg } from './path-arg.js';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { type CommitValue, workOf } from './work-requests.js';
import { repositoryPaths } from './work-paths.js';

/** Longest commit message, in characters. */
export const COMMIT_MAX_MESSAGE = 10_000;

const Input = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: COMMIT_MAX_MESSAGE, pattern: '\\S', description: 'The commit message.' }),
    paths: Type.Optional(
      Type.Array(PathArg('A file or folder of your workspace.'), {
        minItems: 1,
        maxItems: 1000,
        description: 'Commit only these files or folders (default: every change).',
      }),
    ),
  },
  { additionalProperties: false },
);

const FileSchema = Type.Object({ path: Type.String(), status: Type.String() });
const Output = Type.Object({ sha: Type.String(), branch: Type.String(), files: Type.Array(FileSchema) });

/** The `commit` tool (see the module comment). */
export const commitTool = defineTool({
  name: 'commit',
  description:
    'Commit your changes to your branch. By default every change is committed (edits, deletions, new files that are not ignored); ' +
    'pass paths to commit only some. Returns the new commit sha and the files it changed (files is empty when there was nothing to commit).',
  input: Input,
  output: Output,
  annotations: { title: 'Commit', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  writes: true,
  paths: () => [],
  async handler(input, ctx) {
    const work = workOf(ctx, ', so it has no branch to commit to');
    const paths = input.paths === undefined ? [] : await repositoryPaths(ctx.namespace, ctx.conversation, input.paths, 'commit', true);
    return ok<CommitValue>(await work.commit({ message: input.message, ...(paths.length > 0 ? { paths } : {}) }));
  },
});
