/**
 * The "Occupancy" section of the status page: the agent model's occupancy records (bindings of
 * workspaces by conversations, src/state/binding-table.ts), newest first, at most
 * `BINDINGS_SHOWN`: holder and its agent identity, workspace, mode, acquired and released times
 * and why it ended — the ended ones too, as recent history. A holder's active workspace is marked.
 * No host paths: a workspace is its id. Everything from the store (an agent name, a workspace
 * id, a reason) is HTML-escaped by `esc`, control and bidi characters included.
 */
import type { Host } from '../../host/composition/index.js';
import { esc } from './status-rows.js';

/** Bindings the page shows at most (the newest). */
const BINDINGS_SHOWN = 100;

/** One binding as the page shows it. */
export interface OccupancyView {
  holder: string;
  /** The holder's agent identity, when it has one recorded. */
  agent: string | null;
  workspace: string;
  mode: string;
  own: boolean;
  /** True while the binding holds and its workspace is the holder's active one. */
  active: boolean;
  acquiredAt: number;
  releasedAt: number | null;
  endReason: string | null;
}

/** The newest bindings of `host` (at most `BINDINGS_SHOWN`), newest first. */
export function occupancyViews(host: Host): OccupancyView[] {
  const states = new Map(host.status().map((w) => [w.conversation, w] as const));
  return host.bindingHistory({ last: BINDINGS_SHOWN }).map((b) => {
    const holder = states.get(b.holder);
    return {
      holder: b.holder,
      agent: holder?.agent ?? null,
      workspace: b.workspace,
      mode: b.mode,
      own: b.own,
      active: b.releasedAt === null && holder?.active === b.workspace,
      acquiredAt: b.acquiredAt,
      releasedAt: b.releasedAt,
      endReason: b.endReason,
    };
  });
}

const time = (at: number | null) => (at === null ? null : new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** The HTML of the Occupancy section's body (the live feed sends it again when it changes). */
export function occupancyHtml(rows: readonly OccupancyView[]): string {
  if (rows.length === 0)
    return '<p class="empty">No bindings yet (a conversation of an isolated backend holds its own workspace once prepared).</p>';
  const head = ['Holder', 'Agent', 'Workspace', 'Mode', 'Acquired (UTC)', 'Released (UTC)', 'Ended by'];
  const body = rows
    .map((r) => {
      const workspace = `${esc(r.workspace)}${r.own ? ' <span class="badge">own</span>' : ''}${r.active ? ' <span class="badge">active</span>' : ''}`;
      const state = r.releasedAt === null ? 'st-ready' : 'st-released';
      return (
        `<tr class="${state}"><td class="id">${esc(r.holder)}</td><td>${esc(r.agent)}</td><td class="id">${workspace}</td>` +
        `<td>${esc(r.mode)}</td><td>${esc(time(r.acquiredAt))}</td><td>${esc(time(r.releasedAt))}</td><td>${esc(r.endReason)}</td></tr>`
      );
    })
    .join('');
  return `<div class="scroll"><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></div>`;
}
