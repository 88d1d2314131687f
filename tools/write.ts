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
 *
 * For a source file (tools/syntax-grammars.ts: by extension) the value also has `syntax`: the
 * syntax errors the new content has and the old one had not (tools/syntax-check.ts). They never
 * refuse the write. To compare, the old bytes are read just before a plain write of such a file
 * (another writer may come between; the report then compares with what was read).
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/index.js';
import { ok } from './result.js';
import { MAX_TEXT_FILE_BYTES, decodeText, encodeText, looksBinary, sha256Hex } from './text/index.js';
import { Sha256Arg, checkExpectedSha, readExpected } from './expected-sha.js';
import { defineTool } from './tool.js';
import { swapFile } from './swap-file.js';
import { PathArg } from './path-arg.js';
import { SyntaxReportSchema, introducedSyntaxErrors, type SyntaxReport } from './syntax-check.js';
import { languageOf } from './syntax-grammars.js';
import type { Namespace } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';

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

const Output = Type.Object({
  path: Type.String(),
  bytes: Type.Integer(),
  sha256: Type.String(),
  created: Type.Boolean(),
  syntax: Type.Optional(SyntaxReportSchema),
});

/** The value of a successful write. */
export interface WriteValue {
  path: string;
  bytes: number;
  sha256: string;
  created: boolean;
  /** For a source file: the syntax errors the new content introduced (see the module comment). */
  syntax?: SyntaxReport;
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
    const source = languageOf(shown) !== undefined;
    if (typeof expected === 'string') {
      const read = () => readExpected(ns, target, shown, MAX_TEXT_FILE_BYTES);
      const value = { path: shown, bytes: data.byteLength, sha256: sha256Hex(data), created: false };
      let before: Uint8Array | undefined;
      const change = (current: Uint8Array) => {
        checkExpectedSha(current, expected, shown);
        before = current;
        return { data, value };
      };
      const written = await swapFile(ns, target, shown, read, change);
      return ok<WriteValue>(source ? await withSyntax(written, shown, before, input.content) : written);
    }
    const exclusive = input.expectedSha256 === null;
    const before = source && !exclusive ? await oldBytes(ns, target) : undefined;
    let result;
    try {
      result = await ns.writeFile(target, data, { exclusive });
    } catch (e) {
      if (!isVfsError(e, 'NOT_FOUND')) throw e;
      result = await ns.writeFile(target, data, { exclusive, createParents: true });
    }
    const value = { path: shown, bytes: data.byteLength, sha256: sha256Hex(data), created: result.created };
    return ok<WriteValue>(source ? await withSyntax(value, shown, result.created ? undefined : before, input.content) : value);
  },
});

/** The file's bytes before a plain write, or undefined when it cannot be read as a text file. */
async function oldBytes(ns: Namespace, target: Resolved): Promise<Uint8Array | undefined> {
  try {
    return await ns.readFile(target, { maxBytes: MAX_TEXT_FILE_BYTES });
  } catch {
    return undefined;
  }
}

/** `value` with the syntax report of replacing `before` (bytes; undefined: no old file) by `after`. */
async function withSyntax(value: WriteValue, shown: string, before: Uint8Array | undefined, after: string): Promise<WriteValue> {
  const old = before === undefined || looksBinary(before) ? undefined : decodeText(before);
  const syntax = await introducedSyntaxErrors(shown, old, after);
  return syntax ? { ...value, syntax } : value;
}
