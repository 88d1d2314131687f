/**
 * A conversation's namespace: its workspace root `/worktrees/<id>` plus its declared mounts,
 * seen as one tree. Every path an agent passes goes through `resolve` (the grammar, then the
 * mount table) before any layer is touched, and every error leaves here with a namespace path.
 *
 * Nothing of the host's git shows: a path with a segment git treats as `.git` (vfs/dot-git-name.ts:
 * `.git`, `.GIT`, `git~1`, `.git.`, zero-width variants) is absent from listings, `NOT_FOUND` to
 * reads and `PROTECTED_PATH` to any change, in every mount.
 *
 * Writes check the serving mount's write flag (`READ_ONLY`), those `.git` names and the
 * authority files (`gatefs.yaml` and the like: readable, never changed; `PROTECTED_PATH`) before
 * the layer is asked; layers enforce their own limits too.
 *
 * Links: the file operations here never follow one (a link on the way is the layer's
 * `SYMLINK_ESCAPE`). `resolveLinks` is the one place that follows links, beneath their mount
 * (vfs/link-resolution.ts); the gate resolves every tool path with it, so a tool acts on the
 * link-free path it returns.
 */
import { VfsError, isVfsError } from './errors.js';
import type { DirEntry, Layer, ReadOptions, RemoveOptions, RenameOptions, Stat, WritableLayer, WriteOptions } from './layer.js';
import { baseName, compareNames, isWritableLayer } from './layer.js';
import { findProtectedInside, makeParents } from './folder-steps.js';
import { lockKeyOf, type LockKey } from './lock-key.js';
import { MountTable, type Mount, type Resolved } from './mount-table.js';
import { hasDotDotSegment, namespaceSegments, resolveNamespacePath, segmentsOf } from './path.js';
import { resolveBeneath, type LinkResolutionView } from './link-resolution.js';
import { isDotGitName } from './dot-git-name.js';
import { FoldedPath, type FoldedRelation } from './fold-name.js';
import { RepositoryBoundary } from './repository-boundary.js';

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

interface NamespaceOptions {
  /** The workspace root, `/worktrees/<id>`: the conversation's own workspace. It must be a mount. */
  root: string;
  /**
   * Where relative paths resolve and paths are shown from (the active workspace's anchor: the
   * root, or an attached workspace's `/worktrees/<id>`, `/canonical`, `/home`). Default the
   * root. It must be a mount.
   */
  cwd?: string;
  mounts: readonly Mount[];
  /** Extra protected-path rule over layer-relative paths (in addition to `.git`). */
  isProtected?: (resolved: Resolved) => boolean;
  /**
   * Absolute namespace paths of the files that grant an agent its authority (`gatefs.yaml` at
   * the workspace root, the loaded manifest or settings file where a mount shows it). They stay
   * readable; writing, editing or removing them, or removing a folder that holds them, is
   * `PROTECTED_PATH`. Compared after `foldName`, so
   * `GATEFS.YAML` or `gatefs.yaml.` (one file on macOS or Windows) is refused too.
   */
  authorityFiles?: readonly string[];
  /**
   * Where repositories other than the workspace's own begin inside the workspace root
   * (vfs/repository-boundary.ts): changes at or below a submodule or a nested repository are
   * `PROTECTED_PATH`. Absent: only nested repositories are looked for.
   */
  repositoryBoundary?: RepositoryBoundary;
}

export interface NamespaceWriteOptions extends WriteOptions {
  /** Create missing parent folders inside the same mount. */
  createParents?: boolean;
}

interface NamespaceRenameOptions extends RenameOptions {
  /** Create `to`'s missing parent folders inside the mount (taken back if the rename fails). */
  createParents?: boolean;
}

export class Namespace {
  /** The conversation's own workspace root (`/worktrees/<id>`). */
  readonly root: string;
  /** Where relative paths resolve (see `NamespaceOptions.cwd`). */
  readonly cwd: string;
  readonly table: MountTable;
  private readonly extraProtected?: (resolved: Resolved) => boolean;
  private readonly authorityFiles: readonly FoldedPath[];
  private readonly boundary: RepositoryBoundary;
  private readonly inside = (path: string) => this.table.isInside(path);

  constructor(options: NamespaceOptions) {
    this.table = new MountTable(options.mounts);
    this.root = resolveNamespacePath(options.root, '/', () => true, 'mount');
    if (this.table.find(this.root)?.rel !== '') {
      throw new VfsError('OUTSIDE_MOUNTS', 'mount', this.root, 'the workspace root must be a mount');
    }
    this.cwd = options.cwd === undefined ? this.root : resolveNamespacePath(options.cwd, '/', () => true, 'mount');
    if (this.table.find(this.cwd)?.rel !== '')
      throw new VfsError('OUTSIDE_MOUNTS', 'mount', this.cwd, 'the active workspace must be a mount');
    this.extraProtected = options.isProtected;
    this.boundary = options.repositoryBoundary ?? new RepositoryBoundary();
    this.authorityFiles = (options.authorityFiles ?? []).map((p) => new FoldedPath(resolveNamespacePath(p, '/', () => true, 'mount')));
  }

  /**
   * Resolves an agent's path (relative to `cwd`, or an absolute namespace path) to its mount.
   * `PATH_ESCAPE`, `BAD_NAME`, `NAME_TOO_LONG`, `OUTSIDE_MOUNTS`.
   */
  resolve(input: string, op = 'resolve'): Resolved {
    const path = resolveNamespacePath(input, this.cwd, this.inside, op);
    const found = this.table.find(path);
    if (found) return found;
    // A folder leading to mount points (`/`, `/worktrees`, `/data` for `/data/out`) can be
    // listed and shows only this namespace's own mount points; nothing can be written there.
    if (this.table.entriesBelow(path).length > 0) return { path, mount: mountPointFolder(path), rel: '' };
    throw new VfsError('OUTSIDE_MOUNTS', op, path);
  }

  /**
   * Resolves an agent's path like `resolve`, then follows its symbolic links while they stay
   * beneath their mount and takes `..` physically (vfs/link-resolution.ts `resolveBeneath`):
   * the result names no link on the way, and no link at the end unless `followFinal` is false
   * (delete and move act on a final link itself; default true). The result may still name a
   * missing entry (a write creates it). Codes: `resolve`'s, `SYMLINK_ESCAPE` (a link leading
   * out of its mount, more than 40 links), `PATH_ESCAPE`, and a layer's `INTERNAL` / `BUSY`.
   */
  async resolveLinks(input: string, op = 'resolve', options: { followFinal?: boolean } = {}): Promise<Resolved> {
    const followFinal = options.followFinal ?? true;
    const shown = typeof input === 'string' && input.length > 300 ? `${input.slice(0, 300)}…` : input;
    const view: LinkResolutionView = { find: (p) => this.table.find(p), isInside: this.inside };
    if (typeof input !== 'string' || !hasDotDotSegment(input)) {
      // Without '..' the lexical path is the physical one unless a link lies on it.
      const lexical = this.resolve(input, op);
      const physical = await resolveBeneath(view, segmentsOf(lexical.path), followFinal, op, shown);
      return physical === lexical.path ? lexical : this.resolve(physical, op);
    }
    const segments = namespaceSegments(input, this.cwd, op);
    return this.resolve(await resolveBeneath(view, segments, followFinal, op, shown), op);
  }

  /** The path as an agent would write it: relative to `cwd` when inside it, else absolute. */
  display(path: string): string {
    if (path === this.cwd) return '.';
    return path.startsWith(`${this.cwd}/`) ? path.slice(this.cwd.length + 1) : path;
  }

  async stat(input: string | Resolved): Promise<Stat> {
    const r = this.visible(input, 'stat');
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
    const r = this.visible(input, 'read');
    try {
      return await r.mount.layer.readFile(r.rel, options);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /** Folder entries, with mount points inside the folder shown as folders, `.git` names left out. */
  async readdir(input: string | Resolved): Promise<DirEntry[]> {
    const r = this.visible(input, 'readdir');
    const mounted = this.mountPointsIn(r.path);
    let entries: DirEntry[];
    try {
      entries = withoutHiddenNames(await r.mount.layer.readdir(r.rel));
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
    await this.checkOwnRepository(r, 'write');
    try {
      if (options.createParents) await makeParents(layer, r.rel);
      return await layer.writeFile(r.rel, data, options);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /** Creates a folder (and its parents inside the same mount when `parents`). */
  async mkdir(input: string | Resolved, options: { parents?: boolean } = {}): Promise<void> {
    const r = this.target(input, 'mkdir');
    const layer = this.writableLayer(r, 'mkdir');
    await this.checkOwnRepository(r, 'mkdir');
    try {
      if (options.parents) {
        await makeParents(layer, r.rel);
        const stat = await layer.stat(r.rel).catch((e) => (isVfsError(e, 'NOT_FOUND') ? undefined : Promise.reject(e)));
        if (stat?.type === 'directory') return;
      }
      await layer.mkdir(r.rel);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /**
   * Removes a file, a link or an empty folder. `PROTECTED_PATH` also for a folder holding an
   * authority file, or holding nothing but `.git` names (it looks empty, and must stay).
   */
  async remove(input: string | Resolved, options?: RemoveOptions): Promise<void> {
    const r = this.target(input, 'remove');
    const layer = this.writableLayer(r, 'remove');
    this.checkNotAboveAuthority(r, 'remove');
    await this.checkOwnRepository(r, 'remove');
    try {
      if ((await layer.stat(r.rel)).type === 'directory') {
        const inside = await layer.readdir(r.rel);
        if (inside.length > 0 && inside.every((e) => isDotGitName(e.name))) {
          throw new VfsError('PROTECTED_PATH', 'remove', r.rel, 'the folder holds a protected .git');
        }
      }
      await layer.remove(r.rel, options);
    } catch (e) {
      throw this.anchor(e, r);
    }
  }

  /**
   * Renames `from` to `to` inside one mount (vfs/layer.ts `WritableLayer.rename`; no link is
   * followed at either end). Both ends pass `checkWritable`; then `CROSS_MOUNT` when they are
   * in different mounts, or when `from` is a folder holding another mount's mount point;
   * `INVALID_INPUT` for the same path twice or a mount root; `IS_DIRECTORY` when `to` is a
   * folder that leads to mount points; `PROTECTED_PATH` when `from` holds an authority file or
   * (a folder) anything protected at any depth (`.git` names: it would carry them off). Then
   * the layer's own rules and codes, at namespace paths.
   */
  async rename(fromInput: string | Resolved, toInput: string | Resolved, options: NamespaceRenameOptions = {}): Promise<void> {
    const from = this.target(fromInput, 'rename');
    const to = this.target(toInput, 'rename');
    const layer = this.writableLayer(from, 'rename');
    this.checkWritable(to, 'rename');
    if (from.mount !== to.mount) {
      throw new VfsError(
        'CROSS_MOUNT',
        'rename',
        to.path,
        `the destination is in another mount than '${from.path}'; read and write the file instead`,
      );
    }
    if (from.path === to.path) throw new VfsError('INVALID_INPUT', 'rename', to.path, 'the source and the destination are the same path');
    if (from.rel === '') throw new VfsError('INVALID_INPUT', 'rename', from.path, 'the root of a mount cannot be moved');
    const carried = this.table.list().find((m) => m.path.startsWith(`${from.path}/`));
    if (carried) throw new VfsError('CROSS_MOUNT', 'rename', from.path, `the folder holds the mount '${carried.path}'`);
    if (this.table.entriesBelow(to.path).length > 0)
      throw new VfsError('IS_DIRECTORY', 'rename', to.path, 'the destination leads to a mount');
    this.checkNotAboveAuthority(from, 'rename');
    await this.checkOwnRepository(from, 'rename');
    await this.checkOwnRepository(to, 'rename');
    try {
      if ((await layer.stat(from.rel)).type === 'directory') {
        if (to.path.startsWith(`${from.path}/`))
          throw new VfsError('INVALID_INPUT', 'rename', to.rel, 'a folder cannot be moved inside itself');
        await this.refuseProtectedInside(from);
        await this.refuseRepositoryInside(from);
      }
      const { createParents, ...renameOptions } = options;
      const made = createParents ? await makeParents(layer, to.rel) : [];
      try {
        await layer.rename(from.rel, to.rel, renameOptions);
      } catch (e) {
        for (const dir of made.reverse()) await layer.remove(dir).catch(() => undefined);
        throw e;
      }
    } catch (e) {
      throw this.anchor(e, from);
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

  /**
   * Throws when the resolved path may not be changed: `OUTSIDE_MOUNTS` (a folder that only
   * leads to mount points), `PROTECTED_PATH` (a `.git` name, the extra rule, an authority file or
   * anything below one), `READ_ONLY`.
   */
  checkWritable(r: Resolved, op: string): void {
    if (r.mount.layer === MOUNT_POINT_FOLDER) throw new VfsError('OUTSIDE_MOUNTS', op, r.path);
    if (this.isProtected(r)) throw new VfsError('PROTECTED_PATH', op, r.path);
    if (this.authorityFiles.some((f) => isAtOrBelow(f.relation(r.path)))) {
      throw new VfsError('PROTECTED_PATH', op, r.path, 'the file grants agents their authority and is never changed through tools');
    }
    if (!r.mount.writable || !isWritableLayer(r.mount.layer)) {
      const code = r.mount.refusal?.() ?? 'READ_ONLY';
      throw code === 'READ_ONLY' ? new VfsError('READ_ONLY', op, r.path) : new VfsError(code, op, r.path);
    }
  }

  /**
   * `checkWritable`, and what taking the entry at `r` away (removing or moving it) must not do,
   * decided from the path alone: `PROTECTED_PATH` when it holds an authority file,
   * `CROSS_MOUNT` when another mount's mount point lies inside it. (Protected names inside a
   * folder need a look at the folder: `rename` and `remove` check those.) A mount root passes:
   * every operation refuses to take one away with its own code.
   */
  checkRemovable(r: Resolved, op: string): void {
    this.checkWritable(r, op);
    // A mount root is never removed nor moved: the operation itself answers that.
    if (r.rel === '') return;
    this.checkNotAboveAuthority(r, op);
    const carried = this.table.list().find((m) => m.path.startsWith(`${r.path}/`));
    if (carried) throw new VfsError('CROSS_MOUNT', op, r.path, `the folder holds the mount '${carried.path}'`);
  }

  /**
   * `PROTECTED_PATH` when `r`, in the workspace root's mount, is or lies inside a submodule or
   * a nested repository (vfs/repository-boundary.ts): the workspace's git never sees a change
   * there. Every change here checks it; `commit` checks the paths it is given. Other mounts
   * pass. The layer's `INTERNAL` / `BUSY` when it cannot look.
   */
  async checkOwnRepository(r: Resolved, op: string): Promise<void> {
    if (r.mount.path !== this.root || r.rel === '') return;
    let inner: Awaited<ReturnType<RepositoryBoundary['around']>>;
    try {
      inner = await this.boundary.around(r.mount.layer, r.rel);
    } catch (e) {
      throw this.anchor(e, r);
    }
    if (inner) throw RepositoryBoundary.refusal(op, r.path, inner, this.display(`${this.root}/${inner.path}`));
  }

  /**
   * True for paths never shown to or changed by tools: a segment git treats as `.git`
   * (anywhere in the namespace path), or the extra rule.
   */
  isProtected(r: Resolved): boolean {
    return hasDotGitSegment(r.path) || (this.extraProtected?.(r) ?? false);
  }

  /** True for a name no listing shows and no walk enters (one git treats as `.git`). */
  isHiddenName(name: string): boolean {
    return isDotGitName(name);
  }

  /** True when `path` is an authority file (see `NamespaceOptions.authorityFiles`). */
  isAuthorityFile(path: string): boolean {
    return this.authorityFiles.some((f) => f.relation(path) === 'same');
  }

  /** Mount points (and folders leading to them) directly inside `path`, hidden names left out. */
  mountPointsIn(path: string): DirEntry[] {
    return withoutHiddenNames(this.table.entriesBelow(path));
  }

  private target(input: string | Resolved, op: string): Resolved {
    // Anything that is not an already resolved path goes through the grammar, which refuses
    // non-strings with BAD_NAME instead of failing later with a TypeError.
    return typeof input === 'object' && input !== null && 'mount' in input ? input : this.resolve(input as string, op);
  }

  /**
   * `NOT_FOUND` (as if absent) when the resolved path runs through a name git treats as `.git`.
   * Every read here checks it; a walk that goes to the layers directly (tools/tree-walk.ts)
   * calls it on its start.
   */
  checkVisible(r: Resolved, op: string): void {
    if (hasDotGitSegment(r.path)) throw new VfsError('NOT_FOUND', op, r.path);
  }

  /** The resolved path, checked with `checkVisible`. */
  private visible(input: string | Resolved, op: string): Resolved {
    const r = this.target(input, op);
    this.checkVisible(r, op);
    return r;
  }

  /**
   * `PROTECTED_PATH` when the folder `r` holds, at any depth, a name git treats as `.git` or a
   * path of the extra rule: moving the folder would carry it off.
   */
  private async refuseProtectedInside(r: Resolved): Promise<void> {
    const isProtected = (name: string, rel: string) =>
      isDotGitName(name) || this.isProtected({ path: `${r.mount.path}/${rel}`, mount: r.mount, rel });
    const found = await findProtectedInside(r.mount.layer, r.rel, isProtected);
    if (found !== undefined) throw new VfsError('PROTECTED_PATH', 'rename', r.rel, `the folder holds the protected '${baseName(found)}'`);
  }

  /** `PROTECTED_PATH` when the folder `r` (in the root's mount) holds a submodule: moving it would carry it off. */
  private async refuseRepositoryInside(r: Resolved): Promise<void> {
    if (r.mount.path !== this.root) return;
    const inner = await this.boundary.inside(r.rel);
    // Thrown inside rename's try, which anchors the layer path `r.rel` at the mount.
    if (inner) throw RepositoryBoundary.refusal('rename', r.rel, inner, this.display(`${this.root}/${inner.path}`));
  }

  /** `PROTECTED_PATH` when removing `r` would remove an authority file. */
  private checkNotAboveAuthority(r: Resolved, op: string): void {
    if (this.authorityFiles.some((f) => f.relation(r.path) === 'above')) {
      throw new VfsError('PROTECTED_PATH', op, r.path, 'the folder holds a file that grants agents their authority');
    }
  }

  private writableLayer(r: Resolved, op: string): WritableLayer {
    this.checkWritable(r, op);
    return r.mount.layer as WritableLayer;
  }

  private anchor(e: unknown, r: Resolved): unknown {
    if (!isVfsError(e)) return e;
    const base = r.mount.path;
    return e.withPath(e.path === '' ? base : `${base}/${e.path}`);
  }
}

function isAtOrBelow(relation: FoldedRelation): boolean {
  return relation === 'same' || relation === 'below';
}

/** True when a segment of the absolute namespace path is a `.git` name. */
function hasDotGitSegment(path: string): boolean {
  let start = 1;
  while (start <= path.length) {
    let end = path.indexOf('/', start);
    if (end < 0) end = path.length;
    if (end > start && isDotGitName(path.slice(start, end))) return true;
    start = end + 1;
  }
  return false;
}

/** The entries without `.git` names (the same array when there is none). */
function withoutHiddenNames(entries: DirEntry[]): DirEntry[] {
  return entries.some((e) => isDotGitName(e.name)) ? entries.filter((e) => !isDotGitName(e.name)) : entries;
}
