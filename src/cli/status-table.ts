/**
 * The readable form of workspace rows (`gatefs status`, `prepare`, `serve` logs): one row per
 * workspace with the columns of docs/ARCHITECTURE.md § CLI (RUN: `<run>/v<visit>`, the conversation's
 * visit of its role in its run; empty for a workspace prepared before runs existed), then its parent (a subagent) or, for a
 * root conversation, how many submissions of its lineage have landed, and its snapshots (how many,
 * and their size in the store).
 *
 * Below it, the agent model's occupancy (`formatBindingLines`): one line per binding beyond the
 * default (what a conversation attached, an own workspace whose write was given up, an active
 * workspace other than its own, an agent identity other than its role), so a status with none of
 * them reads as it always did.
 */
import type { WorkspaceStatus } from '../host/composition/index.js';
import { formatBytes } from './snapshot-text.js';
import { formatTable } from './table.js';

/** Formats workspace rows as a table; the pinned sha is shortened to 12 characters. */
export function formatStatusTable(rows: readonly WorkspaceStatus[]): string {
  if (rows.length === 0) return 'No workspaces yet. Prepare one with: gatefs prepare <conversation>';
  const table = formatTable(
    ['CONVERSATION', 'ROLE', 'RUN', 'BACKEND', 'GUARANTEE', 'STATE', 'BRANCH', 'PINNED', 'HOLDER', 'PARENT', 'LANDED', 'SNAPSHOTS'],
    rows.map((w) => [
      w.conversation,
      w.role,
      w.run === null ? '' : `${w.run}/v${w.visit}`,
      w.backend,
      w.guarantee,
      w.state,
      w.branch,
      w.pinnedSha?.slice(0, 12),
      w.holder,
      w.parent,
      w.parent ? '' : w.landed,
      w.snapshots && w.snapshots.count > 0 ? `${w.snapshots.count} (${formatBytes(w.snapshots.bytes)})` : '',
    ]),
  );
  const bindings = formatBindingLines(rows);
  const shown = bindings === '' ? table : `${table}\n\n${bindings}`;
  // SECURITY.md §3: the weaker walk (no procfs) is reported, never silent.
  const weak = rows.some((w) => w.confinement === 'lstat-fallback');
  return weak
    ? `${shown}\nWARNING: /proc/self/fd is not available: paths are confined by a per-component lstat check, which a concurrent symlink swap can race.`
    : shown;
}

/**
 * The occupancy records beyond the default, as a table under the heading `BINDINGS`: HOLDER (the
 * conversation), AGENT, WORKSPACE (`*` marks its active one), MODE, ACQUIRED (UTC); '' when there
 * are none. A conversation's own `exclusive-write` binding is the default and is not listed, unless
 * its agent is not its role's name (then that row shows the agent).
 */
export function formatBindingLines(rows: readonly WorkspaceStatus[]): string {
  const lines: (string | null)[][] = [];
  for (const w of rows) {
    if (!w.agent) continue;
    const mark = (workspace: string) => (workspace === w.active ? `${workspace}*` : workspace);
    const listed = w.bindings.filter((b) => !b.own || b.mode !== 'exclusive-write');
    for (const b of listed) lines.push([w.conversation, w.agent, mark(b.workspace), b.mode, timeOf(b.acquiredAt)]);
    const activeListed = w.active === null || listed.some((b) => b.workspace === w.active);
    if (!activeListed && w.active !== w.conversation) lines.push([w.conversation, w.agent, mark(w.active!), null, null]);
    else if (listed.length === 0 && w.agent !== w.role) {
      // Only its agent is beyond the default: its own workspace's row, so the line reads whole.
      const own = w.bindings.find((b) => b.own);
      lines.push([w.conversation, w.agent, mark(w.conversation), own?.mode ?? null, own ? timeOf(own.acquiredAt) : null]);
    }
  }
  if (lines.length === 0) return '';
  return `BINDINGS (* = the holder's active workspace)\n${formatTable(['HOLDER', 'AGENT', 'WORKSPACE', 'MODE', 'ACQUIRED'], lines)}`;
}

/** A store time as UTC to the second. */
function timeOf(at: number): string {
  return Number.isFinite(at) && at > 0 ? new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z') : String(at);
}
