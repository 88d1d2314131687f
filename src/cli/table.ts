/**
 * Plain-text tables for the CLI's readable output: left-aligned columns separated by two
 * spaces, a header row, and `-` for empty cells. No colors, so output pastes cleanly. Every cell
 * is terminal-safe as one line (tools/terminal-text.ts): a branch or conversation name holding a
 * line break or an escape sequence shows it escaped and keeps to its row.
 */
import { terminalSafeLine } from '../../tools/text/index.js';

/** Formats `rows` under `headers`; `null`/`undefined`/'' cells print as `-`. */
export function formatTable(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = rows.map((row) => row.map((c) => (c === null || c === undefined || c === '' ? '-' : terminalSafeLine(String(c)))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(headers), ...cells.map(line)].join('\n');
}
