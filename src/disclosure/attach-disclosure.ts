/**
 * `attachDisclosure`: what the host adds to a workspace view when its record carries a
 * disclosure state — the projection that wraps the worktree's root layer
 * (`withDisclosureHints(sparse(root, visible), service)`) and the `DisclosureService` the
 * registration carries in its `disclosure` slot for `request_files`.
 *
 * The service is wired to the preparation side: materializing (`materializeFiles`) writes
 * the pinned bytes through the worktree's confined root layer and records the sparse patterns
 * through the host's git port (tagged `disclose`, the conversation as its chain); state and
 * records go to the store in one transaction. The gate and the tool only ever hold the
 * service object; neither imports the git port or anything that spawns.
 */
import type { StateStore } from '../state/index.js';
import type { WorkspaceRecord } from '../state/index.js';
import type { GitPort } from '../git/index.js';
import { withDisclosureHints } from '../../vfs/index.js';
import type { WritableLayer } from '../../vfs/index.js';
import { sparse } from '../../vfs/index.js';
import { disclosureStateOf, withDisclosureState } from './disclosure-state.js';
import { DisclosureService } from './disclosure-service.js';
import { PinnedSnapshot } from './pinned-snapshot.js';
import { materializeFiles } from './materialize-files.js';

/** The root wrapper for `openWorkspaceView` and the service for the registration. */
interface AttachedDisclosure {
  /** Wraps the worktree's root layer in the projection; creates the service. */
  wrapRoot(root: WritableLayer): WritableLayer;
  /** The service once `wrapRoot` ran, else undefined. */
  service(): DisclosureService | undefined;
}

/** What `attachDisclosure` needs from the host. */
interface DisclosureHost {
  readonly store: StateStore;
  readonly git: GitPort;
}

/** The disclosure hooks of `record`, or null when it has no disclosure state. */
export function attachDisclosure(host: DisclosureHost, record: WorkspaceRecord): AttachedDisclosure | null {
  const state = disclosureStateOf(record.data);
  if (!state || record.backend !== 'worktree' || !record.pinnedSha || !record.checkoutPath) return null;
  const { conversation, role, pinnedSha } = record;
  const checkoutPath = record.checkoutPath;
  let service: DisclosureService | undefined;
  return {
    wrapRoot(root) {
      const projection = sparse(root, state.visible);
      const snapshot = new PinnedSnapshot(host.git.objects, pinnedSha);
      service = new DisclosureService({
        conversation,
        role,
        visit: () => host.store.runs.visitOf(conversation)?.visit ?? null,
        snapshot,
        projection,
        state,
        materialize: (paths) =>
          materializeFiles({ root, snapshot, git: host.git, checkoutPath, context: { tag: 'disclose', chain: [conversation] } }, paths),
        commit: (next, event) =>
          host.store.transaction(() => {
            const current = host.store.workspaces.get(conversation);
            if (current) host.store.workspaces.update(conversation, { data: withDisclosureState(current.data, next) });
            if (event) host.store.runLog.append(event);
          }),
      });
      return withDisclosureHints(projection, service);
    },
    service: () => service,
  };
}
