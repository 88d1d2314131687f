/**
 * The readable run log: one line per event (sequence, type, conversation, and the few data
 * fields a person scans for: tool, outcome code, path, role). Never file contents.
 */
import type { RunEvent } from '../state/event-log.js';
import { formatTable } from './table.js';

const SHOWN_KEYS = ['tool', 'outcome', 'code', 'tag', 'argv', 'exitCode', 'role', 'backend', 'branch', 'holder', 'mode', 'paths'];

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

function details(data: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of SHOWN_KEYS) {
    const v = data[key];
    if (v === undefined || v === null) continue;
    const text = Array.isArray(v) ? v.join(key === 'argv' ? ' ' : ',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
    parts.push(`${key}=${key === 'argv' ? `"${text}"` : text}`);
  }
  return parts.join(' ').slice(0, 100);
}
