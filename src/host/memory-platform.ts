/**
 * `MemoryPlatform`: the host platform inside one memfs volume — memory layers rooted at volume
 * folders, and the isomorphic-git port. No disk, no processes. Memory layers have no
 * `(dev, ino)` identity, so read-only mounts are enforced by the mount table's write flag (a
 * memory tree cannot be reached through another mount's folder anyway: no links are followed).
 */
import type { Volume } from 'memfs';
import type { GitPort } from '../git/git-port.js';
import type { HostIdentity } from '../../vfs/host-layer.js';
import { MemoryLayer } from '../../vfs/memory-layer.js';
import type { HostPlatform, OpenedFolder } from './platform.js';

type Vol = InstanceType<typeof Volume>;

/** The host platform inside one memfs volume: memory layers and isomorphic-git. */
export class MemoryPlatform implements HostPlatform {
  readonly confinement = 'memory';

  constructor(
    readonly volume: Vol,
    readonly repo: string,
    readonly stateDir: string,
    readonly git: GitPort,
  ) {}

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
    } catch {
      return false;
    }
  }

  makeFolder(path: string): void {
    this.volume.mkdirSync(path, { recursive: true });
  }

  removeFolder(path: string): void {
    this.volume.rmSync(path, { recursive: true, force: true });
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

  join(path: string, tail: string): string {
    return `${path.replace(/\/+$/, '')}/${tail}`;
  }

  relativeInside(from: string, path: string): string | null {
    if (path === from) return '';
    return path.startsWith(`${from}/`) ? path.slice(from.length + 1) : null;
  }
}
