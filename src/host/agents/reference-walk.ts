/**
 * `walkInRoot`: a reference's path followed inside one root the way the namespace follows an
 * agent's (vfs/link-resolution.ts `resolveBeneath`, through a one-mount `Namespace` at the root's
 * anchor): links followed while they stay inside the root, '..' taken physically, the root's
 * folder opened confined (`HostPlatform.openFolder`: no link followed on the way to it) and read
 * only. Nothing is realpath()ed; a link leading out is `SYMLINK_ESCAPE`, a '..' out `PATH_ESCAPE`.
 *
 * The root's files as a view shows them at its anchor: the checkout, a worktree or scratch
 * folder, a home, or a copy's upper folder over its pinned tree (git objects; a plain-folder
 * copy: over the source folder). Mounts inside a workspace (`share:`, relative mounts) are not
 * part of its root. A root whose folder is missing (a home not made yet) holds nothing.
 */
import {
  gitTreeLayer,
  isVfsError,
  type Layer,
  Namespace,
  overlay,
  readOnly,
  type EntryType,
  VfsError,
  withPathRules,
} from '../../../vfs/index.js';
import type { HostPlatform } from '../platform/index.js';
import { badReference } from './file-reference.js';
import type { ReferenceRoot } from './reference-roots.js';

/** Where a walk ended: the root-relative path with no link on the way, and what is there (null: nothing). */
export interface WalkEnd {
  rel: string;
  type: EntryType | null;
}

/**
 * Follows `segments` ('..' kept) from `root`'s folder (see the file comment). Throws
 * `WorkspaceError` `BAD_REFERENCE` with reason `PATH_ESCAPE`, `SYMLINK_ESCAPE` (data.link: the
 * link's namespace path) or `BAD_FORM`.
 */
export async function walkInRoot(
  platform: HostPlatform,
  root: ReferenceRoot,
  segments: readonly string[],
  reference: string,
): Promise<WalkEnd> {
  const opened = openRoot(platform, root, reference);
  try {
    const namespace = new Namespace({ root: root.anchor, mounts: [{ path: root.anchor, layer: opened.layer, writable: false }] });
    const resolved = await namespace.resolveLinks([root.anchor, ...segments].join('/')).catch((e: unknown) => {
      throw referenceError(e, reference, root);
    });
    if (resolved.mount.path !== root.anchor)
      throw badReference('PATH_ESCAPE', reference, `'..' climbs out of ${root.anchor}`, { root: root.id });
    const type = await opened.layer.stat(resolved.rel).then(
      (st) => st.type,
      (e: unknown) => {
        if (isVfsError(e) && (e.code === 'NOT_FOUND' || e.code === 'NOT_DIRECTORY')) return null;
        throw referenceError(e, reference, root);
      },
    );
    return { rel: resolved.rel, type };
  } finally {
    opened.close();
  }
}

/** A walk's `VfsError` as the reference's `BAD_REFERENCE`; anything else as it is. */
function referenceError(e: unknown, reference: string, root: ReferenceRoot): unknown {
  if (!isVfsError(e)) return e;
  switch (e.code) {
    case 'PATH_ESCAPE':
    case 'OUTSIDE_MOUNTS':
      return badReference('PATH_ESCAPE', reference, `'..' climbs out of ${root.anchor}`, { root: root.id });
    case 'SYMLINK_ESCAPE':
      return badReference('SYMLINK_ESCAPE', reference, `the link ${e.path} leads out of ${root.anchor}`, { root: root.id, link: e.path });
    case 'BAD_NAME':
    case 'NAME_TOO_LONG':
      return badReference('BAD_FORM', reference, e.message);
    default:
      return e;
  }
}

/** The root's folder as a read-only layer, and its closer. */
function openRoot(platform: HostPlatform, root: ReferenceRoot, reference: string): { layer: Layer; close(): void } {
  const state = platform.folderState(root.folder);
  if (state === 'link') {
    throw badReference('SYMLINK_ESCAPE', reference, `the folder of ${root.anchor} is a symbolic link, which gatefs never follows`, {
      root: root.id,
    });
  }
  if (state !== 'folder') return { layer: NOTHING, close: () => undefined };
  const closers: (() => void)[] = [];
  const open = (path: string) => {
    try {
      const folder = platform.openFolder(path);
      closers.push(() => folder.close());
      return folder.layer;
    } catch (e) {
      throw referenceError(e, reference, root);
    }
  };
  const close = () => {
    for (const c of closers.splice(0)) c();
  };
  try {
    const upper = open(root.folder);
    if (root.kind !== 'copy') return { layer: readOnly(upper), close };
    const hidden = platform.relativeInside(platform.repo, platform.stateDir) || undefined;
    const lower = root.pinnedSha
      ? gitTreeLayer(platform.git.objects, root.pinnedSha)
      : withPathRules(readOnly(open(platform.repo)), hidden === undefined ? {} : { hidden });
    return { layer: readOnly(overlay(upper, lower)), close };
  } catch (e) {
    close();
    throw e;
  }
}

/** The layer of a root without a folder: nothing is there. */
const NOTHING: Layer = {
  kind: 'missing',
  stat: (path) => Promise.reject(new VfsError('NOT_FOUND', 'stat', path)),
  readFile: (path) => Promise.reject(new VfsError('NOT_FOUND', 'read', path)),
  readdir: (path) => Promise.reject(new VfsError('NOT_FOUND', 'readdir', path)),
};
