/**
 * `ViewFolders`: the host folders one workspace view holds open, opened under the trust rules of
 * docs/ARCHITECTURE.md § Trust boundary, and what they reveal about the authority files and the
 * state directory. Used by `openWorkspaceView` only.
 *
 * A folder is opened only when it lies outside the state directory (the workspace's own
 * worktree or copy excepted), exists, and is reached without following a link
 * (`HostPlatform.openFolder`). Every authority file (the manifest, the settings) a folder shows
 * becomes an authority path of the namespace; every folder that holds the state directory
 * records where, so that changes there are `PROTECTED_PATH` even in a read-only mount; and the
 * state directory's names are `PROTECTED_PATH` at every workspace root.
 */
import type { HostGuard, HostIdentity } from '../../../vfs/index.js';
import type { Resolved } from '../../../vfs/index.js';
import { FoldedPath, type FoldedRelation } from '../../../vfs/index.js';
import { isVfsError } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { HostPlatform, OpenedFolder } from '../platform/index.js';
import { stateDirNames } from '../state-trust/index.js';

/** The open folders of one view, its authority paths, and where the state directory shows. */
export class ViewFolders {
  private readonly opened: OpenedFolder[] = [];
  /** Namespace paths of the authority files found so far (see the constructor). */
  readonly authority: Set<string>;
  private readonly authorityOnHost: readonly string[];
  private readonly stateFolded: FoldedPath;
  /** Where each mount (by namespace path) holds the state directory, as a mount-relative path. */
  private readonly stateAt = new Map<string, FoldedPath>();
  /** The state directory's names at the workspace root (src/host/state-trust/state-dir-names.ts). */
  private readonly stateNames: readonly FoldedPath[];
  /** The workspace roots of the view: its own, and each attached workspace's anchor (`addRoot`). */
  private readonly roots = new Set<string>();

  /**
   * Starts with the authority paths every view has: `gatefs.yaml` at the workspace root `root`,
   * and the loaded manifest or settings at their place in the workspace when they lie in the
   * repository (a worktree or copy holds a copy that a merge would carry back).
   */
  constructor(
    private readonly platform: HostPlatform,
    private readonly conversation: string,
    root: string,
  ) {
    this.stateNames = stateDirNames(platform).map((name) => new FoldedPath(name));
    this.authorityOnHost = platform.authorityFiles ?? [];
    this.authority = new Set<string>();
    this.addRoot(root);
    this.stateFolded = new FoldedPath(platform.stateDir);
  }

  /**
   * Makes namespace path `at` a workspace root of the view (an attached workspace's anchor): the
   * authority paths a root has (`gatefs.yaml`, the loaded manifest or settings at their place in
   * the repository) and the state directory's names there are protected as at the own root.
   */
  addRoot(at: string): void {
    this.roots.add(at);
    this.authority.add(`${at}/gatefs.yaml`);
    for (const file of this.authorityOnHost) {
      const rel = this.platform.relativeInside(this.platform.repo, file);
      if (rel) this.authority.add(`${at}/${rel}`);
    }
  }

  /**
   * Opens the host folder `path` (`what` names it in messages), shown at namespace path `at`;
   * `guard` is asked on its mutating walks. `ownState`: the folder is this workspace's own
   * worktree or copy, which lives inside the state directory. Throws `WorkspaceError`
   * `PREPARATION_FAILED` with data.reason `MOUNT_IN_STATE_DIR`, `MISSING_FOLDER`,
   * `FOLDER_THROUGH_LINK` or `FOLDER_UNREADABLE`.
   */
  open(path: string, what: string, at: string, guard?: HostGuard, ownState = false): OpenedFolder {
    const { platform } = this;
    const data = { conversation: this.conversation, path };
    // Folded as well: on a case-insensitive volume `<repo>/.GATEFS/worktrees/x` is the state dir.
    const inState = platform.relativeInside(platform.stateDir, path) !== null || isAtOrBelow(this.stateFolded.relation(path));
    if (!ownState && inState) {
      throw new WorkspaceError(
        'PREPARATION_FAILED',
        `${what} '${path}' lies inside the gatefs state directory, which no workspace may show`,
        { ...data, reason: 'MOUNT_IN_STATE_DIR' },
      );
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
      const why =
        reason === 'FOLDER_THROUGH_LINK'
          ? `cannot be reached without following the symbolic link '${e.path}' on its way (gatefs never follows links to a workspace folder or mount: name its real path)`
          : `cannot be opened (${e.code} at '${e.path}')`;
      throw new WorkspaceError('PREPARATION_FAILED', `${what} '${path}' ${why}`, { ...data, reason }, { cause: e });
    }
    this.opened.push(folder);
    for (const file of this.authorityOnHost) {
      const rel = platform.relativeInside(path, file);
      if (rel) this.authority.add(`${at}/${rel}`);
    }
    return folder;
  }

  /**
   * Where the state directory lies inside the host folder `path`, shown at namespace path `at`,
   * as a folder-relative path (the layer hides it there); undefined when it does not.
   */
  stateIn(path: string, at: string): string | undefined {
    const rel = this.platform.relativeInside(path, this.platform.stateDir) || undefined;
    if (rel !== undefined) this.stateAt.set(at, new FoldedPath(rel));
    return rel;
  }

  /**
   * True when `r` falls on or below the state directory inside its mount, or on or below one of
   * the state directory's names at the workspace root, whatever the ignore rules say: a landing
   * of a tree holding it would replace or write into a state directory (`PROTECTED_PATH`).
   */
  isProtected(r: Resolved): boolean {
    if (this.roots.has(r.mount.path) && this.stateNames.some((n) => isAtOrBelow(n.relation(r.rel)))) return true;
    return isAtOrBelow(this.stateAt.get(r.mount.path)?.relation(r.rel));
  }

  /** Closes every folder opened so far (idempotent). */
  close(): void {
    for (const folder of this.opened.splice(0)) folder.close();
  }
}

/** The key of a host identity in a guard's table. */
export function identityKey(id: HostIdentity): string {
  return `${id.dev}:${id.ino}`;
}

function isAtOrBelow(relation: FoldedRelation): boolean {
  return relation === 'same' || relation === 'below';
}
