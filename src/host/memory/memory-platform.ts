/**
 * `MemoryPlatform`: the host platform inside one memfs volume — memory layers rooted at volume
 * folders, and the isomorphic-git port. No disk, no processes. Memory layers have no
 * `(dev, ino)` identity, so read-only mounts are enforced by the mount table's write flag (a
 * memory tree cannot be reached through another mount's folder anyway: no links are followed).
 */
import type { Volume } from 'memfs';
import type { GitPort } from '../../git/index.js';
import type { LandingGit, SnapshotGit } from '../../git/index.js';
import { MemorySnapshotGit } from '../../git/memory-snapshot-git.js';
import type { HostIdentity } from '../../../vfs/index.js';
import { MemoryLayer } from '../../../vfs/memory-layer.js';
import { isConversationId } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import {
  type ArtifactFs,
  type ArtifactStore,
  ArtifactStoreDir,
  type ContentStore,
  type FolderImage,
  isMissingPath,
  MemoryContentStore,
} from '../../ports/index.js';
import { MemoryFolderImage } from './memory-folder-image.js';
import type { FolderState, HostPlatform, OpenedFolder } from '../platform/index.js';
import type { WorkspaceArea } from '../platform/index.js';

type Vol = InstanceType<typeof Volume>;

/** The host platform inside one memfs volume: memory layers and isomorphic-git. */
export class MemoryPlatform implements HostPlatform {
  readonly confinement = 'memory';
  /** Snapshots' view of workspace folders in the volume (memory-folder-image.ts). */
  readonly folderImage: FolderImage;
  /** Snapshot blobs, in a Map. */
  readonly contentStore: ContentStore = new MemoryContentStore();
  /** Handoff artifacts and auto-patches at `<stateDir>/artifacts` in the volume (the disk layout, hard links included). */
  readonly artifactStore: ArtifactStore;

  constructor(
    readonly volume: Vol,
    readonly repo: string,
    readonly stateDir: string,
    readonly git: GitPort,
    readonly landing: LandingGit,
    /** Worktree snapshots over isomorphic-git in the same volume. */
    readonly snapshotGit: SnapshotGit = new MemorySnapshotGit({ volume }),
  ) {
    this.folderImage = new MemoryFolderImage(volume);
    this.artifactStore = new ArtifactStoreDir(stateDir, volume as unknown as ArtifactFs, 'memory');
  }

  openFolder(path: string): OpenedFolder {
    if (!this.exists(path)) this.makeFolder(path);
    return { layer: new MemoryLayer({ volume: this.volume, root: path }), identity: null, close: () => undefined };
  }

  identityOf(_path: string): HostIdentity | null {
    return null;
  }

  exists(path: string): boolean {
    try {
      this.volume.lstatSync(path);
      return true;
    } catch (e) {
      if (isMissingPath(e)) return false;
      throw e;
    }
  }

  makeFolder(path: string, mode?: number): void {
    this.volume.mkdirSync(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  }

  folderState(path: string): FolderState {
    try {
      const st = this.volume.lstatSync(path);
      return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'folder' : 'other';
    } catch (e) {
      if (isMissingPath(e)) return 'missing';
      throw e;
    }
  }

  /** The memory twin of `removeBeneath`: no links followed, nothing outside the target touched. */
  removeWorkspaceFolder(area: WorkspaceArea, conversation: string, options: { onlyIfEmpty?: boolean } = {}): boolean {
    const untrusted = (what: string) =>
      new WorkspaceError('STATE_UNTRUSTED', `${what}: gatefs did not make it, and removes nothing through it`, {
        reason: 'LINK_IN_STATE_DIR',
      });
    if (!isConversationId(conversation))
      throw new WorkspaceError('STATE_UNTRUSTED', `'${String(conversation).slice(0, 80)}' is not a workspace folder name gatefs makes`, {
        reason: 'BAD_NAME',
      });
    const areaPath = this.join(this.stateDir, area);
    if (this.folderState(areaPath) !== 'folder') throw untrusted(`'${areaPath}' is not a folder`);
    const target = this.join(areaPath, conversation);
    const state = this.folderState(target);
    if (state === 'missing') return false;
    if (state !== 'folder') throw untrusted(`'${target}' is ${state === 'link' ? 'a symbolic link' : 'not a folder'}`);
    const empty = (dir: string, rel: string) => {
      for (const name of (this.volume.readdirSync(dir) as unknown[]).map(String)) {
        const path = `${dir}/${name}`;
        const child = rel ? `${rel}/${name}` : name;
        if (this.folderState(path) === 'folder') {
          empty(path, child);
          this.volume.rmdirSync(path);
        } else if (options.onlyIfEmpty) {
          throw new WorkspaceError('DIRTY_WORKTREE', `'${child}' appeared in the workspace: it is work, and was kept`, { files: [child] });
        } else {
          this.volume.unlinkSync(path);
        }
      }
    };
    empty(target, '');
    this.volume.rmdirSync(target);
    return true;
  }

  listFiles(path: string): string[] {
    const out: string[] = [];
    const walk = (dir: string, prefix: string) => {
      for (const name of (this.volume.readdirSync(dir) as unknown[]).map(String)) {
        const st = this.volume.lstatSync(`${dir}/${name}`);
        if (st.isDirectory()) walk(`${dir}/${name}`, `${prefix}${name}/`);
        else out.push(prefix + name);
      }
    };
    if (this.exists(path)) walk(path, '');
    return out.sort();
  }

  appendProjectMemory(key: string, line: string): boolean {
    const file = `${this.stateDir}/memory/project.md`;
    this.makeFolder(`${this.stateDir}/memory`);
    const text = this.exists(file) ? String(this.volume.readFileSync(file, 'utf8')) : '';
    if (text.split('\n').some((l) => l.includes(key))) return false;
    const head = text === '' ? '# Project memory (written by gatefs: one line per landing)\n\n' : '';
    this.volume.writeFileSync(file, `${text}${head}${line.replace(/\n/g, ' ')}\n`);
    return true;
  }

  join(path: string, tail: string): string {
    return `${path.replace(/\/+$/, '')}/${tail}`;
  }

  relativeInside(from: string, path: string): string | null {
    if (path === from) return '';
    return path.startsWith(`${from}/`) ? path.slice(from.length + 1) : null;
  }
}
