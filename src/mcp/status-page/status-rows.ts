/**
 * The HTML fragments of the status page: the rows of its three tables and the line of counts
 * above them. The page (`status-page.ts`) is built from them, and the live feed
 * (`status-feed.ts`) sends the same fragments when they change. Every value is HTML-escaped
 * (`esc`), control and invisible characters included. A row that reports a failure (a tool call
 * not ok, a failed landing) carries the class `fail` and starts with a ✗ mark, so it reads as a
 * failure without its colour too.
 */
import { terminalSafeLine } from '../../../tools/text/index.js';
import type { EventRow, StatusSnapshot, SubmissionRow, WorkspaceRow } from './status-snapshot.js';

/**
 * HTML-escapes a value; null, undefined and '' show as an en dash. Control, bidi and invisible
 * characters show escaped too (`terminalSafeLine`): agent-written text can neither reorder nor
 * hide what the page shows.
 */
export function esc(value: unknown): string {
  if (value === null || value === undefined || value === '') return '–';
  return terminalSafeLine(String(value)).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const cells = (values: unknown[]) => values.map((v) => `<td>${esc(v)}</td>`).join('');

/** The ✗ mark that opens the first cell of a failure row. */
const FAIL_MARK = '<span class="mark" title="failed">✗</span> ';

/** A row's first cell, marked when the row reports a failure. */
const first = (value: unknown, failed: boolean | undefined, cls = '') =>
  `<td${cls ? ` class="${cls}"` : ''}>${failed ? FAIL_MARK : ''}${esc(value)}</td>`;

/**
 * The holder cell: the client the holder serves and the conversation (`claude-code · fix-login`),
 * the holder id in its tooltip; the bare id when the holder named no client; a dash when none.
 */
function holderCell(w: WorkspaceRow): string {
  if (w.holder === null) return `<td>${esc(null)}</td>`;
  if (!w.holderClient) return `<td class="id">${esc(w.holder)}</td>`;
  return `<td class="holder" title="${esc(w.holder)}"><b>${esc(w.holderClient)}</b> · ${esc(w.conversation)}</td>`;
}

/** The columns of the workspaces table, in order. */
export const WORKSPACE_COLUMNS = [
  'Conversation',
  'Role',
  'Backend',
  'Guarantee',
  'State',
  'Branch',
  'Pinned',
  'Holder',
  'Sessions',
  'Parent',
  'Landed',
];

/** A row's cells, each with its column's name (`data-l`), which a narrow page shows before the value (the row reflows, no header). */
function labelled(cellsHtml: string): string {
  let i = 0;
  return cellsHtml.replace(/<td(?=[ >])/g, () => `<td data-l="${WORKSPACE_COLUMNS[i++] ?? ''}"`);
}

/** The rows of the workspaces table (each carries its lower-cased text for the filter). */
export function workspaceRowsHtml(rows: readonly WorkspaceRow[]): string {
  return rows
    .map((w) => {
      const search = [w.conversation, w.role, w.backend, w.state, w.branch, w.holderClient, w.holder, w.parent]
        .filter(Boolean)
        .join(' ')
        .toLowerCase();
      return (
        `<tr data-s="${esc(search)}" class="st-${esc(w.state)}">` +
        labelled(
          `<td class="id">${esc(w.conversation)}</td>` +
            cells([w.role, w.backend, w.guarantee]) +
            `<td><span class="badge">${esc(w.state)}</span></td>` +
            cells([w.branch, w.pinned]) +
            holderCell(w) +
            cells([w.sessions, w.parent, w.landed]),
        ) +
        '</tr>'
      );
    })
    .join('');
}

/** The rows of the lander queue. */
export function landerRowsHtml(rows: readonly SubmissionRow[]): string {
  if (rows.length === 0) return '<tr><td colspan="7" class="empty">No submissions yet.</td></tr>';
  return rows
    .map(
      (s) =>
        `<tr class="st-${esc(s.state)}${s.failed ? ' fail' : ''}">${first(s.id, s.failed)}` +
        `${cells([s.conversation, s.target, s.state, s.commit, s.landed, s.reason])}</tr>`,
    )
    .join('');
}

/** Run-log rows, newest first. */
export function eventRowsHtml(rows: readonly EventRow[]): string {
  return [...rows]
    .reverse()
    .map(
      (e) =>
        `<tr${e.failed ? ' class="fail"' : ''}>${first(e.seq, e.failed)}` +
        `${cells([new Date(e.at).toISOString().replace(/\.\d{3}Z$/, 'Z'), e.type, e.conversation, e.details])}</tr>`,
    )
    .join('');
}

/** The line of counts above the tables. */
export function summaryHtml(snapshot: Pick<StatusSnapshot, 'workspaces' | 'lander'>): string {
  const by = new Map<string, number>();
  for (const w of snapshot.workspaces) by.set(w.state, (by.get(w.state) ?? 0) + 1);
  const states = [...by].map(([s, n]) => `${n} ${esc(s)}`).join(', ');
  const held = snapshot.workspaces.filter((w) => w.holder !== null).length;
  const sessions = snapshot.workspaces.reduce((n, w) => n + w.sessions, 0);
  const pending = snapshot.lander.filter((s) => !['done', 'failed'].includes(s.state)).length;
  const failed = snapshot.lander.filter((s) => s.failed).length;
  return (
    `<b>${snapshot.workspaces.length}</b> workspaces${states ? ` (${states})` : ''} · <b>${held}</b> occupied · ` +
    `<b>${sessions}</b> MCP sessions · <b>${pending}</b> in the lander queue` +
    (failed > 0 ? ` · <b class="failed">${FAIL_MARK}${failed} failed</b>` : '')
  );
}
