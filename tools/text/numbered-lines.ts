/**
 * How the file tools show lines to a model: numbered like `cat -n` (the number right-aligned in
 * six columns, a tab, the line — the format of Claude Code's Read), and cut when a line is
 * longer than `LINE_CUT_CHARS`, with a marker saying how much was cut and how to see it.
 *
 * Cutting is for tokens: one minified bundle line can hold megabytes. The marker is part of the
 * text the model reads, so it never passes for file content: it starts with ` … [cut:`.
 */

/** Lines longer than this many characters (UTF-16 code units) are cut by read and in edit snippets. */
export const LINE_CUT_CHARS = 2000;

/** `     1\tline`: the line number right-aligned in six columns (wider for huge numbers), a tab, the line. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/** The marker appended to a line cut after `LINE_CUT_CHARS` characters; `rest` characters were left out. */
function cutMarker(lineNumber: number, rest: number): string {
  return ` … [cut: ${rest} more characters; read with offset ${lineNumber} and limit 1 to see the whole line]`;
}

/**
 * `text` (one line, without its terminator) cut to `LINE_CUT_CHARS` characters plus the cut
 * marker, or `text` itself when it is short enough. Never splits a surrogate pair.
 */
export function cutLine(lineNumber: number, text: string, fullLength = text.length): string {
  if (fullLength <= LINE_CUT_CHARS) return text;
  let end = LINE_CUT_CHARS;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${cutMarker(lineNumber, fullLength - end)}`;
}

/**
 * The lines of `content` (a window of a file whose first line is `startLine`), numbered; line
 * breaks ('\n' or '\r\n') are not shown, a final line break adds no empty line.
 */
export function numberLines(content: string, startLine: number): string {
  if (content.length === 0) return '';
  // One pass with indexOf and string concatenation (V8 ropes): no array of lines.
  const end = content.charCodeAt(content.length - 1) === 10 ? content.length - 1 : content.length;
  let out = '';
  let at = 0;
  let n = startLine;
  for (;;) {
    let nl = content.indexOf('\n', at);
    if (nl === -1 || nl > end) nl = end;
    const stop = nl > at && content.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    const line = `${PADDED[n] ?? String(n).padStart(6)}\t${content.slice(at, stop)}`;
    out = at === 0 ? line : `${out}\n${line}`;
    if (nl >= end) return out;
    at = nl + 1;
    n++;
  }
}

/** The first line numbers, already padded (read's default window is 2,000 lines). */
const PADDED: readonly string[] = Array.from({ length: 4001 }, (_, i) => String(i).padStart(6));

/** Each line of `text` (trailing blank lines dropped) after `prefix`: a block shown below its header. */
export function indented(text: string, prefix: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `${prefix}${l}`)
    .join('\n');
}
