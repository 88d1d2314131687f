/**
 * The readable form of workspace rows (`gatefs status`, `prepare`, `serve` logs): one row per
 * workspace with the columns of docs/ARCHITECTURE.md § CLI (RUN: `<run>/v<visit>`, the conversation's
 * visit of its role in its run; empty for a workspace prepared before runs existed), then its parent (a subagent) or, for a
 * root conversation, how many submissions of its lineage have landed, and its snapshots (how many,
 * and their size in the store).
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
  // SECURITY.md §3: the weaker walk (no procfs) is reported, never silent.
  const weak = rows.some((w) => w.confinement === 'lstat-fallback');
  return weak
    ? `${table}\nWARNING: /proc/self/fd is not available: paths are confined by a per-component lstat check, which a concurrent symlink swap can race.`
    : table;
}
