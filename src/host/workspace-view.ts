/**
 * `openWorkspaceView`: builds a conversation's namespace from its recorded workspace — the
 * root layer for its backend plus its mounts — and holds the folder handles until `close()`.
 *
 * - `worktree`: the worktree folder, writable.
 * - `shared`: the integration checkout, writable, with the state directory hidden and protected.
 * - `copy`: an overlay whose upper is the durable copy folder and whose lower is the pinned
 *   commit's tree (a git-tree layer: O(1)), or, for a folder that is not a git repository, the
 *   folder itself read-only (state directory hidden).
 * - relative mounts (`.campaign`): read-only, from the pinned commit (or the plain folder).
 *   A relative mount declared writable is still served read-only: the snapshot is immutable.
 * - absolute mounts: host folders with their write flag. A read-only one is wrapped in
 *   `readOnly()` and its identity is given to every writable layer's guard, so the same tree
 *   reached through a writable root stays read-only; the state directory's identity is
 *   guarded the same way (`PROTECTED_PATH`). A read-only mount whose folder lies inside a
 *   writable folder (by path) is also refused by name (`withPathRules`), which covers memory
 *   layers, which have no identity.
 *
 * Throws `WorkspaceError` `PREPARATION_FAILED` when a folder it needs is missing.
 */
import type { MountSpec } from '../manifest/types.js';
import type { Backend } from './types.js';
import type { GitObjectReader } from '../git/git-port.js';
import { gitTreeLayer } from '../../vfs/git-tree-layer.js';
import type { HostGuard, HostIdentity } from '../../vfs/host-layer.js';
import type { Layer, WritableLayer } from '../../vfs/layer.js';
import type { Mount } from '../../vfs/mount-table.js';
import { Namespace } from '../../vfs/namespace.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { workspaceRoot } from '../../vfs/registry.js';
import { WorkspaceError } from '../workspace-error.js';
import { withPathRules } from './path-rules-layer.js';
import type { HostPlatform, OpenedFolder } from './platform.js';

/** What a view is built from (the fields of a workspace record that matter). */
export interface WorkspaceViewSpec {
  conversation: string;
  backend: Backend;
  /** Worktree folder (`worktree`), the checkout (`shared`) or the copy's upper folder (`copy`). */
  checkoutPath: string;
  /** The pinned commit, or null for a folder that is not a git repository. */
  pinnedSha: string | null;
  mounts: readonly MountSpec[];
  /** Wraps a `worktree` root layer (progressive disclosure's projection); absent: served as is. */
  wrapRoot?: (root: WritableLayer) => WritableLayer;
}

/** A conversation's namespace and the handles behind it. */
export interface WorkspaceView {
  readonly namespace: Namespace;
  /** Closes every folder handle (idempotent). */
  close(): void;
}

/**
 * Builds the namespace of one recorded workspace (see the file comment) and opens the folder
 * handles behind it. Throws `WorkspaceError` `PREPARATION_FAILED` (data.reason `MISSING_FOLDER`).
 */
export function openWorkspaceView(platform: HostPlatform, objects: GitObjectReader | null, spec: WorkspaceViewSpec): WorkspaceView {
  const opened: OpenedFolder[] = [];
  const open = (path: string, what: string, guard?: HostGuard) => {
    if (!platform.exists(path)) {
      throw new WorkspaceError('PREPARATION_FAILED', `${what} '${path}' does not exist`, { conversation: spec.conversation, reason: 'MISSING_FOLDER', path });
    }
    const folder = platform.openFolder(path, guard);
    opened.push(folder);
    return folder;
  };
  const close = () => opened.splice(0).forEach((f) => f.close());
  try {
    const root = workspaceRoot(spec.conversation);
    const snapshot = (sub: string): Layer | null => (spec.pinnedSha && objects ? gitTreeLayer(objects, spec.pinnedSha, sub) : null);
    const stateInRepo = platform.relativeInside(platform.repo, platform.stateDir);
    const guarded = new Map<string, 'READ_ONLY' | 'PROTECTED_PATH'>();
    const stateId = platform.identityOf(platform.stateDir);
    if (stateId) guarded.set(key(stateId), 'PROTECTED_PATH');
    const mounts: Mount[] = [];
    for (const m of spec.mounts.filter((m) => m.path.startsWith('/') && !m.writable)) {
      const folder = open(m.path, `read-only mount`);
      if (folder.identity) guarded.set(key(folder.identity), 'READ_ONLY');
      mounts.push({ path: m.path, layer: readOnly(folder.layer), writable: false });
    }
    const guard: HostGuard | undefined = guarded.size > 0 ? (id) => guarded.get(key(id)) : undefined;
    const readOnlyFolders = spec.mounts.filter((m) => m.path.startsWith('/') && !m.writable).map((m) => m.path);
    // A writable folder with read-only mounts inside it: writes there are refused by name too.
    const writableFolder = (path: string, what: string, hidden?: string) => {
      const inside = readOnlyFolders.map((ro) => platform.relativeInside(path, ro)).filter((rel): rel is string => rel !== null);
      return withPathRules(open(path, what, guard).layer, { readOnly: inside, hidden });
    };
    for (const m of spec.mounts.filter((m) => m.path.startsWith('/') && m.writable)) {
      mounts.push({ path: m.path, layer: writableFolder(m.path, 'writable mount'), writable: true });
    }
    for (const m of spec.mounts.filter((m) => !m.path.startsWith('/'))) {
      const layer = snapshot(m.path) ?? readOnly(open(platform.join(platform.repo, m.path), 'mounted folder').layer);
      mounts.push({ path: `${root}/${m.path}`, layer: readOnly(layer), writable: false });
    }
    mounts.unshift({ path: root, layer: rootLayer(), writable: true });
    return { namespace: new Namespace({ root, mounts }), close };

    function rootLayer() {
      switch (spec.backend) {
        case 'worktree': {
          const layer = writableFolder(spec.checkoutPath, 'worktree');
          return spec.wrapRoot ? spec.wrapRoot(layer) : layer;
        }
        case 'shared': {
          return writableFolder(spec.checkoutPath, 'checkout', stateInRepo ?? undefined);
        }
        case 'copy': {
          const upper = open(spec.checkoutPath, 'copy folder', guard).layer;
          let lower = snapshot('');
          if (!lower) {
            const plain = readOnly(open(platform.repo, 'folder').layer);
            lower = withPathRules(plain, { hidden: stateInRepo ?? undefined });
          }
          return overlay(upper, lower);
        }
      }
    }
  } catch (e) {
    close();
    throw e;
  }
}

function key(id: HostIdentity): string {
  return `${id.dev}:${id.ino}`;
}
