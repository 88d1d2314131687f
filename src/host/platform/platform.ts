/**
 * `HostPlatform`: what differs between the disk host and the memory host, behind one
 * interface, so preparation, release and recovery are written once. The disk platform opens
 * confined host folders (`openHostLayer`) and runs real git; the memory platform serves memfs
 * folders and runs isomorphic-git. Paths here are the platform's own (host paths on disk,
 * volume paths in memory) and never reach an agent.
 */
import type { GitPort } from '../../git/index.js';
import type { ArtifactStore, ContentStore, FolderImage } from '../../ports/index.js';
import type { LandingGit } from '../../git/index.js';
import type { SnapshotGit } from '../../git/index.js';
import type { HostGuard, HostIdentity } from '../../../vfs/index.js';
import type { WritableLayer } from '../../../vfs/index.js';
import type { WorkspaceArea } from './workspace-paths.js';

/** What is at a host path, looked at without following a link at its last component. */
export type FolderState = 'folder' | 'link' | 'other' | 'missing';

/** A folder opened as a layer, with its identity (when the platform has one) and a closer. */
export interface OpenedFolder {
  layer: WritableLayer;
  identity: HostIdentity | null;
  close(): void;
}

export interface HostPlatform {
  /** The integration checkout. */
  readonly repo: string;
  /** The state directory (worktrees, copies, database). */
  readonly stateDir: string;
  readonly git: GitPort;
  /** Git for diff, commit, the lander and subagents. */
  readonly landing: LandingGit;
  /** Worktree snapshots as commit objects on private refs (src/git/snapshot-git.ts). */
  readonly snapshotGit: SnapshotGit;
  /** Which guarantee the platform's folder layers give: `procfs`, `lstat-fallback` or `memory`. */
  readonly confinement: string;
  /** Workspace folders read and written entry by entry, never following a link (snapshots and restores). */
  readonly folderImage: FolderImage;
  /** Content-addressed blobs of `copy` and `empty` snapshots (`<stateDir>/snapshots/objects` on disk). */
  readonly contentStore: ContentStore;
  /** Handoff artifacts and auto-patches: objects and run folders under `<stateDir>/artifacts` (src/ports/artifact-store.ts). */
  readonly artifactStore: ArtifactStore;
  /**
   * Platform paths of the files that grant agents their authority (the manifest loaded, the
   * settings file): wherever a workspace shows them, they are readable and never changed.
   */
  readonly authorityFiles?: readonly string[];
  /**
   * Opens a folder as a confined writable layer; `guard` is asked on every mutating walk. On
   * disk, no link is followed between the state directory or repository (or `/`) and the folder.
   */
  openFolder(path: string, guard?: HostGuard): OpenedFolder;
  /**
   * The identity of a folder, or null when it does not exist or the platform has none. Throws
   * the file system's error when it cannot look (anything but `ENOENT` / `ENOTDIR`).
   */
  identityOf(path: string): HostIdentity | null;
  /** True when the path exists (no link followed at the last component). Throws as `identityOf`. */
  exists(path: string): boolean;
  /** Creates a folder and its parents (like `mkdir -p`); `mode` (e.g. 0o700) for each folder created, else the default. */
  makeFolder(path: string, mode?: number): void;
  /**
   * What is at `path` (no link followed at the last component). `missing` only when nothing
   * is there (`ENOENT` / `ENOTDIR`); any other failure to look is thrown, never `missing`.
   */
  folderState(path: string): FolderState;
  /**
   * Removes `<stateDir>/<area>/<conversation>` and everything in it, never following a link
   * and never leaving that folder (see `confined-removal.ts`); missing is fine. Result: true
   * when something was removed. With `onlyIfEmpty`, only folders are removed and the first
   * file found stops it (`DIRTY_WORKTREE`). Throws `WorkspaceError` `STATE_UNTRUSTED` when the
   * area or the target is a link or not a folder (nothing removed).
   */
  removeWorkspaceFolder(area: WorkspaceArea, conversation: string, options?: { onlyIfEmpty?: boolean }): boolean;
  /** Files below a folder, folder-relative, sorted (for reporting a copy's changes). */
  listFiles(path: string): string[];
  /**
   * Appends `line` to the host-owned project memory, `<stateDir>/memory/project.md` (created
   * when missing), unless a line holding `key` is there already. Result: true when appended.
   * On disk the file and its folder are opened without following links.
   */
  appendProjectMemory(key: string, line: string): boolean;
  /** `path` joined with a relative tail using the platform's separator rules. */
  join(path: string, tail: string): string;
  /** `path` relative to `from` ('' when equal), or null when it is not inside `from`. */
  relativeInside(from: string, path: string): string | null;
}
