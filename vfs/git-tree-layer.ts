/**
 * `GitTreeLayer`: a read-only layer serving one commit's tree straight from git objects,
 * optionally rooted at a sub-folder of that tree (`.campaign`). Creating one is O(1): nothing
 * is read until the first call, and each call reads only the trees on its path (cached by the
 * object reader). Used for relative mounts and as the lower layer of `copy` workspaces.
 *
 * Git symlinks (mode 120000) are reported as `symlink` and never followed (`SYMLINK_ESCAPE` as
 * an intermediate component or on read); `readLink` returns their stored target text (the
 * blob), for the namespace to follow when it stays inside the mount; submodules (160000) are `other`. Writes are refused
 * with `READ_ONLY` (the layer offers no writing extension; wrap it or overlay it). Sizes come
 * from reading the blob, so `stat` of a large file costs one blob read (then cached).
 */
import { VfsError, isDescriptorShortage } from './errors.js';
import type { DirEntry, EntryType, LinkReadingLayer, ReadOptions, Stat } from './layer.js';
import { compareNames } from './layer.js';
import { checkLayerPath } from './layer-path.js';
import type { GitObjectReader, TreeEntry } from './git-object-reader.js';

interface Node {
  type: EntryType;
  mode: string;
  oid: string;
}

const MAX_CACHED_SIZES = 65_536;

/** A read-only layer over one commit's tree, read lazily from git objects (see the file comment). */
export class GitTreeLayer implements LinkReadingLayer {
  readonly kind = 'git-tree';
  private root?: Promise<Node>;
  private readonly indexes = new WeakMap<TreeEntry[], Map<string, TreeEntry>>();
  private readonly sizes = new Map<string, number>();

  /**
   * @param reader the object store to read from
   * @param commit the pinned commit (full SHA)
   * @param subPath a folder inside the commit's tree to serve as the layer root ('' = whole tree)
   */
  constructor(
    private readonly reader: GitObjectReader,
    readonly commit: string,
    readonly subPath = '',
  ) {}

  async stat(path: string): Promise<Stat> {
    const node = await this.walk(path, 'stat');
    const size = node.type === 'file' || node.type === 'symlink' ? await this.sizeOf(node, path, 'stat') : 0;
    return { type: node.type, size, mode: modeBits(node.mode), mtimeMs: 0 };
  }

  async readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    const node = await this.walk(path, 'read');
    if (node.type === 'symlink') throw new VfsError('SYMLINK_ESCAPE', 'read', path);
    if (node.type === 'directory') throw new VfsError('IS_DIRECTORY', 'read', path);
    if (node.type !== 'file') throw new VfsError('NOT_REGULAR_FILE', 'read', path);
    const bytes = await this.blob(node.oid, path, 'read');
    if (options?.maxBytes !== undefined && bytes.byteLength > options.maxBytes) throw new VfsError('TOO_LARGE', 'read', path);
    return bytes;
  }

  /** The target text of a committed link (its blob, as UTF-8). `NOT_SYMLINK` for anything else. */
  async readLink(path: string): Promise<string> {
    const node = await this.walk(path, 'readlink');
    if (node.type !== 'symlink') throw new VfsError('NOT_SYMLINK', 'readlink', path);
    const bytes = await this.blob(node.oid, path, 'readlink');
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new VfsError('SYMLINK_ESCAPE', 'readlink', path, 'the link target is not UTF-8 text');
    }
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const node = await this.walk(path, 'readdir');
    if (node.type === 'symlink') throw new VfsError('SYMLINK_ESCAPE', 'readdir', path);
    if (node.type !== 'directory') throw new VfsError('NOT_DIRECTORY', 'readdir', path);
    const entries = await this.tree(node.oid, path, 'readdir');
    return entries.map((e) => ({ name: e.name, type: typeOf(e.mode) })).sort((a, b) => compareNames(a.name, b.name));
  }

  /**
   * The layer path of the submodule (a gitlink, mode 160000) that `path` is or lies inside, or
   * undefined when there is none on the way: a missing name, a file or a link ends the search.
   * Reads only the trees on the way (cached by the reader). `INTERNAL` / `BUSY` when a tree
   * cannot be read; `BAD_NAME` / `NAME_TOO_LONG` for a path no layer accepts.
   */
  async submoduleOn(path: string): Promise<string | undefined> {
    checkLayerPath(path, 'stat');
    if (path === '') return undefined;
    let node = await this.rootNode('stat');
    const segs = path.split('/');
    for (let i = 0; i < segs.length; i++) {
      if (node.type !== 'directory') return undefined;
      const entry = this.index(await this.tree(node.oid, segs.slice(0, i).join('/'), 'stat')).get(segs[i]);
      if (!entry) return undefined;
      if (entry.mode === '160000') return segs.slice(0, i + 1).join('/');
      node = { type: typeOf(entry.mode), mode: entry.mode, oid: entry.oid };
    }
    return undefined;
  }

  /**
   * The layer path of the first submodule strictly inside the folder `path`, or undefined (also
   * when `path` is not a folder of this tree). Walks the folder's trees: the cost of a folder move.
   */
  async submoduleInside(path: string): Promise<string | undefined> {
    checkLayerPath(path, 'walk');
    const node = await this.walk(path, 'walk').catch((e: unknown) => {
      if (e instanceof VfsError && (e.code === 'NOT_FOUND' || e.code === 'NOT_DIRECTORY' || e.code === 'SYMLINK_ESCAPE')) return undefined;
      throw e;
    });
    if (node?.type !== 'directory') return undefined;
    const pending: { path: string; oid: string }[] = [{ path, oid: node.oid }];
    while (pending.length > 0) {
      const dir = pending.pop()!;
      for (const e of await this.tree(dir.oid, dir.path, 'walk')) {
        const child = dir.path === '' ? e.name : `${dir.path}/${e.name}`;
        if (e.mode === '160000') return child;
        if (typeOf(e.mode) === 'directory') pending.push({ path: child, oid: e.oid });
      }
    }
    return undefined;
  }

  /**
   * The node at a layer path (checked first: `BAD_NAME`, `NAME_TOO_LONG`), checking that every
   * intermediate component is a folder.
   */
  private async walk(path: string, op: string): Promise<Node> {
    checkLayerPath(path, op);
    let node = await this.rootNode(op);
    if (path === '') return node;
    const segs = path.split('/');
    for (let i = 0; i < segs.length; i++) {
      const here = segs.slice(0, i).join('/');
      if (node.type === 'symlink') throw new VfsError('SYMLINK_ESCAPE', op, here);
      if (node.type !== 'directory') throw new VfsError('NOT_DIRECTORY', op, here);
      const entry = this.index(await this.tree(node.oid, here, op)).get(segs[i]);
      if (!entry) throw new VfsError('NOT_FOUND', op, path);
      node = { type: typeOf(entry.mode), mode: entry.mode, oid: entry.oid };
    }
    return node;
  }

  private rootNode(op: string): Promise<Node> {
    this.root ??= this.findRoot();
    return this.root.catch((e: unknown) => {
      if (e instanceof VfsError) throw new VfsError(e.code, op, '', e.detail);
      throw e;
    });
  }

  private async findRoot(): Promise<Node> {
    let treeOid: string;
    try {
      treeOid = await this.reader.commitTree(this.commit);
    } catch (e) {
      this.root = undefined;
      throw busyOrInternal(e, 'stat', '', 'the pinned commit cannot be read');
    }
    let node: Node = { type: 'directory', mode: '040000', oid: treeOid };
    if (this.subPath === '') return node;
    for (const seg of this.subPath.split('/')) {
      const entry = node.type === 'directory' ? this.index(await this.tree(node.oid, '', 'stat')).get(seg) : undefined;
      if (!entry || typeOf(entry.mode) !== 'directory') {
        throw new VfsError('NOT_FOUND', 'stat', '', 'the mounted folder does not exist in the pinned commit');
      }
      node = { type: 'directory', mode: entry.mode, oid: entry.oid };
    }
    return node;
  }

  private async tree(oid: string, path: string, op: string): Promise<TreeEntry[]> {
    try {
      return await this.reader.readTree(oid);
    } catch (e) {
      throw busyOrInternal(e, op, path, 'a git tree of the pinned commit cannot be read');
    }
  }

  private async blob(oid: string, path: string, op: string): Promise<Uint8Array> {
    try {
      const bytes = await this.reader.readBlob(oid);
      this.remember(oid, bytes.byteLength);
      return bytes;
    } catch (e) {
      throw busyOrInternal(e, op, path, 'a git blob of the pinned commit cannot be read');
    }
  }

  private async sizeOf(node: Node, path: string, op: string): Promise<number> {
    return this.sizes.get(node.oid) ?? (await this.blob(node.oid, path, op)).byteLength;
  }

  private remember(oid: string, size: number): void {
    if (this.sizes.size >= MAX_CACHED_SIZES) this.sizes.delete(this.sizes.keys().next().value as string);
    this.sizes.set(oid, size);
  }

  private index(entries: TreeEntry[]): Map<string, TreeEntry> {
    let map = this.indexes.get(entries);
    if (!map) this.indexes.set(entries, (map = new Map(entries.map((e) => [e.name, e]))));
    return map;
  }
}

/** A read-only layer over `commit`'s tree (or its `subPath` folder). O(1) to create. */
export function gitTreeLayer(reader: GitObjectReader, commit: string, subPath = ''): GitTreeLayer {
  return new GitTreeLayer(reader, commit, subPath);
}

function typeOf(mode: string): EntryType {
  switch (mode) {
    case '040000':
      return 'directory';
    case '120000':
      return 'symlink';
    case '100644':
    case '100755':
      return 'file';
    default:
      return 'other';
  }
}

function modeBits(mode: string): number {
  switch (mode) {
    case '040000':
      return 0o755;
    case '100755':
      return 0o755;
    case '120000':
      return 0o777;
    default:
      return 0o644;
  }
}

/** `BUSY` when the read failed for want of descriptors (retryable), else `INTERNAL`; the cause is kept. */
function busyOrInternal(e: unknown, op: string, path: string, detail: string): VfsError {
  return isDescriptorShortage(e)
    ? new VfsError('BUSY', op, path, undefined, { cause: e })
    : new VfsError('INTERNAL', op, path, detail, { cause: e });
}
