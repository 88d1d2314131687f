/**
 * `read`: a window of lines of one text file, like Claude Code's Read / Cursor's read_file.
 *
 * Input: `path`, `offset?` (first line, 1-based, default 1), `limit?` (lines, default 2000).
 * Value: `path` (as the agent writes it), `content` (the exact text of the window, line breaks
 * included, so consecutive windows concatenate to the file), `startLine`, `endLine` (inclusive;
 * `startLine - 1` when the window is empty), `totalLines`, `sha256` (of the whole file's bytes,
 * to pass to edit/write as `expectedSha256`) and `truncated` (lines exist after `endLine`).
 *
 * Errors: the path codes, `IS_DIRECTORY`, `NOT_REGULAR_FILE`, `SYMLINK_ESCAPE`, `TOO_LARGE`
 * (over 10 MiB), `BINARY_FILE` (NUL in the first 8 KiB), `INVALID_INPUT` (`offset` past the end).
 * Limits: at most 256 Ki characters of content per call; past that the window stops at the last
 * whole line (or cuts a single over-long first line) and `truncated` is true.
 */
import { Type } from '@sinclair/typebox';
import { ToolFailure, ok } from './result.js';
import { MAX_TEXT_FILE_BYTES, countLines, decodeText, lineStarts, looksBinary, sha256Hex } from './text-content.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';

/** Default and largest `limit`. */
export const READ_DEFAULT_LIMIT = 2000;
/** Most characters of `content` one read returns. */
export const READ_MAX_CONTENT_CHARS = 256 * 1024;

const Input = Type.Object(
  {
    path: PathArg('The file to read: relative to the workspace root, or an absolute namespace path.'),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: 'First line to return, 1-based (default 1).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Number of lines to return (default 2000).' })),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  content: Type.String(),
  startLine: Type.Integer(),
  endLine: Type.Integer(),
  totalLines: Type.Integer(),
  sha256: Type.String(),
  truncated: Type.Boolean(),
});

/** The value of a successful read. */
export interface ReadValue {
  path: string;
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  sha256: string;
  truncated: boolean;
}

/** The `read` tool (see the module comment for inputs, value, errors and limits). */
export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file of your workspace (or a mount). Returns the exact text of a window of lines ' +
    '(default: the first 2000), with startLine/endLine, totalLines, and the sha256 of the whole file. ' +
    'Use offset/limit to page through long files; truncated=true means more lines follow. ' +
    'Pass the sha256 as expectedSha256 to edit or write to be sure nobody changed the file in between. ' +
    'Binary files, folders and files over 10 MiB are refused with an error code.',
  input: Input,
  output: Output,
  annotations: { title: 'Read file', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: (input) => [input.path],
  async handler(input, ctx) {
    const [target] = ctx.resolved;
    const shown = ctx.namespace.display(target.path);
    const bytes = await ctx.namespace.readFile(target, { maxBytes: MAX_TEXT_FILE_BYTES });
    if (looksBinary(bytes)) throw new ToolFailure('BINARY_FILE', `'${shown}' looks binary (a NUL byte in its first 8 KiB)`, shown);
    const text = decodeText(bytes);
    const offset = input.offset ?? 1;
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const lineCount = countLines(text);
    if (offset === 1 && lineCount <= limit && text.length <= READ_MAX_CONTENT_CHARS) {
      // The window is the whole file (the usual case): no line index needed.
      return ok<ReadValue>({
        path: shown,
        content: text,
        startLine: 1,
        endLine: lineCount,
        totalLines: lineCount,
        sha256: sha256Hex(bytes),
        truncated: false,
      });
    }
    const starts = lineStarts(text);
    const total = starts.length;
    if (offset > Math.max(total, 1)) {
      throw new ToolFailure(
        'INVALID_INPUT',
        `offset: the file has ${total} line${total === 1 ? '' : 's'}; offset ${offset} is past its end`,
        shown,
      );
    }
    const first = offset - 1;
    let last = Math.min(total, first + limit) - 1;
    const from = total === 0 ? 0 : starts[first];
    const endOf = (i: number) => (i + 1 < total ? starts[i + 1] : text.length);
    let content: string;
    let cut = false;
    if (total > 0 && endOf(last) - from > READ_MAX_CONTENT_CHARS) {
      cut = true;
      while (last > first && endOf(last) - from > READ_MAX_CONTENT_CHARS) last--;
      content = text.slice(from, Math.min(endOf(last), from + READ_MAX_CONTENT_CHARS));
    } else {
      content = total === 0 ? '' : text.slice(from, endOf(last));
    }
    return ok<ReadValue>({
      path: shown,
      content,
      startLine: offset,
      endLine: total === 0 ? 0 : last + 1,
      totalLines: total,
      sha256: sha256Hex(bytes),
      truncated: cut || last + 1 < total,
    });
  },
});
