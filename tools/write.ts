/**
 * `write`: create or replace a whole file, like Claude Code's Write.
 *
 * Input: `path`, `content` (UTF-8 text, at most 10 Mi characters), `expectedSha256?` — a hex
 * string: the file must exist with exactly these bytes (`STALE_CONTENT` otherwise); `null`:
 * create only, the file must not exist (`ALREADY_EXISTS`); absent: create or replace.
 * Value: `path`, `bytes` written, `sha256` of the new bytes, `created`.
 *
 * Atomic: the layer writes a temp file and renames it over the name, so a reader sees the old
 * or the new bytes. With an `expectedSha256` string the write is a compare-and-swap
 * (tools/swap-file.ts) under the gate's per-file locks, in-process and (on disk) across gatefs
 * processes: of two writers expecting the same bytes exactly one wins, the other gets
 * `STALE_CONTENT`. `null` creates with `link(2)`/`O_EXCL`, which the kernel makes exclusive. A
 * plain write takes only the in-process lock: the last one wins, each one whole. An existing file keeps its mode. Missing parent folders are created inside
 * the same mount (never across a mount boundary). The gate has already refused read-only
 * mounts (`READ_ONLY`), protected paths (`PROTECTED_PATH`) and occupied workspaces (`OCCUPIED`)
 * and holds the per-file lock. Other errors: the path codes, `IS_DIRECTORY`, `NOT_DIRECTORY`,
 * `NOT_REGULAR_FILE`, `SYMLINK_ESCAPE`.
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/errors.js';
import { ok } from './result.js';
import { MAX_TEXT_FILE_BYTES, encodeText, sha256Hex } from './text-content.js';
import { Sha256Arg, checkExpectedSha, readExpected } from './expected-sha.js';
import { defineTool } from './tool.js';
import { swapFile } from './swap-file.js';
import { PathArg } from './path-arg.js';

/** Longest `content` accepted, in UTF-16 code units. */
export const WRITE_MAX_CONTENT_CHARS = 10 * 1024 * 1024;

const Input = Type.Object(
  {
    path: PathArg('The file to write: relative to the workspace root, or an absolute namespace path.'),
    content: Type.String({ maxLength: WRITE_MAX_CONTENT_CHARS, description: 'The complete new content of the file (UTF-8).' }),
    expectedSha256: Type.Optional(
      Type.Union([Sha256Arg, Type.Null()], {
        description: 'A sha256: replace only if the file still has these bytes. null: create only, fail if the file exists.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({ path: Type.String(), bytes: Type.Integer(), sha256: Type.String(), created: Type.Boolean() });

/** The value of a successful write. */
export interface WriteValue {
  path: string;
  bytes: number;
  sha256: string;
  created: boolean;
}

/** The `write` tool (see the module comment for inputs, value and errors). */
export const writeTool = defineTool({
  name: 'write',
  description:
    'Create a file or replace its whole content, atomically. Missing parent folders are created. ' +
    'Pass expectedSha256: null to create a new file only (fails with ALREADY_EXISTS if it exists), or the sha256 ' +
    'from your last read to replace it only if nobody changed it since (STALE_CONTENT otherwise). ' +
    'For small changes to an existing file prefer edit. Read-only mounts and .git are refused.',
  input: Input,
  output: Output,
  annotations: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  writes: true,
  paths: (input) => [input.path],
  compareAndSwap: (input) => typeof input.expectedSha256 === 'string',
  async handler(input, ctx) {
    const [target] = ctx.resolved;
    const ns = ctx.namespace;
    const shown = ns.display(target.path);
    const data = encodeText(input.content);
    const expected = input.expectedSha256;
    if (typeof expected === 'string') {
      const read = () => readExpected(ns, target, shown, MAX_TEXT_FILE_BYTES);
      const value = { path: shown, bytes: data.byteLength, sha256: sha256Hex(data), created: false };
      const change = (current: Uint8Array) => {
        checkExpectedSha(current, expected, shown);
        return { data, value };
      };
      return ok<WriteValue>(await swapFile(ns, target, shown, read, change));
    }
    const exclusive = input.expectedSha256 === null;
    let result;
    try {
      result = await ns.writeFile(target, data, { exclusive });
    } catch (e) {
      if (!isVfsError(e, 'NOT_FOUND')) throw e;
      result = await ns.writeFile(target, data, { exclusive, createParents: true });
    }
    return ok<WriteValue>({ path: shown, bytes: data.byteLength, sha256: sha256Hex(data), created: result.created });
  },
});
