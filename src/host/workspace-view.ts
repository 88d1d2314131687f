/**
 * `openWorkspaceView`: builds a conversation's namespace from its recorded workspace — the
 * root layer for its backend plus its mounts — and holds the folder handles until `close()`.
 *
 * - `worktree`: the worktree folder, writable.
 * - `shared`: the integration checkout, writable.
 * - `copy`: an overlay whose upper is the durable copy folder and whose lower is the pinned
 *   commit's tree (a git-tree layer: O(1)), or, for a folder that is not a git repository, the
 *   folder itself read-only.
 * - relative mounts (`.campaign`): read-only, from the pinned commit (or the plain folder).
 *   A relative mount declared writable is still served read-only: the snapshot is immutable.
 * - absolute mounts: host folders with their write flag. A read-only one is wrapped in
 *   `readOnly()` and its identity is given to every writable layer's guard, so the same tree
 *   reached through a writable root stays read-only; the state directory's identity is
 *   guarded the same way (`PROTECTED_PATH`). A read-only mount whose folder lies inside a
 *   writable folder (by path) is also refused by name (`withPathRules`), which covers memory
 *   layers, which have no identity.
 *
 * Every host folder is a root like any other (DESIGN.md § Trust boundary): it is reached from
 * the state directory, the repository or `/` without following a link (`HostPlatform.openFolder`),
 * and a mount whose folder lies inside the state directory (another conversation's worktree) is
 * refused. Wherever a folder holds the state directory — the `shared` checkout, a plain-folder
 * copy or relative mount, an absolute mount of the repository, read-only or writable — it is
 * hidden there (absent from listings, `NOT_FOUND` to reads, `PROTECTED_PATH` to changes).
 * The authority files (`gatefs.yaml` at the workspace root in every backend, and the manifest
 * or settings file loaded wherever a mount or the root shows it) are readable and
 * `PROTECTED_PATH` to any change (vfs/namespace.ts `authorityFiles`).
 *
 * Throws `WorkspaceError` `PREPARATION_FAILED` when a folder it needs is missing
 * (data.reason `MISSING_FOLDER`), cannot be reached without following a link
 * (`FOLDER_THROUGH_LINK`), or is a mount inside the state directory (`MOUNT_IN_STATE_DIR`).
 */
import type { MountSpec } from '../manifest/types.js';
import type { Backend } from '../manifest/types.js';
import type { GitObjectReader } from '../../vfs/git-object-reader.js';
import { gitTreeLayer } from '../../vfs/git-tree-layer.js';
import type { HostGuard, HostIdentity } from '../../vfs/host-layer.js';
import type { Layer, WritableLayer } from '../../vfs/layer.js';
import type { Mount, Resolved } from '../../vfs/mount-table.js';
import { FoldedPath, type FoldedRelation } from '../../vfs/fold-name.js';
import { Namespace } from '../../vfs/namespace.js';
import { overlay } from '../../vfs/overlay-layer.js';
import { readOnly } from '../../vfs/read-only-layer.js';
import { workspaceRoot } from '../../vfs/workspace-root.js';
import { WorkspaceError } from '../workspace-error.js';
import { isVfsError } from '../../vfs/errors.js';
import { withPathRules } from '../../vfs/path-rules-layer.js';
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
 * handles behind it. Throws `WorkspaceError` `PREPARATION_FAILED` (data.reason
 * `MISSING_FOLDER`, `FOLDER_THROUGH_LINK`, `MOUNT_IN_STATE_DIR`).
 */
export function openWorkspaceView(platform: HostPlatform, objects: GitObjectReader | null, spec: WorkspaceViewSpec): WorkspaceView {
  const opened: OpenedFolder[] = [];
  const root = workspaceRoot(spec.conversation);
  const authorityOnHost = platform.authorityFiles ?? [];
  // Namespace paths of the authority files: `gatefs.yaml` at the root, and the loaded manifest
  // at its place in the workspace when it lies in the repository (a worktree or copy holds a
  // copy that a merge would carry back), plus wherever a mounted folder holds one (`open`).
  const authority = new Set<string>([`${root}/gatefs.yaml`]);
  for (const file of authorityOnHost) {
    const rel = platform.relativeInside(platform.repo, file);
    if (rel) authority.add(`${root}/${rel}`);
  }
  const stateFolded = new FoldedPath(platform.stateDir);
  /**
   * Opens the host folder `path`, shown at namespace path `at`. `ownState`: the folder is this
   * workspace's own worktree or copy, which lives inside the state directory.
   */
  const open = (path: string, what: string, at: string, guard?: HostGuard, ownState = false): OpenedFolder => {
    const data = { conversation: spec.conversation, path };
    // Folded as well: on a case-insensitive volume `<repo>/.GATEFS/worktrees/x` is the state dir.
    const inState = platform.relativeInside(platform.stateDir, path) !== null || isAtOrBelow(stateFolded.relation(path));
    if (!ownState && inState) {
      throw new WorkspaceError('PREPARATION_FAILED', `${what} '${path}' lies inside the gatefs state directory, which no workspace may show`, { ...data, reason: 'MOUNT_IN_STATE_DIR' });
    }
    if (!platform.exists(path)) {
      throw new WorkspaceError('PREPARATION_FAILED', `${what} '${path}' does not exist`, { ...data, reason: 'MISSING_FOLDER' });
    }
    let folder: OpenedFolder;
    try {
      folder = platform.openFolder(path, guard);
    } catch (e) {
      if (!isVfsError(e)) throw e;
      const reason = e.code === 'SYMLINK_ESCAPE' ? 'FOLDER_THROUGH_LINK' : e.code === 'NOT_FOUND' ? 'MISSING_FOLDER' : 'FOLDER_UNREADABLE';
      const why = reason === 'FOLDER_THROUGH_LINK'
        ? `cannot be reached without following the symbolic link '${e.path}' on its way (gatefs never follows links to a workspace folder or mount: name its real path)`
        : `cannot be opened (${e.code} at '${e.path}')`;
      throw new WorkspaceError('PREPARATION_FAILED', `${what} '${path}' ${why}`, { ...data, reason }, { cause: e });
    }
    opened.push(folder);
    for (const file of authorityOnHost) {
      const rel = platform.relativeInside(path, file);
      if (rel) authority.add(`${at}/${rel}`);
    }
    return folder;
  };
  // Where each mount (by namespace path) holds the state directory, so that changes there are
  // `PROTECTED_PATH` even in a read-only mount (the layers hide it from reads).
  const stateAt = new Map<string, FoldedPath>();
  /** Where the state directory lies inside the host folder `path` shown at `at` (layer path), if it does. */
  const stateIn = (path: string, at: string): string | undefined => {
    const rel = platform.relativeInside(path, platform.stateDir) || undefined;
    if (rel !== undefined) stateAt.set(at, new FoldedPath(rel));
    return rel;
  };
  const close = () => opened.splice(0).forEach((f) => f.close());
  try {
    const snapshot = (sub: string): Layer | null => (spec.pinnedSha && objects ? gitTreeLayer(objects, spec.pinnedSha, sub) : null);
    const guarded = new Map<string, 'READ_ONLY' | 'PROTECTED_PATH'>();
    const stateId = platform.identityOf(platform.stateDir);
    if (stateId) guarded.set(key(stateId), 'PROTECTED_PATH');
    const mounts: Mount[] = [];
    for (const m of spec.mounts.filter((m) => m.path.startsWith('/') && !m.writable)) {
      const folder = open(m.path, 'read-only mount', m.path);
      if (folder.identity) guarded.set(key(folder.identity), 'READ_ONLY');
      mounts.push({ path: m.path, layer: readOnly(withPathRules(folder.layer, { hidden: stateIn(m.path, m.path) })), writable: false });
    }
    const guard: HostGuard | undefined = guarded.size > 0 ? (id) => guarded.get(key(id)) : undefined;
    const readOnlyFolders = spec.mounts.filter((m) => m.path.startsWith('/') && !m.writable).map((m) => m.path);
    // A writable folder with read-only mounts inside it: writes there are refused by name too.
    const writableFolder = (path: string, what: string, at: string, ownState = false) => {
      const inside = readOnlyFolders.map((ro) => platform.relativeInside(path, ro)).filter((rel): rel is string => rel !== null);
      return withPathRules(open(path, what, at, guard, ownState).layer, { readOnly: inside, hidden: stateIn(path, at) });
    };
    for (const m of spec.mounts.filter((m) => m.path.startsWith('/') && m.writable)) {
      mounts.push({ path: m.path, layer: writableFolder(m.path, 'writable mount', m.path), writable: true });
    }
    for (const m of spec.mounts.filter((m) => !m.path.startsWith('/'))) {
      const at = `${root}/${m.path}`;
      const folder = platform.join(platform.repo, m.path);
      const layer = snapshot(m.path) ?? withPathRules(readOnly(open(folder, 'mounted folder', at).layer), { hidden: stateIn(folder, at) });
      mounts.push({ path: at, layer: readOnly(layer), writable: false });
    }
    mounts.unshift({ path: root, layer: rootLayer(), writable: true });
    const isProtected = (r: Resolved) => {
      const hidden = stateAt.get(r.mount.path);
      return isAtOrBelow(hidden?.relation(r.rel));
    };
    return { namespace: new Namespace({ root, mounts, authorityFiles: [...authority], isProtected }), close };

    function rootLayer() {
      switch (spec.backend) {
        case 'worktree': {
          const layer = writableFolder(spec.checkoutPath, 'worktree', root, true);
          return spec.wrapRoot ? spec.wrapRoot(layer) : layer;
        }
        case 'shared': {
          return writableFolder(spec.checkoutPath, 'checkout', root);
        }
        case 'copy': {
          const upper = open(spec.checkoutPath, 'copy folder', root, guard, true).layer;
          let lower = snapshot('');
          if (!lower) {
            const plain = readOnly(open(platform.repo, 'folder', root).layer);
            lower = withPathRules(plain, { hidden: stateIn(platform.repo, root) });
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

function isAtOrBelow(relation: FoldedRelation): boolean {
  return relation === 'same' || relation === 'below';
}

function key(id: HostIdentity): string {
  return `${id.dev}:${id.ino}`;
}
