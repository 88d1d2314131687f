/**
 * What the `claude-code` profile answers for Read, Write, Edit, MultiEdit and Glob: the text in
 * the shape of Claude Code's own tool results (Read's `cat -n` lines, "The file … has been
 * updated. Here's the result of running `cat -n` on a snippet …", Glob's paths), and
 * `structuredContent` with every fact of the gate's value under Claude Code's result field names
 * (`filePath`, `numLines`, `filenames`, `numFiles`, …). Claude Code hands a model only
 * `structuredContent` when it is present, other clients only the text: each is complete.
 *
 * Read of an image answers the image as MCP image content with no `structuredContent` at all:
 * Claude Code drops every content block, images included, when `structuredContent` is present
 * (anthropics/claude-code#54737), so an image with it would never reach the model.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ReadImageValue, ReadValue } from '../../../tools/index.js';
import type { WriteValue } from '../../../tools/index.js';
import type { EditValue } from '../../../tools/index.js';
import type { ListValue } from '../../../tools/index.js';
import { numberLines } from '../../../tools/text/index.js';
import { syntaxLines, type Row } from '../text/index.js';
import type { PathView } from './profile-paths.js';

/** A successful result: `text` as content, `structured` as `structuredContent`. */
export function answer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** Read: numbered lines (`     1\tline`), then what is left when the window is not the whole file; an image as image content. */
export function readAnswer(value: ReadValue | ReadImageValue, view: PathView): CallToolResult {
  const filePath = view.absolute(value.path);
  if ('kind' in value) {
    const size = value.width !== undefined && value.height !== undefined ? `, ${value.width}x${value.height}` : '';
    return {
      content: [
        { type: 'text', text: `${filePath}: image ${value.mimeType}${size}, ${value.bytes} bytes, sha256 ${value.sha256}` },
        { type: 'image', data: value.data, mimeType: value.mimeType },
      ],
    };
  }
  const numbered = numberLines(value.content, value.startLine);
  const numLines = value.totalLines === 0 ? 0 : value.endLine - value.startLine + 1;
  const notes: string[] = [];
  if (value.totalLines === 0) notes.push('(the file is empty)');
  else if (value.nextOffset !== undefined)
    notes.push(
      `(lines ${value.startLine}-${value.endLine} of ${value.totalLines}; more lines follow: continue with offset ${value.nextOffset})`,
    );
  else if (value.truncated)
    notes.push(`(lines ${value.startLine}-${value.endLine} of ${value.totalLines}: cut at the size limit of one read)`);
  const cut = value.cutLines ?? [];
  if (cut.length > 0)
    notes.push(
      `(line${cut.length === 1 ? '' : 's'} ${cut.join(', ')} cut at 2000 characters: Read that line with offset and limit 1 to see it whole)`,
    );
  const structured: Record<string, unknown> = {
    type: 'text',
    filePath,
    content: numbered,
    startLine: value.startLine,
    numLines,
    totalLines: value.totalLines,
    sha256: value.sha256,
    truncated: value.truncated,
  };
  if (value.nextOffset !== undefined) structured.nextOffset = value.nextOffset;
  if (cut.length > 0) structured.cutLines = cut;
  return answer([numbered, ...notes].filter((s) => s !== '').join('\n'), structured);
}

/** Write: created or updated, and the syntax errors the new content introduced (for a source file). */
export function writeAnswer(value: WriteValue, view: PathView): CallToolResult {
  const filePath = view.absolute(value.path);
  const head = value.created ? `File created successfully at: ${filePath}` : `The file ${filePath} has been updated.`;
  const structured: Record<string, unknown> = {
    type: value.created ? 'create' : 'update',
    filePath,
    bytes: value.bytes,
    sha256: value.sha256,
  };
  if (value.syntax) structured.syntax = value.syntax;
  return answer([head, ...syntaxLines(value.syntax as Row | undefined)].join('\n'), structured);
}

/** Edit and MultiEdit: the numbered lines around each change (Claude Code's snippet), the syntax check; the diff in the structure. */
export function editAnswer(value: EditValue, view: PathView): CallToolResult {
  const filePath = view.absolute(value.path);
  const count = `${value.replacements} replacement${value.replacements === 1 ? '' : 's'}`;
  const lines = [
    `The file ${filePath} has been updated (${count}). Here's the result of running \`cat -n\` on a snippet of the edited file:`,
    value.snippet,
    ...(value.truncated ? ['(the snippet was cut at its size limit)'] : []),
    ...syntaxLines(value.syntax as Row | undefined),
  ];
  const structured: Record<string, unknown> = {
    filePath,
    replacements: value.replacements,
    sha256: value.sha256,
    snippet: value.snippet,
    diff: value.diff,
    truncated: value.truncated,
  };
  if (value.syntax) structured.syntax = value.syntax;
  return answer(lines.join('\n'), structured);
}

/** Edit with an empty old_string, and MultiEdit whose first edit has one: the file was created with the text. */
export function createdAnswer(value: WriteValue, text: string, replacements: number, view: PathView): CallToolResult {
  const filePath = view.absolute(value.path);
  const shown = numberLines(text.length > SNIPPET_MAX_CHARS ? text.slice(0, SNIPPET_MAX_CHARS) : text, 1);
  const truncated = text.length > SNIPPET_MAX_CHARS;
  const lines = [
    `File created successfully at: ${filePath}. Here's the result of running \`cat -n\` on the new file:`,
    shown,
    ...(truncated ? ['(cut at its size limit)'] : []),
    ...syntaxLines(value.syntax as Row | undefined),
  ];
  const structured: Record<string, unknown> = {
    filePath,
    replacements,
    sha256: value.sha256,
    snippet: shown,
    diff: '',
    truncated,
    created: true,
  };
  if (value.syntax) structured.syntax = value.syntax;
  return answer(lines.join('\n'), structured);
}

/** Most characters of a created file shown back (as edit's report). */
const SNIPPET_MAX_CHARS = 16 * 1024;

/** Most paths Glob returns, as Claude Code's Glob. */
const GLOB_MAX_FILES = 100;

/**
 * Glob: the files of a list sorted newest first, absolute, at most `GLOB_MAX_FILES`; "No files
 * found"; the truncation and what `.gitignore` hid.
 */
export function globAnswer(value: ListValue, view: PathView): CallToolResult {
  const files = value.entries.filter((e) => e.type === 'file');
  const filenames = files.slice(0, GLOB_MAX_FILES).map((e) => view.absolute(e.path));
  const truncated = files.length > GLOB_MAX_FILES || value.truncated;
  const lines = filenames.length > 0 ? [...filenames] : ['No files found'];
  if (truncated) lines.push('(Results are truncated. Consider using a more specific path or pattern.)');
  if (value.ignored !== undefined) lines.push(ignoredNote(value.ignored));
  const structured: Record<string, unknown> = { filenames, numFiles: filenames.length, truncated };
  if (value.ignored !== undefined) structured.ignored = value.ignored;
  return answer(lines.join('\n'), structured);
}

/** "(1 entry ignored by .gitignore left out)". */
export function ignoredNote(n: number): string {
  return `(${n} ${n === 1 ? 'entry' : 'entries'} ignored by .gitignore left out)`;
}
