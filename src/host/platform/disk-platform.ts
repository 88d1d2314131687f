/**
 * `DiskPlatform`: the host platform on the real disk — confined host layers over node:fs, and
 * the CLI git port. Folder removal only ever reaches `<stateDir>/worktrees/<id>` and
 * `<stateDir>/copies/<id>`, through the confined removal (`confined-removal.ts`).
 */
import * as nodeFs from 'node:fs';
import { lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { GitPort } from '../../git/index.js';
import type { HostGuard, HostIdentity } from '../../../vfs/index.js';
import { openHostFolder } from '../../../vfs/index.js';
import { forbiddenHostExec, isMissingPath } from '../../ports/index.js';
import { CliSnapshotGit } from '../../git/index.js';
import {
  type ArtifactStore,
  ArtifactStoreDir,
  type ContentStore,
  ContentStoreDir,
  DiskFolderImage,
  type FolderImage,
} from '../../ports/index.js';
import { removeBeneath } from './confined-removal.js';
import type { LandingGit, SnapshotGit } from '../../git/index.js';
import type { WritePolicy } from '../../manifest/index.js';
import { appendProjectMemoryFile } from './project-memory-file.js';
import type { FolderState, HostPlatform, OpenedFolder } from './platform.js';
import type { WorkspaceArea } from './workspace-paths.js';

/** The host platform on the real disk: confined host layers and the CLI git port. */
export class DiskPlatform implements HostPlatform {
  readonly confinement: string;
  /** Snapshots' view of workspace folders: held handles, no link followed (src/ports/disk-folder-image.ts). */
  readonly folderImage: FolderImage = new DiskFolderImage();
  /** Snapshot blobs at `<stateDir>/snapshots/objects`. */
  readonly contentStore: ContentStore;
  /** Handoff artifacts and auto-patches at `<stateDir>/artifacts`. */
  readonly artifactStore: ArtifactStore;

  constructor(
    readonly repo: string,
    readonly stateDir: string,
    readonly git: GitPort,
    readonly landing: LandingGit,
    confinement: string,
    readonly authorityFiles: readonly string[] = [],
    /** How writes through the folders it opens reach the disk (src/manifest/types.ts `WritePolicy`; default no fsync). */
    readonly writes: WritePolicy = { fsync: false },
    /** The tag of the temp files its folders write through (vfs/host-layer.ts `HostLayerOptions.tempTag`; the composition passes the pid). */
    private readonly tempTag?: string,
    /** Worktree snapshots (the composition passes a `CliSnapshotGit` on its exec port). */
    readonly snapshotGit: SnapshotGit = new CliSnapshotGit({ exec: forbiddenHostExec }),
  ) {
    this.confinement = confinement;
    this.contentStore = new ContentStoreDir(stateDir);
    this.artifactStore = new ArtifactStoreDir(stateDir, nodeFs, tempTag ?? 'disk');
  }

  /**
   * Opens the folder from the state directory or the repository (whichever holds it), or from
   * `/`, without following a link on the way (vfs/host-folder.ts `openHostFolder`), with the
   * platform's write policy.
   */
  openFolder(path: string, guard?: HostGuard): OpenedFolder {
    const layer = openHostFolder(path, [this.stateDir, this.repo], {
      fsync: this.writes.fsync,
      ...(guard ? { guard } : {}),
      ...(this.tempTag === undefined ? {} : { tempTag: this.tempTag }),
    });
    return { layer, identity: layer.identity, close: () => layer.close() };
  }

  identityOf(path: string): HostIdentity | null {
    try {
      const st = statSync(path);
      return { dev: st.dev, ino: st.ino };
    } catch (e) {
      if (isMissingPath(e)) return null;
      throw e;
    }
  }

  exists(path: string): boolean {
    try {
      lstatSync(path);
      return true;
    } catch (e) {
      if (isMissingPath(e)) return false;
      throw e;
    }
  }

  makeFolder(path: string, mode?: number): void {
    mkdirSync(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  }

  folderState(path: string): FolderState {
    try {
      const st = lstatSync(path);
      return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'folder' : 'other';
    } catch (e) {
      if (isMissingPath(e)) return 'missing';
      throw e;
    }
  }

  removeWorkspaceFolder(area: WorkspaceArea, conversation: string, options: { onlyIfEmpty?: boolean } = {}): boolean {
    return removeBeneath(join(this.stateDir, area), conversation, { procfs: this.confinement === 'procfs', ...options });
  }

  listFiles(path: string): string[] {
    const out: string[] = [];
    const walk = (dir: string, prefix: string) => {
      for (const d of readdirSync(dir, { withFileTypes: true })) {
        const rel = prefix + d.name;
        if (d.isDirectory() && !d.isSymbolicLink()) walk(join(dir, d.name), `${rel}/`);
        else out.push(rel);
      }
    };
    if (this.exists(path)) walk(path, '');
    return out.sort();
  }

  appendProjectMemory(key: string, line: string): boolean {
    return appendProjectMemoryFile(this.stateDir, key, line);
  }

  join(path: string, tail: string): string {
    return join(path, tail);
  }

  relativeInside(from: string, path: string): string | null {
    const rel = relative(from, path);
    if (rel === '') return '';
    if (rel.startsWith('..') || isAbsolute(rel)) return null;
    return rel.split(sep).join('/');
  }
}
