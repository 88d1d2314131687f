/** The front door of tools/text: bytes to text and lines, numbered lines, text safe for a terminal, edited text, line diffs. */
export { EditedText, type LineChange } from './edited-text.js';
export { diffLines, type LineEdit, shortestDiff } from './line-diff.js';
export { cutLine, indented, LINE_CUT_CHARS, numberedLine, numberLines } from './numbered-lines.js';
export { terminalSafe, terminalSafeJson, terminalSafeLine, withSafeFields } from './terminal-text.js';
export {
  BINARY_SNIFF_BYTES,
  decodeStrict,
  decodeText,
  encodeText,
  lineStarts,
  looksBinary,
  MAX_TEXT_FILE_BYTES,
  sha256Hex,
  usesCrlf,
} from './text-content.js';
