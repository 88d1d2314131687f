/**
 * A conversation's namespace: its workspace root `/worktrees/<id>` plus its declared mounts,
 * seen as one tree. Every path an agent passes goes through `resolve` (the grammar, then the
 * mount table) before any layer is touched, and every error leaves here with a namespace path.
 *
 * Writes check the serving mount's write flag (`READ_ONLY`) and the protected paths (any `.git`
 * segment: `PROTECTED_PATH`) before the layer is asked; layers enforce their own limits too.
 */
import { VfsError, isVfsError } from './errors.js';
import type { DirEntry, Layer, ReadOptions, Stat, WritableLayer, WriteOptions } from './layer.js';
import { childPath, compareNames, isWritableLayer, parentPath } from './layer.js';
import { lockKeyOf, type LockKey } from './lock-key.js';
import { MountTable, type Mount, type Resolved } from './mount-table.js';
import { resolveNamespacePath } from './path.js';

/** The empty, read-only folder standing for a folder that only leads to mount points. */
const MOUNT_POINT_FOLDER: Layer = {
  kind: 'mount-points',
  stat: async () => ({ type: 'directory', size: 0, mode: 0o555, mtimeMs: 0 }),
  readFile: async (path) => {
    throw new VfsError('IS_DIRECTORY', 'read', path);
  },
  readdir: async () => [],
};

function mountPointFolder(path: string): Mount {
  return { path, layer: MOUNT_POINT_FOLDER, writable: false };
}

export interface NamespaceOptions {
  /** The workspace root, `/worktrees/<id>`; relative paths resolve here. It must be a mount. */
  root: string;
  mounts: readonly Mount[];
  /** Extra protected-path rule over layer-relative paths (in addition to `.git`). */
  isProtected?: (resolved: Resolved) => boolean;
}

export interface NamespaceWriteOptions extends WriteOptions {
  /** Create missing parent folders inside the same mount. */
  createParents?: boolean;
}

export class Namespace {
  readonly root: string;
  readonly table: MountTable;
  private readonly extraProtected?: (resolved: Resolved) => boolean;
  private readonly inside = (path: string) => this.table.isInside(path);

  constructor(options: NamespaceOptions) {
    this.table = new MountTable(options.mounts);
    this.root = resolveNamespacePath(options.root, '/', () => true, 'mount');
    if (this.table.find(this.root)?.rel !== '') {
      throw new VfsError('OUTSIDE_MOUNTS', 'mount', this.root, 'the workspace root must be a mount');
    }
    this.extraProtected = options.isProtected;
  }

  /**
   * Resolves an agent's path (relative to the root, or an absolute namespace path) to its mount.
   * `PATH_ESCAPE`, `BAD_NAME`, `NAME_TOO_LONG`, `OUTSIDE_MOUNTS`.
   */
  resolve(input: string, op = 'resolve'): Resolved {
    const path = resolveNamespacePath(input, this.root, this.inside, op);
    const found = this.table.find(path);
    if (found) return found;
    // A folder leading to mount points (`/`, `/worktrees`, `/data` for `/data/out`) can be
    // listed and shows only this namespace's own mount points; nothing can be written there.
    if (this.table.entriesBelow(path).length > 0) return { path, mount: mountPointFolder(path), rel: '' };
    throw new VfsError('OUTSIDE_MOUNTS', op, path);
  }

  /** The path as an agent would write it: relative to the root when inside it, else absolute. */
  display(path: string): string {
    if (path === this.root) return '.';
    return path.startsWith(`${this.root}/`) ? path.slice(this.root.length + 1) : path;
  }

  async stat(input: string | Resolved): Promise<Stat> {
    const r = this.target(input, 'stat');
    try {
      return await r.mount.layer.stat(r.rel);
    } catch (e) {
      if (isVfsError(e, 'NOT_FOUND') && this.table.entriesBelow(r.path).length > 0) {
        return { type: 'directory', size: 0, mode: 0o755, mtimeMs: 0 };
      }
      throw this.anchor(e, r);
    }
  }

  async readFile(input: string | Resolved, options?: ReadOptions): Promise<Uint8Array> {
    const r = this.target(input, 'read');
    try {
      return await r.mount.layer.readFile(r.rel, options);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /** Folder entries, with mount points inside the folder shown as folders. */
  async readdir(input: string | Resolved): Promise<DirEntry[]> {
    const r = this.target(input, 'readdir');
    const mounted = this.table.entriesBelow(r.path);
    let entries: DirEntry[];
    try {
      entries = await r.mount.layer.readdir(r.rel);
    } catch (e) {
      if (isVfsError(e, 'NOT_FOUND') && mounted.length > 0) return mounted;
      throw this.anchor(e, r);
    }
    if (mounted.length === 0) return entries;
    const names = new Set(mounted.map((m) => m.name));
    return [...entries.filter((e) => !names.has(e.name)), ...mounted].sort((a, b) => compareNames(a.name, b.name));
  }

  /** Atomically replaces or creates a file. `READ_ONLY`, `PROTECTED_PATH`, and the layer's codes. */
  async writeFile(input: string | Resolved, data: Uint8Array, options: NamespaceWriteOptions = {}) {
    const r = this.target(input, 'write');
    const layer = this.writableLayer(r, 'write');
    try {
      if (options.createParents) await this.makeParents(layer, r);
      return await layer.writeFile(r.rel, data, options);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /** Creates a folder (and its parents inside the same mount when `parents`). */
  async mkdir(input: string | Resolved, options: { parents?: boolean } = {}): Promise<void> {
    const r = this.target(input, 'mkdir');
    const layer = this.writableLayer(r, 'mkdir');
    try {
      if (options.parents) {
        await this.makeParents(layer, r);
        const stat = await layer.stat(r.rel).catch((e) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
        if (stat?.type === 'directory') return;
      }
      await layer.mkdir(r.rel);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  async remove(input: string | Resolved): Promise<void> {
    const r = this.target(input, 'remove');
    const layer = this.writableLayer(r, 'remove');
    try {
      await layer.remove(r.rel);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /** Renames within one mount; across mounts is refused with `OUTSIDE_MOUNTS`. */
  async rename(from: string | Resolved, to: string | Resolved): Promise<void> {
    const a = this.target(from, 'rename');
    const b = this.target(to, 'rename');
    const layer = this.writableLayer(a, 'rename');
    this.writableLayer(b, 'rename');
    if (a.mount !== b.mount) {
      throw new VfsError('OUTSIDE_MOUNTS', 'rename', b.path, 'cannot rename across mounts');
    }
    try {
      await layer.rename(a.rel, b.rel);
    } catch (e) {
      throw this.anchor(e, a);
    }
  }

  /**
   * The lock key of the file a write at `r` would change (vfs/lock-key.ts): one key per file
   * whatever mount, layer object or conversation reaches it. Never shown to an agent. Throws the
   * layer's `INTERNAL` / `BUSY` at the namespace path.
   */
  lockKey(r: Resolved): LockKey {
    try {
      return lockKeyOf(r.mount.layer, r.rel);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /** Throws `READ_ONLY` or `PROTECTED_PATH` when the resolved path may not be changed. */
  checkWritable(r: Resolved, op: string): void {
    if (r.mount.layer === MOUNT_POINT_FOLDER) throw new VfsError('OUTSIDE_MOUNTS', op, r.path);
    if (this.isProtected(r)) throw new VfsError('PROTECTED_PATH', op, r.path);
    if (!r.mount.writable || !isWritableLayer(r.mount.layer)) throw new VfsError('READ_ONLY', op, r.path);
  }

  /** True for paths never writable through tools: any `.git` segment, or the extra rule. */
  isProtected(r: Resolved): boolean {
    const rel = r.rel;
    if (rel === '.git' || rel.startsWith('.git/') || rel.includes('/.git/') || rel.endsWith('/.git')) return true;
    return this.extraProtected?.(r) ?? false;
  }

  private target(input: string | Resolved, op: string): Resolved {
    // Anything that is not an already resolved path goes through the grammar, which refuses
    // non-strings with BAD_NAME instead of failing later with a TypeError.
    return typeof input === 'object' && input !== null && 'mount' in input ? input : this.resolve(input as string, op);
  }

  private writableLayer(r: Resolved, op: string): WritableLayer {
    this.checkWritable(r, op);
    return r.mount.layer as WritableLayer;
  }

  private async makeParents(layer: WritableLayer, r: Resolved): Promise<void> {
    const parent = parentPath(r.rel);
    if (parent === '') return;
    let dir = '';
    for (const seg of parent.split('/')) {
      dir = childPath(dir, seg);
      try {
        await layer.mkdir(dir);
      } catch (e) {
        if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
      }
    }
  }

  private anchor(e: unknown, r: Resolved): unknown {
    if (!isVfsError(e)) return e;
    const base = r.mount.path;
    return e.withPath(e.path === '' ? base : `${base}/${e.path}`);
  }
}
