/**
 * `move`: rename or move a file, a link or a folder inside one mount, like the MCP reference
 * server's `move_file` (which also moves folders and refuses an existing destination) and
 * POSIX `mv` without its "into a folder" form.
 *
 * Input: `from`, `to`, `overwrite?` (default false). Value: `from`, `to` (as the agent writes
 * paths, once links on the way are followed).
 *
 * Missing parent folders of `to` are created inside the mount (as `write` does; taken back if
 * the move fails): there is no other way for an agent to make a folder to move into.
 *
 * Never overwrites silently: an existing `to` is `ALREADY_EXISTS` unless `overwrite` is true
 * and both are files or links (then `to` is replaced atomically). A folder at `to` is
 * `IS_DIRECTORY` whatever `overwrite` says: name the new path in full (`dir/name`), move never
 * moves into a folder. A link at `from` moves as a link, a link at `to` is replaced as a link
 * (links on the way to either are followed beneath their mount, as for every tool). A folder
 * moves with everything in it, in one step where the backend allows (in a `copy` workspace,
 * what only the base snapshot holds is copied up first); it never carries a protected path or
 * another mount away (`PROTECTED_PATH`, `READ_ONLY`, `CROSS_MOUNT`).
 *
 * The gate checks both paths like any write (`READ_ONLY`, `PROTECTED_PATH`, `OCCUPIED`) and
 * holds the per-file lock of both. Errors: `CROSS_MOUNT` (different mounts, or a host file
 * system boundary), `INVALID_INPUT` (onto itself, into its own sub-folder, a mount root),
 * `NOT_FOUND` (`from`), `NOT_DIRECTORY` (a file on the way to `to`), `NOT_REGULAR_FILE` (a special file, or a link
 * of a `copy` workspace's base snapshot), `STALE_CONTENT` (`from` was replaced by another
 * program during the move: nothing moved), `NOT_DISCLOSED` (a folder holding files not yet
 * disclosed, or `to` naming one), the path codes.
 */
import { Type } from '@sinclair/typebox';
import { ok } from './result.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';

const Input = Type.Object(
  {
    from: PathArg('The file, link or folder to move: relative to the workspace root, or an absolute namespace path.'),
    to: PathArg('Its new path, in full (not the folder to move it into), in the same mount.'),
    overwrite: Type.Optional(Type.Boolean({ description: 'Replace an existing file at to (default false: ALREADY_EXISTS).' })),
  },
  { additionalProperties: false },
);

const Output = Type.Object({ from: Type.String(), to: Type.String() });

/** The value of a successful move. */
interface MoveValue {
  from: string;
  to: string;
}

/** The `move` tool (see the module comment for inputs, value and errors). */
export const moveTool = defineTool({
  name: 'move',
  description:
    'Move or rename a file, link or folder within one mount. to is the full new path (move into a folder by naming dir/name); ' +
    'missing parent folders are created. ' +
    'An existing destination is refused with ALREADY_EXISTS unless overwrite is true (files only; a folder is never replaced). ' +
    'Read-only mounts, .git and moves between mounts (CROSS_MOUNT) are refused.',
  input: Input,
  output: Output,
  annotations: { title: 'Move file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writes: true,
  paths: (input) => [input.from, input.to],
  keepsFinalLink: true,
  removedPaths: (input) => [input.from],
  async handler(input, ctx) {
    const [from, to] = ctx.resolved;
    const ns = ctx.namespace;
    await ns.rename(from, to, { overwrite: input.overwrite ?? false, createParents: true });
    return ok<MoveValue>({ from: ns.display(from.path), to: ns.display(to.path) });
  },
});
