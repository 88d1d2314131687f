/**
 * `MemoryFolderImage`: the `FolderImage` port (src/ports/folder-image.ts) over a memfs volume,
 * with the disk one's rules: every folder on the way is `lstat`ed before its path is used, so a
 * link below the root is never followed (memfs itself would follow it); links are entries of
 * their own; writes go through a temp name and a rename. memfs is synchronous, so nothing changes
 * between a check and the call that relies on it.
 *
 * The stamp is `${ino}:${size}:${mtimeMs}:${ctimeMs}:<digest of the bytes>`: memfs times have
 * millisecond resolution and a write in place keeps the inode, so the digest is what makes two
 * writes of the same size in one millisecond differ (affordable in memory, never on disk).
 */
import { createHash } from 'node:crypto';
import type { Volume } from 'memfs';
import { foreignCodeOf } from '../../../vfs/index.js';
import { byPath, type FolderImage, FolderImageError, type FolderScan, type ImageEntry, segmentsOf } from '../../ports/index.js';

type Vol = InstanceType<typeof Volume>;

/** What is at a volume path, without following a link at its last component. */
type Kind = 'dir' | 'file' | 'link' | 'other' | 'missing';

/** The `FolderImage` port over a memfs volume (see the file comment). Temp names count up: deterministic. */
export class MemoryFolderImage implements FolderImage {
  private temps = 0;

  constructor(private readonly volume: Vol) {}

  async scan(root: string, options: { skip?(path: string): boolean } = {}): Promise<FolderScan> {
    this.rootFolder('scan', root);
    const entries: ImageEntry[] = [];
    const skipped: string[] = [];
    const walk = (dir: string, rel: string): void => {
      for (const name of (this.volume.readdirSync(dir) as unknown[]).map(String)) {
        const path = rel === '' ? name : `${rel}/${name}`;
        if (options.skip?.(path)) continue;
        const full = `${dir}/${name}`;
        const st = this.volume.lstatSync(full);
        if (st.isSymbolicLink()) entries.push({ path, kind: 'link', target: String(this.volume.readlinkSync(full)) });
        else if (st.isDirectory()) {
          entries.push({ path, kind: 'dir', mode: Number(st.mode) & 0o7777 });
          walk(full, path);
        } else if (st.isFile()) {
          const digest = createHash('sha256')
            .update(this.volume.readFileSync(full) as Buffer)
            .digest('hex')
            .slice(0, 16);
          const size = Number(st.size);
          const stamp = `${st.ino}:${size}:${st.mtimeMs}:${st.ctimeMs}:${digest}`;
          entries.push({ path, kind: 'file', mode: Number(st.mode) & 0o7777, size, stamp });
        } else skipped.push(path);
      }
    };
    walk(trimmed(root), '');
    return { entries: entries.sort(byPath), skipped: skipped.sort() };
  }

  async read(root: string, rel: string): Promise<Uint8Array> {
    const segments = segmentsOf('read', rel);
    const full = `${this.folderAt('read', root, segments.slice(0, -1))}/${segments[segments.length - 1]}`;
    const kind = this.kindOf(full);
    if (kind === 'missing') throw new FolderImageError('NOT_FOUND', 'read', rel);
    if (kind === 'link') throw new FolderImageError('SYMLINK_ESCAPE', 'read', rel);
    if (kind !== 'file') throw new FolderImageError('NOT_REGULAR_FILE', 'read', rel);
    return new Uint8Array(this.volume.readFileSync(full) as Buffer);
  }

  async readLink(root: string, rel: string): Promise<string> {
    const segments = segmentsOf('readLink', rel);
    const full = `${this.folderAt('readLink', root, segments.slice(0, -1))}/${segments[segments.length - 1]}`;
    const kind = this.kindOf(full);
    if (kind === 'missing') throw new FolderImageError('NOT_FOUND', 'readLink', rel);
    if (kind !== 'link') throw new FolderImageError('NOT_REGULAR_FILE', 'readLink', rel);
    return String(this.volume.readlinkSync(full));
  }

  async remove(root: string, rel: string): Promise<void> {
    const segments = segmentsOf('remove', rel);
    let parent: string;
    try {
      parent = this.folderAt('remove', root, segments.slice(0, -1));
    } catch (e) {
      // Nothing can be at rel without following a link or passing a file: nothing to remove.
      if (e instanceof FolderImageError && e.data.path !== '') return;
      throw e;
    }
    this.clear(`${parent}/${segments[segments.length - 1]}`);
  }

  async makeFolder(root: string, rel: string, mode: number): Promise<void> {
    const segments = segmentsOf('makeFolder', rel);
    const full = `${this.folderAt('makeFolder', root, segments.slice(0, -1))}/${segments[segments.length - 1]}`;
    const kind = this.kindOf(full);
    if (kind !== 'dir') {
      if (kind !== 'missing') this.volume.unlinkSync(full);
      this.volume.mkdirSync(full);
    }
    this.volume.chmodSync(full, mode & 0o7777);
  }

  async writeFile(root: string, rel: string, bytes: Uint8Array, mode: number): Promise<void> {
    const segments = segmentsOf('writeFile', rel);
    const parent = this.folderAt('writeFile', root, segments.slice(0, -1));
    const temp = `${parent}/.gatefs-tmp-${++this.temps}`;
    this.volume.writeFileSync(temp, bytes, { flag: 'wx' });
    this.volume.chmodSync(temp, mode & 0o7777);
    this.replaceWith(temp, `${parent}/${segments[segments.length - 1]}`);
  }

  async makeLink(root: string, rel: string, target: string): Promise<void> {
    const segments = segmentsOf('makeLink', rel);
    const parent = this.folderAt('makeLink', root, segments.slice(0, -1));
    // memfs's rename follows a link at its source, so the link is made at its name directly:
    // nothing runs between the removal and the symlink call here.
    const full = `${parent}/${segments[segments.length - 1]}`;
    this.clear(full);
    this.volume.symlinkSync(target, full);
  }

  async bytesUsed(root: string): Promise<number> {
    const { entries } = await this.scan(root);
    return entries.reduce((sum, e) => sum + (e.kind === 'file' ? e.size : 0), 0);
  }

  /** Checks that `root` is a folder (not a link); throws `FolderImageError` otherwise. */
  private rootFolder(op: string, root: string): void {
    const kind = this.kindOf(trimmed(root) || '/');
    if (kind === 'missing') throw new FolderImageError('NOT_FOUND', op, '');
    if (kind === 'link') throw new FolderImageError('SYMLINK_ESCAPE', op, '');
    if (kind !== 'dir') throw new FolderImageError('NOT_DIRECTORY', op, '');
  }

  /** The volume path of folder `segments` below `root`, each one checked to be a folder and not a link. */
  private folderAt(op: string, root: string, segments: readonly string[]): string {
    this.rootFolder(op, root);
    let path = trimmed(root);
    for (let i = 0; i < segments.length; i++) {
      path = `${path}/${segments[i]}`;
      const kind = this.kindOf(path);
      if (kind === 'dir') continue;
      const rel = segments.slice(0, i + 1).join('/');
      if (kind === 'missing') throw new FolderImageError('NOT_FOUND', op, rel);
      throw new FolderImageError(kind === 'link' ? 'SYMLINK_ESCAPE' : 'NOT_DIRECTORY', op, rel);
    }
    return path;
  }

  private kindOf(path: string): Kind {
    try {
      const st = this.volume.lstatSync(path);
      return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    } catch (e) {
      const code = foreignCodeOf(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
      throw e;
    }
  }

  /** Removes `path`: a folder with everything below it (links as links), anything else as itself. */
  private clear(path: string): void {
    const kind = this.kindOf(path);
    if (kind === 'missing') return;
    if (kind !== 'dir') {
      this.volume.unlinkSync(path);
      return;
    }
    for (const name of (this.volume.readdirSync(path) as unknown[]).map(String)) this.clear(`${path}/${name}`);
    this.volume.rmdirSync(path);
  }

  /** Renames `temp` over `target`, removing a folder there first. */
  private replaceWith(temp: string, target: string): void {
    if (this.kindOf(target) === 'dir') this.clear(target);
    this.volume.renameSync(temp, target);
  }
}

/** `root` without trailing slashes ('' for the volume's root). */
function trimmed(root: string): string {
  return root.replace(/\/+$/, '');
}
