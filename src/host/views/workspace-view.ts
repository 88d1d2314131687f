/**
 * `openWorkspaceView`: builds a conversation's namespace from its recorded workspace — the
 * root layer for its backend plus its mounts — and holds the folder handles until `close()`.
 *
 * - `worktree`: the worktree folder, writable.
 * - `shared`: the integration checkout, writable.
 * - `empty`: its scratch folder `<stateDir>/scratch/<id>`, writable, like a worktree's folder
 *   but with no repository behind it (no pinned commit; relative mounts are refused at load).
 * - `copy`: an overlay whose upper is the durable copy folder and whose lower is the pinned
 *   commit's tree: served from git objects at first (a git-tree layer: O(1)), switched to the
 *   commit checked out into its lower folder once the host has made it (`WorkspaceView.lower`,
 *   src/host/lower/lower-folders.ts); or, for a folder that is not a git repository, the folder
 *   itself read-only.
 * - relative mounts (`.campaign`): read-only, from the pinned commit (or the plain folder).
 *   A relative mount declared writable is still served read-only: the snapshot is immutable.
 * - absolute mounts: host folders with their write flag. A read-only one is wrapped in
 *   `readOnly()` and its identity is given to every writable layer's guard, so the same tree
 *   reached through a writable root stays read-only; the state directory's identity is
 *   guarded the same way (`PROTECTED_PATH`). A read-only mount whose folder lies inside a
 *   writable folder (by path) is also refused by name (`withPathRules`), which covers memory
 *   layers, which have no identity.
 *
 * - artifact mounts (`artifactMounts`, computed by src/host/lifecycle/routed-artifacts.ts): the
 *   host-owned folders of the handoffs routed to the conversation, each read-only at its place
 *   (`artifacts/<role>-v<visit>` under the root, or `/artifacts` for a `shared` receiver's seed
 *   inventory), opened confined like an absolute read-only mount, `readOnly()`-wrapped, and its
 *   identity given to every writable layer's guard. They lie inside the state directory, which
 *   they may (the host made them); a routed folder shadows whatever the workspace holds at its
 *   place, and one at a place another mount takes is left out.
 *
 * - the agent's home (`home`, src/host/platform/agent-home.ts): `<stateDir>/homes/<agent>`,
 *   writable at `/home` in every backend, opened like the workspace's own folder (it lies inside
 *   the state directory); `/home/.gatefs` and below are readable and `PROTECTED_PATH` to every
 *   change (names folded). Manifests cannot mount at or under `/home` (refused at load).
 *
 * Every host folder is a root like any other (docs/ARCHITECTURE.md § Trust boundary, "Roots"): it
 * is reached from the state directory, the repository or `/` without following a link
 * (`HostPlatform.openFolder`), and a mount whose folder lies inside the state directory (another
 * conversation's worktree) is refused. Wherever a folder holds the state directory — the `shared`
 * checkout, a plain-folder copy or relative mount, an absolute mount of the repository, read-only
 * or writable — it is hidden there (absent from listings, `NOT_FOUND` to reads, `PROTECTED_PATH` to
 * changes). A submodule of the pinned tree or a nested repository (a folder holding `.git`) inside
 * the workspace root is readable and `PROTECTED_PATH` to any change (vfs/repository-boundary.ts).
 * The authority files (`gatefs.yaml` at the workspace root in every backend, and the manifest or
 * settings file loaded wherever a mount or the root shows it) are readable and `PROTECTED_PATH` to
 * any change (vfs/namespace.ts `authorityFiles`).
 *
 * Throws `WorkspaceError` `PREPARATION_FAILED` when a folder it needs is missing
 * (data.reason `MISSING_FOLDER`), cannot be reached without following a link
 * (`FOLDER_THROUGH_LINK`), or is a mount inside the state directory (`MOUNT_IN_STATE_DIR`).
 */
import type { MountSpec } from '../../manifest/index.js';
import type { Backend } from '../../manifest/index.js';
import type { GitObjectReader } from '../../../vfs/index.js';
import { gitTreeLayer } from '../../../vfs/index.js';
import type { HostGuard } from '../../../vfs/index.js';
import type { Layer, WritableLayer } from '../../../vfs/index.js';
import type { Mount } from '../../../vfs/index.js';
import { Namespace } from '../../../vfs/index.js';
import { overlay } from '../../../vfs/index.js';
import { readOnly } from '../../../vfs/index.js';
import { snapshotFolder } from '../../../vfs/index.js';
import { SwitchableLayer } from '../../../vfs/index.js';
import { workspaceRoot } from '../../../vfs/index.js';
import { withPathRules } from '../../../vfs/index.js';
import { RepositoryBoundary } from '../../../vfs/index.js';
import { FoldedPath, type Resolved } from '../../../vfs/index.js';
import { HOME_ANCHOR, HOME_RUNTIME_FOLDER, type HostPlatform } from '../platform/index.js';
import { ViewFolders, identityKey } from './view-folders.js';
import { attachedMounts, releasedMount, type AttachedWorkspace } from './attached-workspaces.js';

/** What a view is built from (the fields of a workspace record that matter). */
export interface WorkspaceViewSpec {
  conversation: string;
  backend: Backend;
  /** Worktree folder (`worktree`), the checkout (`shared`), the copy's upper folder (`copy`) or the scratch folder (`empty`). */
  checkoutPath: string;
  /** The pinned commit, or null for a folder that is not a git repository. */
  pinnedSha: string | null;
  mounts: readonly MountSpec[];
  /**
   * Folders of the source checkout shown read-only at the same place in the workspace (the
   * role's `share:`, e.g. `node_modules`), when the checkout has them as folders.
   */
  shares?: readonly string[];
  /**
   * Host-owned folders shown read-only (routed handoff artifacts): `path` workspace-relative
   * (`artifacts/planner-v1`) or absolute (`/artifacts`), `folder` the host folder, inside the
   * state directory.
   */
  artifactMounts?: readonly { path: string; folder: string }[];
  /** Wraps a `worktree` root layer (progressive disclosure's projection); absent: served as is. */
  wrapRoot?: (root: WritableLayer) => WritableLayer;
  /** `copy` of a commit: called once, on the first read that reaches the pinned tree. */
  onLowerUse?: () => void;
  /**
   * The agent's home folder (`<stateDir>/homes/<agent>`, inside the state directory, which it
   * may: the host made it), shown writable at `/home`; its `.gatefs/` is readable and
   * `PROTECTED_PATH` to every change (`homeMount`). Absent: no `/home`.
   */
  home?: string;
  /** The workspaces the conversation has attached, each at its anchor (src/host/views/attached-workspaces.ts). */
  attached?: readonly AttachedWorkspace[];
  /** Anchors of workspaces released under the conversation's bindings: every path there answers `WORKSPACE_RELEASED`. */
  released?: readonly string[];
  /**
   * The own root's write flag (default writable) and what a change there answers when it is not
   * (default `READ_ONLY`; `OCCUPIED` while another conversation holds it exclusive-write).
   */
  own?: { writable: boolean; refusal?: () => 'READ_ONLY' | 'OCCUPIED' };
  /** The active workspace's anchor: relative paths resolve there (default, or not a mount: the own root). */
  active?: string;
}

/** The pinned tree under a `copy` workspace, and the switch to its lower folder. */
export interface CopyLower {
  /** True once the lower folder is served (false: git objects). */
  readonly servesFolder: boolean;
  /**
   * Opens the finished lower folder at host path `path` (inside the state directory, reached
   * without following a link) and serves the pinned tree from it from the next call on; calls
   * under way finish on git objects, which show the same tree (vfs/snapshot-folder-layer.ts).
   * The view closes it with its other handles. Throws `WorkspaceError` `PREPARATION_FAILED` as
   * opening any folder does; the view then keeps serving git objects.
   */
  serveFolder(path: string): void;
}

/** A conversation's namespace and the handles behind it. */
export interface WorkspaceView {
  readonly namespace: Namespace;
  /** `copy` of a commit: its pinned tree (absent for other backends and for plain folders). */
  readonly lower?: CopyLower;
  /** Closes every folder handle (idempotent). */
  close(): void;
}

/**
 * Builds the namespace of one recorded workspace (see the file comment) and opens the folder
 * handles behind it. Throws `WorkspaceError` `PREPARATION_FAILED` (data.reason
 * `MISSING_FOLDER`, `FOLDER_THROUGH_LINK`, `MOUNT_IN_STATE_DIR`); nothing stays open then.
 */
export function openWorkspaceView(platform: HostPlatform, objects: GitObjectReader | null, spec: WorkspaceViewSpec): WorkspaceView {
  const root = workspaceRoot(spec.conversation);
  const folders = new ViewFolders(platform, spec.conversation, root);
  try {
    // Read-only host mounts first: their identities make the guard every writable folder gets.
    const readOnlyMounts = openReadOnlyMounts(platform, spec, folders);
    const parts: ViewParts = {
      platform,
      spec,
      root,
      folders,
      guard: readOnlyMounts.guard,
      snapshot: (sub) => (spec.pinnedSha && objects ? gitTreeLayer(objects, spec.pinnedSha, sub) : null),
    };
    const mounts = [
      ...readOnlyMounts.mounts,
      ...writableMounts(parts),
      ...relativeMounts(parts),
      ...sharedFolders(parts),
      ...homeMount(parts),
    ];
    const own = spec.own ?? { writable: true };
    mounts.unshift({ path: root, layer: rootLayer(parts), writable: own.writable, ...(own.refusal ? { refusal: own.refusal } : {}) });
    const taken = new Set(mounts.map((m) => m.path));
    const attached = (spec.attached ?? []).filter((a) => !taken.has(a.anchor));
    const tree = (sha: string) => (objects ? gitTreeLayer(objects, sha) : null);
    mounts.push(...attachedMounts({ platform, folders, guard: parts.guard, tree }, attached));
    for (const anchor of spec.released ?? []) if (!mounts.some((m) => m.path === anchor)) mounts.push(releasedMount(anchor));
    const active = spec.active !== undefined && mounts.some((m) => m.path === spec.active) ? spec.active : root;
    // Submodules are read from the pinned tree (a worktree shows one it never checked out as an empty folder).
    const pinned = spec.pinnedSha && objects ? gitTreeLayer(objects, spec.pinnedSha) : undefined;
    const namespace = new Namespace({
      root,
      cwd: active,
      mounts,
      authorityFiles: [...folders.authority],
      isProtected: (r) => folders.isProtected(r) || isHomeRuntime(r),
      repositoryBoundary: new RepositoryBoundary(pinned),
    });
    return { namespace, ...(parts.lower ? { lower: parts.lower } : {}), close: () => folders.close() };
  } catch (e) {
    folders.close();
    throw e;
  }
}

/** What the pieces of one view share while it is being built. */
interface ViewParts {
  platform: HostPlatform;
  spec: WorkspaceViewSpec;
  /** The workspace root's namespace path. */
  root: string;
  folders: ViewFolders;
  /** Refuses writes into the read-only mounts and the state directory by identity; undefined when none has one. */
  guard: HostGuard | undefined;
  /** The pinned commit's tree at `sub`, or null for a folder that is not a git repository. */
  snapshot: (sub: string) => Layer | null;
  /** Set by `rootLayer` for a `copy` of a commit. */
  lower?: CopyLower;
}

function isAbsoluteMount(m: MountSpec): boolean {
  return m.path.startsWith('/');
}

/**
 * The absolute read-only mounts, each wrapped in `readOnly()`, and the guard that refuses writes
 * by identity into them (`READ_ONLY`) and into the state directory (`PROTECTED_PATH`) from any
 * writable layer, so the same tree reached through a writable root stays read-only.
 */
function openReadOnlyMounts(
  platform: HostPlatform,
  spec: WorkspaceViewSpec,
  folders: ViewFolders,
): { mounts: Mount[]; guard: HostGuard | undefined } {
  const guarded = new Map<string, 'READ_ONLY' | 'PROTECTED_PATH'>();
  const stateId = platform.identityOf(platform.stateDir);
  if (stateId) guarded.set(identityKey(stateId), 'PROTECTED_PATH');
  const mounts: Mount[] = [];
  for (const m of spec.mounts.filter((m) => isAbsoluteMount(m) && !m.writable)) {
    const folder = folders.open(m.path, 'read-only mount', m.path);
    if (folder.identity) guarded.set(identityKey(folder.identity), 'READ_ONLY');
    mounts.push({
      path: m.path,
      layer: readOnly(withPathRules(folder.layer, { hidden: folders.stateIn(m.path, m.path) })),
      writable: false,
    });
  }
  const root = workspaceRoot(spec.conversation);
  const taken = new Set([
    ...spec.mounts.map((m) => (isAbsoluteMount(m) ? m.path : `${root}/${m.path}`)),
    ...(spec.shares ?? []).map((s) => `${root}/${s}`),
  ]);
  for (const a of spec.artifactMounts ?? []) {
    const at = a.path.startsWith('/') ? a.path : `${root}/${a.path}`;
    if (taken.has(at)) continue;
    taken.add(at);
    // The host made it inside the state directory: opened as the workspace's own folders are.
    const folder = folders.open(a.folder, 'artifact folder', at, undefined, true);
    if (folder.identity) guarded.set(identityKey(folder.identity), 'READ_ONLY');
    mounts.push({ path: at, layer: readOnly(folder.layer), writable: false });
  }
  const guard: HostGuard | undefined = guarded.size > 0 ? (id) => guarded.get(identityKey(id)) : undefined;
  return { mounts, guard };
}

/**
 * A writable host folder as a layer: guarded by identity, and, where read-only mounts lie inside
 * it (by path), refusing writes there by name too (`withPathRules`, which covers memory layers,
 * which have no identity); the state directory inside it is hidden.
 */
function writableFolder(parts: ViewParts, path: string, what: string, at: string, ownState = false): WritableLayer {
  const { platform, spec, folders } = parts;
  const readOnlyFolders = spec.mounts.filter((m) => isAbsoluteMount(m) && !m.writable).map((m) => m.path);
  const inside = readOnlyFolders.map((ro) => platform.relativeInside(path, ro)).filter((rel): rel is string => rel !== null);
  return withPathRules(folders.open(path, what, at, parts.guard, ownState).layer, { readOnly: inside, hidden: folders.stateIn(path, at) });
}

/** The absolute writable mounts. */
function writableMounts(parts: ViewParts): Mount[] {
  return parts.spec.mounts
    .filter((m) => isAbsoluteMount(m) && m.writable)
    .map((m) => ({ path: m.path, layer: writableFolder(parts, m.path, 'writable mount', m.path), writable: true }));
}

/** The relative mounts (`.campaign`): read-only, from the pinned commit, or the plain folder without a commit. */
function relativeMounts(parts: ViewParts): Mount[] {
  const { platform, spec, root, folders } = parts;
  return spec.mounts
    .filter((m) => !isAbsoluteMount(m))
    .map((m) => {
      const at = `${root}/${m.path}`;
      const folder = platform.join(platform.repo, m.path);
      const layer =
        parts.snapshot(m.path) ??
        withPathRules(readOnly(folders.open(folder, 'mounted folder', at).layer), { hidden: folders.stateIn(folder, at) });
      return { path: at, layer: readOnly(layer), writable: false };
    });
}

/**
 * The role's `share:` folders: each folder of the source checkout that exists there as a folder
 * (not a link), read-only at the same place in the workspace; a missing one shows nothing.
 */
function sharedFolders(parts: ViewParts): Mount[] {
  const { platform, spec, root, folders } = parts;
  return (spec.shares ?? [])
    .filter((rel) => platform.folderState(platform.join(platform.repo, rel)) === 'folder')
    .map((rel) => {
      const at = `${root}/${rel}`;
      const folder = platform.join(platform.repo, rel);
      return {
        path: at,
        layer: readOnly(withPathRules(folders.open(folder, 'shared folder', at).layer, { hidden: folders.stateIn(folder, at) })),
        writable: false,
      };
    });
}

/**
 * The agent's home at `/home` (`WorkspaceViewSpec.home`): opened as the workspace's own folders
 * are (inside the state directory, no link followed on the way), writable, guarded like them.
 */
function homeMount(parts: ViewParts): Mount[] {
  const { spec, folders } = parts;
  if (spec.home === undefined) return [];
  return [{ path: HOME_ANCHOR, layer: folders.open(spec.home, 'agent home', HOME_ANCHOR, parts.guard, true).layer, writable: true }];
}

/** The runtime's folder of the home, compared folded (`.GATEFS` is the same folder on a case-insensitive volume). */
const HOME_RUNTIME = new FoldedPath(HOME_RUNTIME_FOLDER);

/** True at or below `/home/.gatefs`: readable, never changed through tools (`PROTECTED_PATH`). */
function isHomeRuntime(r: Resolved): boolean {
  if (r.mount.path !== HOME_ANCHOR) return false;
  const relation = HOME_RUNTIME.relation(r.rel);
  return relation === 'same' || relation === 'below';
}

/** The switchable lower of a `copy` of a commit, starting on git objects (`tree`); sets `parts.lower`. */
function copyLower(parts: ViewParts, tree: Layer): SwitchableLayer {
  const { spec, root, folders } = parts;
  const lower = new SwitchableLayer(tree, spec.onLowerUse);
  let servesFolder = false;
  parts.lower = {
    get servesFolder() {
      return servesFolder;
    },
    serveFolder(path: string) {
      if (servesFolder) return;
      lower.switchTo(snapshotFolder(folders.open(path, 'lower folder', root, undefined, true).layer));
      servesFolder = true;
    },
  };
  return lower;
}

/** The workspace root's layer for its backend (see the file comment). */
function rootLayer(parts: ViewParts): WritableLayer {
  const { platform, spec, root, folders } = parts;
  switch (spec.backend) {
    case 'worktree': {
      const layer = writableFolder(parts, spec.checkoutPath, 'worktree', root, true);
      return spec.wrapRoot ? spec.wrapRoot(layer) : layer;
    }
    case 'shared':
      return writableFolder(parts, spec.checkoutPath, 'checkout', root);
    case 'empty':
      return writableFolder(parts, spec.checkoutPath, 'scratch folder', root, true);
    case 'copy': {
      const upper = folders.open(spec.checkoutPath, 'copy folder', root, parts.guard, true).layer;
      const tree = parts.snapshot('');
      if (tree) return overlay(upper, copyLower(parts, tree));
      const lower = withPathRules(readOnly(folders.open(platform.repo, 'folder', root).layer), {
        hidden: folders.stateIn(platform.repo, root),
      });
      return overlay(upper, lower);
    }
  }
}
