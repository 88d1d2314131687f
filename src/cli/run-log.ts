/**
 * The readable run log: one line per event (sequence, type, conversation, and the few data
 * fields a person scans for: tool, outcome code, path, role). Never file contents.
 */
import type { RunEvent } from '../state/index.js';
import { formatTable } from './table.js';
import { summarizeEvent } from '../state/event-summary.js';
import { terminalSafeLine } from '../../tools/text/index.js';

/** Formats the last `limit` events as a table (all of them when `limit` is omitted). */
export function formatRunLog(events: readonly RunEvent[], limit = Infinity): string {
  const shown = events.slice(Math.max(0, events.length - limit));
  const skipped = events.length - shown.length;
  const table = formatTable(
    ['SEQ', 'TYPE', 'CONVERSATION', 'DETAILS'],
    shown.map((e) => [e.seq, e.type, e.conversation, details(e.data)]),
  );
  return skipped > 0 ? `(${skipped} earlier events not shown)\n${table}` : table;
}

/**
 * One event as one line (`gatefs log`): sequence, time (UTC, to the second), type, conversation
 * and the details `formatRunLog` shows, in fixed-width columns that stay aligned line after line;
 * terminal-safe as one line (a path or git argv holding a line break shows it escaped).
 */
export function formatEventLine(e: RunEvent): string {
  const time = Number.isFinite(e.at) && e.at > 0 ? new Date(e.at).toISOString().replace(/\.\d{3}Z$/, 'Z') : String(e.at);
  const columns = [String(e.seq).padStart(6), time, e.type.padEnd(22), (e.conversation ?? '-').padEnd(24), details(e.data)];
  return terminalSafeLine(columns.join('  ').trimEnd());
}

/** The details column: the few data fields a person scans for, at most 100 characters. */
function details(data: Record<string, unknown>): string {
  return summarizeEvent(data);
}
