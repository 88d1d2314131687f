/**
 * Step 1 of a release (release-workspace.ts): the workspace out of service. The release takes
 * exclusive occupancy as its own holder, so the gate of every process answers `OCCUPIED` to
 * writers (a live holder refuses the release unless `force`), and shuts the workspace's write
 * door (src/ports/write-door.ts), waiting for writes other processes started before.
 */
import type { ShutDoor, WriteDoors } from '../../ports/index.js';
import type { StateStore } from '../../state/index.js';
import { WorkspaceError, isWorkspaceError } from '../../workspace-error.js';
import type { OccupancyGuard } from '../occupancy/index.js';

/**
 * Step 1, across processes: shuts the workspace's write door (src/ports/write-door.ts), waiting
 * for writes another process started before the release took the workspace. Result: the shut
 * door (null on a host without doors). Throws `BUSY` when writers stay inside past the bound.
 */
export async function shutDoor(doors: WriteDoors | undefined, conversation: string): Promise<ShutDoor | null> {
  if (!doors) return null;
  const door = await doors.shut(conversation);
  if (door) return door;
  const seconds = Math.round(doors.shutWaitMs / 100) / 10;
  throw new WorkspaceError(
    'BUSY',
    `writes to '${conversation}' were still running after ${seconds} s (another process, maybe stopped): it was not released`,
    {
      conversation,
      hint: 'retry the release once those writes are done',
    },
  );
}

/**
 * Step 1: exclusive occupancy for the release's holder. Result: the live holders ended by
 * `force`. Throws `OCCUPIED` (data.holder, data.hint) while a live holder has it and `force`
 * is not given.
 */
export function takeOccupancy(
  parts: { readonly store: StateStore; readonly occupancy: Pick<OccupancyGuard, 'acquire'> },
  conversation: string,
  holder: string,
  force: boolean,
): string[] {
  try {
    parts.occupancy.acquire(conversation, holder, 'exclusive-write');
    return [];
  } catch (e) {
    if (!isWorkspaceError(e, 'OCCUPIED')) throw e;
    const current = String(e.data.holder);
    if (!force) {
      parts.store.runLog.append({ type: 'release.refused', conversation, data: { code: 'OCCUPIED', holder: current } });
      throw new WorkspaceError(
        'OCCUPIED',
        `conversation '${conversation}' is in use by '${current}' (${String(e.data.mode)}): it was not released`,
        {
          ...e.data,
          hint: `stop that session first, or release with force (gatefs release ${conversation} --force) to end its occupancy`,
        },
      );
    }
    const others = parts.store.occupancy.activeRecords(conversation).filter((r) => r.holder !== holder);
    for (const r of others) {
      if (parts.store.occupancy.end(r.id))
        parts.store.runLog.append({ type: 'occupancy.forced_end', conversation, data: { holder: r.holder, mode: r.mode, by: holder } });
    }
    parts.occupancy.acquire(conversation, holder, 'exclusive-write');
    return others.map((r) => r.holder);
  }
}
