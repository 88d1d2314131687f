/**
 * `statusOf`: one `gatefs status` row from a workspace record — conversation, role, backend,
 * guarantee, state, branch, pinned SHA and the current occupancy holder. No host paths. A
 * holder whose process is gone is not shown (the next write or acquire ends it).
 */
import type { OccupancyRecord } from '../../state/occupancy-table.js';
import type { StateStore } from '../../state/store.js';
import type { WorkspaceRecord } from '../../state/workspace-table.js';
import type { WorkspaceStatus } from '../composition/host.js';

/**
 * The status row of `record`; `confinement` is the platform's (see `WorkspaceStatus`);
 * `isLive` filters the holders shown (default: all).
 */
export function statusOf(
  record: WorkspaceRecord,
  store: StateStore,
  confinement?: string,
  isLive: (holder: OccupancyRecord) => boolean = () => true,
): WorkspaceStatus {
  const holders = store.occupancy.current(record.conversation).filter(isLive);
  const writer = holders.find((h) => h.mode === 'exclusive-write') ?? holders[0];
  return {
    conversation: record.conversation,
    role: record.role,
    backend: record.backend,
    guarantee: record.guarantee,
    state: record.state === 'failed' ? 'released' : record.state,
    branch: record.branch,
    pinnedSha: record.pinnedSha,
    holder: writer?.holder ?? null,
    ...(confinement ? { confinement } : {}),
  };
}
