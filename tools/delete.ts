/**
 * `delete`: remove one file, like `rm` without `-r` (Claude Code has no such tool; the MCP
 * reference server has none either, which agents work around with a shell).
 *
 * Input: `path`, `expectedSha256?`. Value: `path`, `deleted` (true: the file is gone).
 *
 * Files only: a folder is `IS_DIRECTORY` (also when it is empty), a FIFO, socket or device
 * `NOT_REGULAR_FILE`. A symbolic link is removed itself, never its target (links on the way to
 * it are followed beneath their mount, as for every tool). With `expectedSha256` the delete is
 * a compare-and-swap like `edit`: the file must hold exactly the bytes with that sha256 right
 * before it is removed (`STALE_CONTENT` otherwise, also when it is already gone), under the
 * gate's per-file locks in-process and, on disk, across gatefs processes; it applies to files
 * up to 64 MiB (`TOO_LARGE` above) and not to links (`NOT_REGULAR_FILE`: a link has no bytes of
 * its own to compare). The gate has already refused read-only mounts (`READ_ONLY`), protected
 * paths and authority files (`PROTECTED_PATH`) and occupied workspaces (`OCCUPIED`).
 * Other errors: `NOT_FOUND`, the path codes.
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/index.js';
import { ToolFailure, ok } from './result.js';
import { Sha256Arg, checkExpectedSha, readExpected } from './expected-sha.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';

/** Largest file a delete with `expectedSha256` reads to compare, 64 MiB. */
const MAX_COMPARED_DELETE_BYTES = 64 * 1024 * 1024;

const Input = Type.Object(
  {
    path: PathArg('The file to delete: relative to the workspace root, or an absolute namespace path.'),
    expectedSha256: Type.Optional(Sha256Arg),
  },
  { additionalProperties: false },
);

const Output = Type.Object({ path: Type.String(), deleted: Type.Boolean() });

/** The value of a successful delete. */
interface DeleteValue {
  path: string;
  deleted: boolean;
}

/** The `delete` tool (see the module comment for inputs, value and errors). */
export const deleteTool = defineTool({
  name: 'delete',
  description:
    'Delete one file (or a symbolic link itself, never what it points to). Folders are refused with IS_DIRECTORY. ' +
    'Pass expectedSha256 (from read) to delete only if the file still has exactly those bytes (STALE_CONTENT otherwise). ' +
    'Read-only mounts and .git are refused.',
  input: Input,
  output: Output,
  annotations: { title: 'Delete file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writes: true,
  paths: (input) => [input.path],
  keepsFinalLink: true,
  removedPaths: (input) => [input.path],
  compareAndSwap: (input) => input.expectedSha256 !== undefined,
  async handler(input, ctx) {
    const [target] = ctx.resolved;
    const ns = ctx.namespace;
    const shown = ns.display(target.path);
    const expected = input.expectedSha256;
    let type: string;
    try {
      type = (await ns.stat(target)).type;
    } catch (e) {
      // A hash implies the file was there: gone since is a change, as for edit and write.
      if (expected !== undefined && isVfsError(e, 'NOT_FOUND')) {
        throw new ToolFailure('STALE_CONTENT', `'${shown}' no longer exists but expectedSha256 was given`, shown);
      }
      throw e;
    }
    if (type === 'directory') throw new ToolFailure('IS_DIRECTORY', `'${shown}' is a folder; delete removes files only`, shown);
    if (type === 'other')
      throw new ToolFailure('NOT_REGULAR_FILE', `'${shown}' is a special file (FIFO, socket, device); tools leave those alone`, shown);
    if (expected === undefined) {
      await ns.remove(target, { fileOnly: true });
      return ok<DeleteValue>({ path: shown, deleted: true });
    }
    if (type === 'symlink') {
      throw new ToolFailure('NOT_REGULAR_FILE', `'${shown}' is a symbolic link, which has no bytes to compare with expectedSha256`, shown);
    }
    const current = await readExpected(ns, target, shown, MAX_COMPARED_DELETE_BYTES);
    checkExpectedSha(current, expected, shown);
    await ns.remove(target, { fileOnly: true, ifMatch: current });
    return ok<DeleteValue>({ path: shown, deleted: true });
  },
});
