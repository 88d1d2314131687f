/**
 * `read`: a window of lines of one text file, or an image, like Claude Code's Read / Cursor's
 * read_file.
 *
 * Input: `path`, `offset?` (first line, 1-based, default 1), `limit?` (lines, default 2000).
 * Value of a text file: `path` (as the agent writes it), `content` (the text of the window, line
 * breaks included, so consecutive windows concatenate to the file), `startLine`, `endLine`
 * (inclusive; `startLine - 1` when the window is empty), `totalLines`, `sha256` (of the whole
 * file's bytes, to pass to edit/write as `expectedSha256`), `truncated` (lines exist after
 * `endLine`, or the window was cut), `nextOffset` (the offset that continues, when lines remain)
 * and `cutLines` (lines cut for length, when any). Over MCP the text shows the lines numbered
 * like `cat -n`; `content` stays the file's text.
 *
 * Long lines: a line over 2,000 characters is cut with a marker in `content` saying how much was
 * left out and how to see it (`offset` = that line, `limit: 1`, which shows up to 256 Ki
 * characters of one line). A cut line is listed in `cutLines` and is not the file's text.
 *
 * Images (PNG, JPEG, GIF, WebP, by their first bytes; up to 3.75 MiB): the value is `path`,
 * `kind: 'image'`, `mimeType`, `bytes`, `width`/`height` when the header has them, `sha256`, and
 * `data` (base64). Over MCP the image travels as image content and `structuredContent` keeps
 * everything but `data` (src/mcp/profiles/tool-result.ts), so the payload is never sent twice.
 *
 * Large files: over 10 MiB (up to 1 GiB) the window is found by streaming the file once
 * (tools/read-large.ts), never holding it whole.
 *
 * Errors: the path codes, `IS_DIRECTORY`, `NOT_REGULAR_FILE`, `SYMLINK_ESCAPE`, `TOO_LARGE`
 * (over 1 GiB, an image over 3.75 MiB), `BINARY_FILE` (NUL in the first 8 KiB, not an image),
 * `INVALID_INPUT` (`offset` past the end). Limits: at most 256 Ki characters of content per
 * call; past that the window stops at the last whole line and `truncated` is true.
 */
import { Type } from '@sinclair/typebox';
import { isVfsError } from '../vfs/index.js';
import { ToolFailure, ok } from './result.js';
import { MAX_TEXT_FILE_BYTES, decodeText, lineStarts, looksBinary, sha256Hex } from './text/index.js';
import { defineTool } from './tool.js';
import { PathArg } from './path-arg.js';
import { IMAGE_MAX_BYTES, imageKind } from './image-file.js';
import { LINE_CUT_CHARS } from './text/index.js';
import { LineWindow, READ_MAX_CONTENT_CHARS, scanLines, type WindowResult } from './read-window.js';
import { readLargeWindow } from './read-large.js';

/** Default and largest `limit`. */
const READ_DEFAULT_LIMIT = 2000;

const Input = Type.Object(
  {
    path: PathArg('The file to read: relative to the workspace root, or an absolute namespace path.'),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: 'First line to return, 1-based (default 1).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Number of lines to return (default 2000).' })),
  },
  { additionalProperties: false },
);

const TextOutput = Type.Object({
  path: Type.String(),
  content: Type.String(),
  startLine: Type.Integer(),
  endLine: Type.Integer(),
  totalLines: Type.Integer(),
  sha256: Type.String(),
  truncated: Type.Boolean(),
  nextOffset: Type.Optional(Type.Integer()),
  cutLines: Type.Optional(Type.Array(Type.Integer())),
});

const ImageOutput = Type.Object({
  path: Type.String(),
  kind: Type.Literal('image'),
  mimeType: Type.String(),
  bytes: Type.Integer(),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
  sha256: Type.String(),
  data: Type.Optional(Type.String({ description: 'base64; over MCP it travels as image content instead' })),
});

/** The value of a successful read of a text file. */
export interface ReadValue {
  path: string;
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  sha256: string;
  truncated: boolean;
  /** The offset that continues after `endLine`, when lines remain. */
  nextOffset?: number;
  /** Lines cut for length (their text in `content` ends with a marker), when any. */
  cutLines?: number[];
}

/** The value of a successful read of an image. */
export interface ReadImageValue {
  path: string;
  kind: 'image';
  mimeType: string;
  bytes: number;
  width?: number;
  height?: number;
  sha256: string;
  /** The image's bytes, base64. */
  data: string;
}

/** The `read` tool (see the module comment for inputs, value, errors and limits). */
export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file of your workspace (or a mount). Returns the exact text of a window of lines ' +
    '(default: the first 2000), with startLine/endLine, totalLines, and the sha256 of the whole file. ' +
    'Use offset/limit to page through long files; truncated=true and nextOffset mean more lines follow. ' +
    'Lines over 2000 characters are cut with a marker; read that line with limit 1 to see it whole. ' +
    'Pass the sha256 as expectedSha256 to edit or write to be sure nobody changed the file in between. ' +
    'PNG, JPEG, GIF and WebP images are returned as images. Other binary files and folders are refused with an error code.',
  input: Input,
  output: Type.Union([TextOutput, ImageOutput], { type: 'object' }),
  annotations: { title: 'Read file', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  writes: false,
  paths: (input) => [input.path],
  async handler(input, ctx) {
    const [target] = ctx.resolved;
    const shown = ctx.namespace.display(target.path);
    const offset = input.offset ?? 1;
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    let bytes: Uint8Array;
    try {
      bytes = await ctx.namespace.readFile(target, { maxBytes: MAX_TEXT_FILE_BYTES });
    } catch (e) {
      if (!isVfsError(e, 'TOO_LARGE')) throw e;
      const large = await readLargeWindow(ctx.namespace, target, shown, offset, limit);
      return ok<ReadValue | ReadImageValue>(textValue(shown, offset, large, large.totalLines, large.sha256));
    }
    const image = imageKind(bytes);
    if (image) {
      if (bytes.byteLength > IMAGE_MAX_BYTES) {
        throw new ToolFailure(
          'TOO_LARGE',
          `'${shown}' is an image of ${bytes.byteLength} bytes; read returns images up to ${IMAGE_MAX_BYTES} bytes`,
          shown,
        );
      }
      return ok<ReadValue | ReadImageValue>({
        path: shown,
        kind: 'image',
        ...image,
        bytes: bytes.byteLength,
        sha256: sha256Hex(bytes),
        data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
      });
    }
    if (looksBinary(bytes)) throw new ToolFailure('BINARY_FILE', `'${shown}' looks binary (a NUL byte in its first 8 KiB)`, shown);
    const text = decodeText(bytes);
    const { count, longest } = scanLines(text);
    if (offset === 1 && count <= limit && text.length <= READ_MAX_CONTENT_CHARS && longest <= LINE_CUT_CHARS) {
      // The window is the whole file (the usual case): no line index needed.
      return ok<ReadValue | ReadImageValue>({
        path: shown,
        content: text,
        startLine: 1,
        endLine: count,
        totalLines: count,
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
    const window = new LineWindow(offset, limit);
    for (let i = offset - 1; i < total && window.wants; i++) {
      const from = starts[i];
      let end = i + 1 < total ? starts[i + 1] : text.length;
      let terminator = '';
      if (end > from && text.charCodeAt(end - 1) === 10) {
        end--;
        terminator = end > from && text.charCodeAt(end - 1) === 13 ? '\r\n' : '\n';
        if (terminator === '\r\n') end--;
      }
      window.offer(i + 1, text.slice(from, end), terminator);
    }
    return ok<ReadValue | ReadImageValue>(textValue(shown, offset, window.result(), total, sha256Hex(bytes)));
  },
});

/** The value of a window that is not the whole file as it is. */
function textValue(shown: string, offset: number, window: WindowResult, total: number, sha256: string): ReadValue {
  const endLine = total === 0 ? 0 : window.endLine;
  const value: ReadValue = {
    path: shown,
    content: window.content,
    startLine: offset,
    endLine,
    totalLines: total,
    sha256,
    truncated: window.capped || endLine < total,
  };
  if (endLine < total) value.nextOffset = endLine + 1;
  if (window.cutLines.length > 0) value.cutLines = window.cutLines;
  return value;
}
