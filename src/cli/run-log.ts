/**
 * The readable run log: `formatRunLog`, a table of events with the few data fields a person scans
 * for (tool, outcome code, path, role; `gatefs demo`), and `formatEventLine`, one event with every
 * field (`gatefs log`). Never file contents: the run log holds none.
 */
import type { RunEvent } from '../state/index.js';
import { formatTable } from './table.js';
import { describeEvent, summarizeEvent } from '../state/event-summary.js';
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

/** How `formatEventLine` lays an event out. */
export interface EventLineOptions {
  /**
   * The terminal's width: details longer than the line wrap onto continuation lines under the
   * DETAILS column (nothing is cut). Absent: one line per event, however long.
   */
  width?: number;
  /** Every argv word as it ran (the git settings unfolded), on one line; `width` is ignored. */
  wide?: boolean;
}

/** The columns before DETAILS: seq (6), time (20), type (22), conversation (24), each then two spaces. */
const PREFIX_WIDTH = 6 + 2 + 20 + 2 + 22 + 2 + 24 + 2;
/** Fewest columns left for details beside the prefix; on a narrower terminal details wrap under a short indent. */
const MIN_DETAILS_WIDTH = 40;
const SHORT_INDENT = 8;

/**
 * One event (`gatefs log`): sequence, time (UTC, to the second), type, conversation and every
 * field of its data (`describeEvent`: nothing cut), in fixed-width columns that stay aligned
 * line after line; wrapped to `options.width` when given. Each line terminal-safe (a path or git
 * argv holding a line break shows it escaped).
 */
export function formatEventLine(e: RunEvent, options: EventLineOptions = {}): string {
  const time = Number.isFinite(e.at) && e.at > 0 ? new Date(e.at).toISOString().replace(/\.\d{3}Z$/, 'Z') : String(e.at);
  const type = terminalSafeLine(e.type).padEnd(22);
  const conversation = terminalSafeLine(e.conversation ?? '-').padEnd(24);
  const prefix = [String(e.seq).padStart(6), time, type, conversation].join('  ');
  const details = terminalSafeLine(describeEvent(e.data, { foldGitSettings: options.wide !== true }));
  const width = options.wide ? undefined : options.width;
  if (width === undefined || prefix.length + 2 + details.length <= width) return `${prefix}  ${details}`.trimEnd();
  const indent = width - PREFIX_WIDTH >= MIN_DETAILS_WIDTH && prefix.length === PREFIX_WIDTH - 2 ? PREFIX_WIDTH : SHORT_INDENT;
  const first = indent === PREFIX_WIDTH ? `${prefix}  ` : null;
  const lines = wrapWords(details, width - indent);
  const pad = ' '.repeat(indent);
  return first === null
    ? [prefix.trimEnd(), ...lines.map((l) => pad + l)].join('\n')
    : [first + lines[0], ...lines.slice(1).map((l) => pad + l)].join('\n');
}

/** `text` in lines of at most `width` characters, broken at spaces, a longer word broken where it must be. */
function wrapWords(text: string, width: number): string[] {
  const max = Math.max(10, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    let rest = word;
    if (line !== '' && line.length + 1 + rest.length > max) {
      lines.push(line);
      line = '';
    }
    while (rest.length > max - (line === '' ? 0 : line.length + 1)) {
      const room = max - (line === '' ? 0 : line.length + 1);
      lines.push(line === '' ? rest.slice(0, room) : `${line} ${rest.slice(0, room)}`);
      rest = rest.slice(room);
      line = '';
    }
    line = line === '' ? rest : `${line} ${rest}`;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/** The details column of `formatRunLog`: the few data fields a person scans for, at most 100 characters. */
function details(data: Record<string, unknown>): string {
  return summarizeEvent(data);
}
