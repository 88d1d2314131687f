/**
 * `MemoryLayer`: a layer over a memfs volume (optionally a sub-folder of a shared volume).
 *
 * Mirrors the host layer's rules: no symlink is followed (each intermediate component is
 * checked with lstat), writes replace the name through a temp file and a rename (so a hard link
 * never changes in place and a symlink at the name is replaced, not followed), and an existing
 * file keeps its mode. memfs is synchronous underneath; each call is one short synchronous step.
 * Every path is checked first (vfs/layer-path.ts: `BAD_NAME`, `NAME_TOO_LONG`): memfs itself
 * would resolve `..` above the layer's root folder.
 */
import { Volume } from 'memfs';
import { VfsError, fromErrno } from './errors.js';
import type {
  DirEntry,
  LinkReadingLayer,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from './layer.js';
import { baseName, compareNames, parentPath } from './layer.js';
import { checkLayerPath } from './layer-path.js';
import { checkRenameKinds, checkRenamePaths } from './rename-rules.js';
import type { LockKey, LockableLayer } from './lock-key.js';
import { foreignCodeOf } from './coded-error.js';
import { entryTypeOf, toStat, type NodeStatLike, type NodeTypeProbe } from './node-stat.js';

type Vol = InstanceType<typeof Volume>;

interface MemoryLayerOptions {
  /** The volume to use (default: a new empty one). */
  volume?: Vol;
  /** Absolute folder inside the volume that is this layer's root (default '/'). Created if missing. */
  root?: string;
  /** Initial files, layer-relative path → content. */
  files?: Record<string, string | Uint8Array>;
}

let tempCounter = 0;

export class MemoryLayer implements WritableLayer, LinkReadingLayer, LockableLayer {
  readonly kind = 'memory';
  readonly volume: Vol;
  private readonly root: string;

  constructor(options: MemoryLayerOptions = {}) {
    this.volume = options.volume ?? new Volume();
    this.root = (options.root ?? '/').replace(/\/+$/, '');
    if (this.root !== '') this.volume.mkdirSync(this.root, { recursive: true });
    for (const [path, content] of Object.entries(options.files ?? {})) {
      const abs = this.abs(path);
      this.volume.mkdirSync(abs.slice(0, abs.lastIndexOf('/')) || '/', { recursive: true });
      this.volume.writeFileSync(abs, content);
    }
  }

  async stat(path: string): Promise<Stat> {
    checkLayerPath(path, 'stat');
    return toStat(this.lstat(path, 'stat'));
  }

  async readFile(path: string, options?: ReadOptions): Promise<Uint8Array> {
    checkLayerPath(path, 'read');
    const st = this.lstat(path, 'read');
    if (st.isSymbolicLink()) throw new VfsError('SYMLINK_ESCAPE', 'read', path);
    if (st.isDirectory()) throw new VfsError('IS_DIRECTORY', 'read', path);
    if (!st.isFile()) throw new VfsError('NOT_REGULAR_FILE', 'read', path);
    if (options?.maxBytes !== undefined && Number(st.size) > options.maxBytes) {
      throw new VfsError('TOO_LARGE', 'read', path);
    }
    try {
      const buf = this.volume.readFileSync(this.abs(path)) as Buffer;
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      throw fromErrno(e, 'read', path);
    }
  }

  async readdir(path: string): Promise<DirEntry[]> {
    checkLayerPath(path, 'readdir');
    const st = this.lstat(path, 'readdir');
    if (st.isSymbolicLink()) throw new VfsError('SYMLINK_ESCAPE', 'readdir', path);
    if (!st.isDirectory()) throw new VfsError('NOT_DIRECTORY', 'readdir', path);
    try {
      const dirents = this.volume.readdirSync(this.abs(path), { withFileTypes: true }) as unknown as (NodeTypeProbe & { name: string })[];
      return dirents.map((d) => ({ name: String(d.name), type: entryTypeOf(d) })).sort((a, b) => compareNames(a.name, b.name));
    } catch (e) {
      throw fromErrno(e, 'readdir', path);
    }
  }

  async writeFile(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<WriteResult> {
    checkLayerPath(path, 'write');
    if (path === '') throw new VfsError('IS_DIRECTORY', 'write', path);
    this.checkParent(path, 'write');
    const abs = this.abs(path);
    const existing = this.lstatOrUndefined(path, 'write');
    if (existing) {
      if (options.exclusive) throw new VfsError('ALREADY_EXISTS', 'write', path);
      if (existing.isDirectory()) throw new VfsError('IS_DIRECTORY', 'write', path);
      if (!existing.isFile() && !existing.isSymbolicLink()) throw new VfsError('NOT_REGULAR_FILE', 'write', path);
    }
    const mode = existing?.isFile() ? Number(existing.mode) & 0o7777 : (options.mode ?? 0o644);
    // memfs is synchronous: nothing can change the file between this compare and the rename.
    if (!options.exclusive && options.ifMatch && !(existing?.isFile() && this.holds(abs, options.ifMatch))) {
      throw new VfsError('STALE_CONTENT', 'write', path, 'the file changed after it was read; nothing was written');
    }
    const temp = `${abs.slice(0, abs.lastIndexOf('/'))}/.${baseName(path)}.gatefs-${++tempCounter}.tmp`;
    try {
      this.volume.writeFileSync(temp, data, { flag: 'wx', mode });
      this.volume.renameSync(temp, abs);
    } catch (e) {
      try {
        this.volume.unlinkSync(temp);
      } catch {
        /* the temp file was never created */
      }
      throw fromErrno(e, 'write', path);
    }
    return { created: !existing };
  }

  async mkdir(path: string): Promise<void> {
    checkLayerPath(path, 'mkdir');
    if (path === '') throw new VfsError('ALREADY_EXISTS', 'mkdir', path);
    this.checkParent(path, 'mkdir');
    try {
      this.volume.mkdirSync(this.abs(path), 0o755);
    } catch (e) {
      throw fromErrno(e, 'mkdir', path);
    }
  }

  async remove(path: string, options: RemoveOptions = {}): Promise<void> {
    checkLayerPath(path, 'remove');
    if (path === '') throw new VfsError('READ_ONLY', 'remove', path, 'cannot remove the root of a mount');
    const st = this.lstat(path, 'remove');
    if (options.fileOnly && st.isDirectory()) throw new VfsError('IS_DIRECTORY', 'remove', path);
    // memfs is synchronous: nothing can change the file between this compare and the unlink.
    if (options.ifMatch && !(st.isFile() && this.holds(this.abs(path), options.ifMatch))) {
      throw new VfsError('STALE_CONTENT', 'remove', path, 'the file changed after it was read; nothing was removed');
    }
    try {
      if (st.isDirectory()) this.volume.rmdirSync(this.abs(path));
      else this.volume.unlinkSync(this.abs(path));
    } catch (e) {
      throw fromErrno(e, 'remove', path);
    }
  }

  /** Renames within the layer (vfs/layer.ts `WritableLayer.rename`, vfs/rename-rules.ts); one synchronous memfs step. */
  async rename(from: string, to: string, options: RenameOptions = {}): Promise<void> {
    checkLayerPath(from, 'rename');
    checkLayerPath(to, 'rename');
    checkRenamePaths(from, to);
    const source = this.lstat(from, 'rename');
    this.checkParent(to, 'rename');
    const target = this.lstatOrUndefined(to, 'rename');
    checkRenameKinds(from, to, entryTypeOf(source), target && entryTypeOf(target), options);
    try {
      if (source.isSymbolicLink()) {
        // memfs's renameSync follows a link at the source (it moves what the link points to):
        // a link is moved by making it again at `to`, in the same synchronous step.
        const target = String(this.volume.readlinkSync(this.abs(from)));
        if (this.lstatOrUndefined(to, 'rename')) this.volume.unlinkSync(this.abs(to));
        this.volume.symlinkSync(target, this.abs(to));
        this.volume.unlinkSync(this.abs(from));
      } else this.volume.renameSync(this.abs(from), this.abs(to));
    } catch (e) {
      throw fromErrno(e, 'rename', to);
    }
  }

  /** The target text of the link at `path` (vfs/layer.ts `LinkReadingLayer`). */
  async readLink(path: string): Promise<string> {
    checkLayerPath(path, 'readlink');
    const st = path === '' ? undefined : this.lstat(path, 'readlink');
    if (!st?.isSymbolicLink()) throw new VfsError('NOT_SYMLINK', 'readlink', path);
    try {
      return String(this.volume.readlinkSync(this.abs(path)));
    } catch (e) {
      throw fromErrno(e, 'readlink', path);
    }
  }

  /** The lock key of `path`: this volume and the volume path (no links are followed, so it is the only name). */
  lockKey(path: string): LockKey {
    checkLayerPath(path, 'lock');
    return { scope: this.volume, id: this.abs(path) };
  }

  private holds(abs: string, expected: Uint8Array): boolean {
    const current = this.volume.readFileSync(abs) as Buffer;
    return current.length === expected.length && Buffer.compare(current, expected) === 0;
  }

  private abs(path: string): string {
    return path === '' ? this.root || '/' : `${this.root}/${path}`;
  }

  /** lstat of `path` after checking every intermediate component is a real folder. */
  private lstat(path: string, op: string): NodeStatLike {
    const st = this.lstatOrUndefined(path, op);
    if (!st) throw new VfsError('NOT_FOUND', op, path);
    return st;
  }

  private lstatOrUndefined(path: string, op: string): NodeStatLike | undefined {
    if (path !== '' && this.hasPlainParent(path)) {
      try {
        return this.volume.lstatSync(this.abs(path)) as NodeStatLike;
      } catch (e) {
        if (foreignCodeOf(e) === 'ENOENT') return undefined;
        // Anything else (a file as the parent, …) is classified by the per-component check below.
      }
    }
    if (path !== '') this.checkParent(path, op);
    try {
      return this.volume.lstatSync(this.abs(path)) as NodeStatLike;
    } catch (e) {
      const err = fromErrno(e, op, path);
      if (err.code === 'NOT_FOUND') return undefined;
      throw err;
    }
  }

  /**
   * True when the folder path leading to `path` has no symbolic link in it: its memfs
   * `realpath` is itself (one call instead of an `lstat` per component). False also when it
   * does not exist, or when the layer root itself is reached through a link; callers then use
   * `checkParent`, which names the failing component. memfs is synchronous and in-process, so
   * nothing can change between this check and the caller's next call.
   */
  private hasPlainParent(path: string): boolean {
    const parent = parentPath(path);
    if (parent === '') return true;
    const abs = this.abs(parent);
    try {
      return this.volume.realpathSync(abs) === abs;
    } catch {
      return false;
    }
  }

  /** Every folder leading to `path` exists and is a folder, not a link. */
  private checkParent(path: string, op: string): void {
    const parent = parentPath(path);
    if (parent === '' && path !== '') return;
    let prefix = '';
    for (const seg of parent.split('/')) {
      prefix = prefix === '' ? seg : `${prefix}/${seg}`;
      let st: NodeStatLike;
      try {
        st = this.volume.lstatSync(this.abs(prefix)) as NodeStatLike;
      } catch (e) {
        throw fromErrno(e, op, prefix);
      }
      if (st.isSymbolicLink()) throw new VfsError('SYMLINK_ESCAPE', op, prefix);
      if (!st.isDirectory()) throw new VfsError('NOT_DIRECTORY', op, prefix);
    }
  }
}
