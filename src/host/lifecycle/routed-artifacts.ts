/**
 * Routing a run's handoffs into a receiver's view (docs/ARCHITECTURE.md § Runs, handoffs and
 * artifacts): a receiver is a conversation of a run whose role some handoff of that run names as
 * its `to`.
 *
 * - An isolated receiver (`worktree`, `copy`, `empty`) sees each such handoff's folder
 *   `<stateDir>/artifacts/<run>/<role>-v<visit>` read-only at `artifacts/<role>-v<visit>` under
 *   its workspace root: a mount of the host-owned folder, never a copy. Only the routed folders
 *   are mounted: the rest of a workspace's own `artifacts/` stays its own, and a folder of its own
 *   at a routed folder's place is shadowed (read-only, showing the routed files) while the
 *   handoff is routed.
 * - A `shared` receiver (the user's checkout, which gatefs never writes into) gets its seed
 *   inventory instead, a file the host writes into `<stateDir>/artifacts/<run>/inventory/<id>`,
 *   shown read-only at `/artifacts`.
 *
 * A handoff that arrives after the receiver's view was opened shows on its next tool call:
 * `followRouting` compares the run's newest handoff id (one indexed read, any process) with the
 * one the view was opened at, and only when it moved reads the handoffs again.
 *
 * Paths come from the state directory and names checked against their grammars
 * (src/host/platform/workspace-paths.ts): a record never names a path. A routed folder that is
 * missing or is not a folder (a link) is left out.
 */
import type { Backend } from '../../manifest/index.js';
import type { StateStore } from '../../state/index.js';
import type { HostPlatform } from '../platform/index.js';
import { artifactFolderOf, inventoryFolderOf } from '../platform/index.js';

/** Where routed artifact folders are shown, under the workspace root. */
export const ARTIFACTS_AT = 'artifacts';
/** Where a `shared` receiver's seed inventory folder is shown. */
export const INVENTORY_AT = '/artifacts';

/** A routed handoff folder: `path` workspace-relative (`artifacts/<role>-v<visit>`), `folder` its host folder. */
export interface ArtifactMount {
  readonly path: string;
  readonly folder: string;
}

/** What a receiver's view was opened with. */
export interface Routing {
  readonly run: string;
  readonly role: string;
  readonly shared: boolean;
  /** The run's newest handoff id when the routing was read. */
  lastId: number;
  /** The routed handoffs, as compared: folders (isolated) or handoff ids (shared). */
  readonly key: string;
  /** Isolated receivers: the routed folders, oldest handoff first. */
  readonly artifactMounts: readonly ArtifactMount[];
  /** `shared` receivers: the inventory's host folder. */
  readonly inventoryFolder?: string;
}

type RoutingParts = { readonly store: Pick<StateStore, 'runs'>; readonly platform: HostPlatform };

/** The routing of `conversation` now, or undefined when it is in no run. */
export function routingOf(parts: RoutingParts, conversation: string, backend: Backend): Routing | undefined {
  const visit = parts.store.runs.visitOf(conversation);
  if (!visit) return undefined;
  // Read first: a handoff recorded between the two reads moves it again, and the next call looks.
  const lastId = parts.store.runs.lastHandoffOf(visit.run);
  const handoffs = parts.store.runs.handoffsTo(visit.run, visit.role);
  const base = { run: visit.run, role: visit.role, lastId };
  if (backend === 'shared') {
    return {
      ...base,
      shared: true,
      key: handoffs.map((h) => h.id).join(','),
      artifactMounts: [],
      inventoryFolder: inventoryFolderOf(parts.platform, visit.run, conversation),
    };
  }
  const folders = handoffs.flatMap((h) => (h.folder === null ? [] : [h.folder]));
  return {
    ...base,
    shared: false,
    key: folders.join('/'),
    artifactMounts: folders
      .map((folder) => ({ path: `${ARTIFACTS_AT}/${folder}`, folder: artifactFolderOf(parts.platform, visit.run, folder) }))
      .filter((m) => parts.platform.folderState(m.folder) === 'folder'),
  };
}

/**
 * True while `seen` (what a view was opened with) still holds for its receiver: the run has no
 * newer handoff, or its newer ones route nothing new to the receiver's role (then `seen.lastId`
 * moves on, so the next call reads one id again). False when the routed handoffs changed: the
 * view must be opened again (isolated) or the inventory written again (shared).
 */
export function routingHolds(parts: RoutingParts, conversation: string, backend: Backend, seen: Routing): boolean {
  const lastId = parts.store.runs.lastHandoffOf(seen.run);
  if (lastId === seen.lastId) return true;
  const now = routingOf(parts, conversation, backend);
  if (!now || now.key !== seen.key) return false;
  seen.lastId = now.lastId;
  return true;
}
