/**
 * The mount table: which layer serves which namespace path, and with which write flag.
 *
 * Mounts match by whole path segments, longest first: a mount at `/docs` never serves
 * `/docs-extra/x`. Read-only is decided by the identity of the mount that serves the path, so
 * a read-only mount nested in a writable one stays read-only.
 */
import { VfsError } from './errors.js';
import type { DirEntry, Layer } from './layer.js';
import { compareNames } from './layer.js';
import { resolveNamespacePath } from './path.js';

/** One mount: an absolute, normalized namespace path served by a layer. */
export interface Mount {
  /** Absolute normalized namespace path of the mount point, e.g. `/worktrees/a` or `/data/out`. */
  readonly path: string;
  readonly layer: Layer;
  readonly writable: boolean;
  /**
   * What a change refused by a mount that is not writable answers (default `READ_ONLY`): a
   * workspace its own conversation gave write up to another answers `OCCUPIED` while that one
   * holds it. Asked only when a change is refused.
   */
  readonly refusal?: () => 'READ_ONLY' | 'OCCUPIED';
}

/** Where a namespace path lands: the serving mount and the layer-relative path. */
export interface Resolved {
  /** The normalized absolute namespace path. */
  readonly path: string;
  readonly mount: Mount;
  /** Layer-relative path ('' is the mount root). */
  readonly rel: string;
}

export class MountTable {
  private readonly byPath = new Map<string, Mount>();
  private readonly children = new Map<string, Set<string>>();
  private maxDepth = 0;

  constructor(mounts: readonly Mount[]) {
    for (const mount of mounts) this.add(mount);
  }

  /** Adds a mount. Throws `ALREADY_EXISTS` when the mount point is taken. */
  add(mount: Mount): void {
    const path = resolveNamespacePath(mount.path, '/', () => true, 'mount');
    if (path === '/') throw new VfsError('BAD_NAME', 'mount', path, 'cannot mount at /');
    if (this.byPath.has(path)) throw new VfsError('ALREADY_EXISTS', 'mount', path, 'a mount already exists here');
    this.byPath.set(path, { ...mount, path });
    const segs = path.slice(1).split('/');
    this.maxDepth = Math.max(this.maxDepth, segs.length);
    for (let i = 0; i < segs.length; i++) {
      const parent = `/${segs.slice(0, i).join('/')}`;
      let names = this.children.get(parent);
      if (!names) this.children.set(parent, (names = new Set()));
      names.add(segs[i]);
    }
  }

  /** All mounts, in insertion order. */
  list(): Mount[] {
    return [...this.byPath.values()];
  }

  /** The mount serving `path` (longest whole-segment match) or undefined. */
  find(path: string): Resolved | undefined {
    let candidate = path;
    let depth = path === '/' ? 0 : countSegments(path);
    while (depth > this.maxDepth) {
      candidate = candidate.slice(0, candidate.lastIndexOf('/'));
      depth--;
    }
    while (depth > 0) {
      const mount = this.byPath.get(candidate);
      if (mount) {
        const rel = path.length === candidate.length ? '' : path.slice(candidate.length + 1);
        return { path, mount, rel };
      }
      candidate = candidate.slice(0, candidate.lastIndexOf('/')) || '/';
      depth--;
    }
    return undefined;
  }

  /** True when `path` is served by a mount. */
  isInside(path: string): boolean {
    return this.find(path) !== undefined;
  }

  /** Mount points (and folders leading to them) directly inside `path`, as folder entries. */
  entriesBelow(path: string): DirEntry[] {
    const names = this.children.get(path);
    if (!names) return [];
    return [...names].sort(compareNames).map((name) => ({ name, type: 'directory' as const }));
  }
}

function countSegments(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}
