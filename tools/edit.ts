/**
 * `edit`: exact-string replacement in one text file, like Claude Code's Edit.
 *
 * Input: `path`, `oldString` (non-empty), `newString` (different from oldString), `replaceAll?`,
 * `expectedSha256?`. Value: `path`, `replacements`, `sha256` of the new bytes.
 *
 * Matching is exact and case-sensitive; replacement text is literal (no `$&` patterns).
 * Line endings: in a CRLF file, when `oldString` is not found as given, its bare '\n' are
 * tried as '\r\n' (agents usually send LF); either way, bare '\n' in `newString` become '\r\n'
 * so the file keeps one line-ending style. LF files are never changed beyond the replacement.
 * A missing final newline stays missing; a BOM stays.
 *
 * Concurrency: the edit is a compare-and-swap (tools/swap-file.ts) under the gate's per-file
 * locks, in-process and (on disk) across gatefs processes: an edit reported ok is in the file.
 * If another program changes the file between the read and the write, the edit is applied
 * again to the new bytes (or refused as below); `BUSY` when that keeps happening.
 *
 * Errors: `NO_MATCH`, `AMBIGUOUS_MATCH` (more than one occurrence without replaceAll),
 * `STALE_CONTENT`, `BUSY`, `BINARY_FILE` (NUL in the first 8 KiB, or not valid UTF-8: re-encoding would
 * change bytes the edit did not touch), `TOO_LARGE` (over 10 MiB), `INVALID_INPUT` (empty
 * oldString, newString equal to oldString), the path codes and the gate's write checks.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ToolFailure, ok } from './result.js';
import { MAX_TEXT_FILE_BYTES, decodeStrict, encodeText, looksBinary, sha256Hex, usesCrlf } from './text-content.js';
import { Sha256Arg, checkExpectedSha } from './expected-sha.js';
import { defineTool } from './tool.js';
import { swapFile, type SwapChange } from './swap-file.js';
import { PathArg } from './path-arg.js';

const MAX_STRING_CHARS = MAX_TEXT_FILE_BYTES;

const Input = Type.Object(
  {
    path: PathArg('The file to edit: relative to the workspace root, or an absolute namespace path.'),
    oldString: Type.String({
      maxLength: MAX_STRING_CHARS,
      description: 'The exact text to replace (must occur exactly once unless replaceAll).',
    }),
    newString: Type.String({ maxLength: MAX_STRING_CHARS, description: 'The replacement text.' }),
    replaceAll: Type.Optional(Type.Boolean({ description: 'Replace every occurrence (default false).' })),
    expectedSha256: Type.Optional(Sha256Arg),
  },
  { additionalProperties: false },
);

const Output = Type.Object({ path: Type.String(), replacements: Type.Integer(), sha256: Type.String() });

/** The value of a successful edit. */
export interface EditValue {
  path: string;
  replacements: number;
  sha256: string;
}

/** The `edit` tool (see the module comment for inputs, value, errors and line-ending rules). */
export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace an exact string in a text file. oldString must match the file exactly (whitespace and indentation included) ' +
    'and occur once; add surrounding lines to make it unique, or set replaceAll to change every occurrence. ' +
    'Fails with NO_MATCH or AMBIGUOUS_MATCH instead of guessing. Line endings (CRLF/LF) and a missing final newline are preserved. ' +
    'Pass expectedSha256 (from read) to refuse the edit if the file changed since you read it.',
  input: Input,
  output: Output,
  annotations: { title: 'Edit file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writes: true,
  paths: (input) => [input.path],
  compareAndSwap: () => true,
  async handler(input, ctx) {
    const [target] = ctx.resolved;
    const ns = ctx.namespace;
    const shown = ns.display(target.path);
    if (input.oldString.length === 0) {
      throw new ToolFailure('INVALID_INPUT', 'oldString: must not be empty (to create a file use write)', shown);
    }
    if (input.oldString === input.newString) {
      throw new ToolFailure('INVALID_INPUT', 'newString: is identical to oldString; nothing would change', shown);
    }
    const read = () => ns.readFile(target, { maxBytes: MAX_TEXT_FILE_BYTES });
    return ok<EditValue>(await swapFile(ns, target, shown, read, (bytes) => applyEdit(input, bytes, shown)));
  },
});

/** The edited bytes of `bytes` (see the module comment for the rules and codes). */
function applyEdit(input: Static<typeof Input>, bytes: Uint8Array, shown: string): SwapChange<EditValue> {
  if (input.expectedSha256 !== undefined) checkExpectedSha(bytes, input.expectedSha256, shown);
  if (looksBinary(bytes)) throw new ToolFailure('BINARY_FILE', `'${shown}' looks binary (a NUL byte in its first 8 KiB)`, shown);
  const text = decodeStrict(bytes);
  if (text === undefined)
    throw new ToolFailure('BINARY_FILE', `'${shown}' is not valid UTF-8; editing it would change bytes outside the edit`, shown);

  const crlf = usesCrlf(text);
  let needle = input.oldString;
  let count = countOccurrences(text, needle, 2);
  if (count === 0 && crlf && /(?<!\r)\n/.test(needle)) {
    needle = toCrlf(needle);
    count = countOccurrences(text, needle, 2);
  }
  if (count === 0)
    throw new ToolFailure('NO_MATCH', `oldString does not occur in '${shown}' (it must match exactly, whitespace included)`, shown);
  if (count > 1 && !input.replaceAll) {
    const n = countOccurrences(text, needle, Infinity);
    throw new ToolFailure('AMBIGUOUS_MATCH', `oldString occurs ${n} times in '${shown}'; add surrounding context or set replaceAll`, shown);
  }
  const replacement = crlf ? toCrlf(input.newString) : input.newString;
  const parts = text.split(needle);
  const data = encodeText(parts.join(replacement));
  return { data, value: { path: shown, replacements: parts.length - 1, sha256: sha256Hex(data) } };
}

/** Non-overlapping occurrences of `needle` in `text`, counting up to `cap`. */
function countOccurrences(text: string, needle: string, cap: number): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1 && n < cap; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

function toCrlf(s: string): string {
  return s.replace(/\r?\n/g, '\r\n');
}
