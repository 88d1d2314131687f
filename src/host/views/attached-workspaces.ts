/**
 * The workspaces a conversation has attached (docs/ARCHITECTURE.md § Agent model), as mounts of
 * its namespace, each at its anchor and built like that workspace's own root layer:
 *
 * - another conversation's workspace at `/worktrees/<id>`: its worktree folder, its copy overlay
 *   (the copy folder over its pinned tree from git objects, or the plain folder), its scratch
 *   folder; opened as that workspace's own folders are (inside the state directory, reached
 *   without following a link);
 * - `canonical` at `/canonical`: the source checkout with the state directory hidden and `.git`
 *   protected, as the `shared` backend's root is.
 *
 * Writable only for an `exclusive-write` binding; a `shared-read` one is read-only (`READ_ONLY`).
 * `gatefs.yaml` and the loaded manifest are protected at each anchor as at the own root, and so are
 * the state directory's names. A workspace whose binding ended with its release (or whose folders
 * can no longer be opened) is a marker at its anchor: every path below it answers
 * `WORKSPACE_RELEASED`, never `OUTSIDE_MOUNTS` nor another workspace's file.
 */
import type { Backend } from '../../manifest/index.js';
import type { HostGuard, Layer, Mount } from '../../../vfs/index.js';
import { overlay, readOnly, VfsError, withPathRules } from '../../../vfs/index.js';
import type { HostPlatform } from '../platform/index.js';
import type { ViewFolders } from './view-folders.js';

/** The namespace anchor of the source checkout. */
export const CANONICAL_ANCHOR = '/canonical';

/** The namespace anchor of a workspace id: `/canonical`, `/home`, or `/worktrees/<id>`. */
export function anchorOf(workspace: string): string {
  if (workspace === 'canonical') return CANONICAL_ANCHOR;
  if (workspace === 'home') return '/home';
  return `/worktrees/${workspace}`;
}

/** One attached workspace, as the view builds it. */
export interface AttachedWorkspace {
  /** `/worktrees/<id>` or `/canonical`. */
  anchor: string;
  /** True for an `exclusive-write` binding. */
  writable: boolean;
  /** The attached conversation's backend, or `canonical` for the source checkout. */
  backend: Exclude<Backend, 'shared'> | 'canonical';
  /** Its worktree, copy or scratch folder; the source checkout for `canonical`. */
  checkoutPath: string;
  /** Its pinned commit (a copy's lower tree), or null. */
  pinnedSha: string | null;
}

/** What building the attached mounts uses of the view being built. */
export interface AttachedParts {
  platform: HostPlatform;
  folders: ViewFolders;
  guard: HostGuard | undefined;
  /** The tree of commit `sha`, or null when the host has no git objects. */
  tree: (sha: string) => Layer | null;
}

/** The mounts of the attached workspaces (see the file comment); one whose folders cannot be opened is a released marker. */
export function attachedMounts(parts: AttachedParts, attached: readonly AttachedWorkspace[]): Mount[] {
  return attached.map((a) => {
    try {
      parts.folders.addRoot(a.anchor);
      const layer = attachedLayer(parts, a);
      return { path: a.anchor, layer: a.writable ? layer : readOnly(layer), writable: a.writable };
    } catch {
      // Its folder is gone (released meanwhile) or cannot be reached without a link: nothing of it shows.
      return releasedMount(a.anchor);
    }
  });
}

/** The root layer of one attached workspace. */
function attachedLayer(parts: AttachedParts, a: AttachedWorkspace): Layer {
  const { platform, folders, guard } = parts;
  const hidden = (path: string) => ({ hidden: folders.stateIn(path, a.anchor) });
  switch (a.backend) {
    case 'canonical':
      return withPathRules(folders.open(a.checkoutPath, 'checkout', a.anchor, guard).layer, hidden(a.checkoutPath));
    case 'worktree':
      return folders.open(a.checkoutPath, 'attached worktree', a.anchor, guard, true).layer;
    case 'empty':
      return folders.open(a.checkoutPath, 'attached scratch folder', a.anchor, guard, true).layer;
    case 'copy': {
      const upper = folders.open(a.checkoutPath, 'attached copy folder', a.anchor, guard, true).layer;
      const tree = a.pinnedSha ? parts.tree(a.pinnedSha) : null;
      if (tree) return overlay(upper, tree);
      const lower = withPathRules(readOnly(folders.open(platform.repo, 'folder', a.anchor).layer), hidden(platform.repo));
      return overlay(upper, lower);
    }
  }
}

/**
 * The marker of a workspace released under its holder: a writable mount (so a change reaches it
 * and is told why) whose every operation answers `WORKSPACE_RELEASED`.
 */
export function releasedMount(anchor: string): Mount {
  const refuse = (): never => {
    throw new VfsError('WORKSPACE_RELEASED', 'resolve', '', `the workspace at ${anchor} was released; it is no longer shown`);
  };
  const layer = new Proxy({} as Layer, {
    get: (_target, prop) => {
      if (prop === 'kind') return 'released';
      if (typeof prop === 'symbol' || prop === 'then') return undefined;
      return refuse;
    },
  });
  return { path: anchor, layer, writable: true };
}
