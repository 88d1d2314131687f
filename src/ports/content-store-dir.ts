/**
 * `ContentStoreDir`: the `ContentStore` port (content-store.ts) on disk, one file per object at
 * `<stateDir>/snapshots/objects/<2 hex>/<62 hex>` (the sha256 of its bytes, split as git splits
 * its loose objects). An object is written under a temp name in its folder (`.tmp-*`), flushed
 * and renamed to its name, so a crash never leaves a half object under a content name; temp
 * names are never read (a leftover one is garbage, nothing more). An object already there is
 * not written again.
 *
 * Limits: the state directory is trusted (the host proved its origin); the object itself is
 * opened with `O_NOFOLLOW`, the folders on the way are not checked for links. Stored bytes are
 * not re-hashed on `get`.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { foreignCodeOf } from '../../vfs/index.js';
import { type ContentStore, ContentStoreError, contentIdOf, isContentId } from './content-store.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;

/** The content store in `<stateDir>/snapshots/objects` (see the file comment). */
export class ContentStoreDir implements ContentStore {
  /** The objects folder, `<stateDir>/snapshots/objects`. */
  readonly dir: string;

  /** `stateDir`: the host's state directory; the objects folder is made when the first object is put. */
  constructor(stateDir: string) {
    this.dir = join(stateDir, 'snapshots', 'objects');
  }

  async put(bytes: Uint8Array): Promise<string> {
    const id = contentIdOf(bytes);
    if (this.has(id)) return id;
    const folder = join(this.dir, id.slice(0, 2));
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const temp = join(folder, `.tmp-${randomBytes(8).toString('hex')}`);
    const fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      try {
        for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.pathOf(id));
    } catch (e) {
      try {
        unlinkSync(temp);
      } catch {
        // The write's own error is the one to report; a leftover temp name is never read.
      }
      throw e;
    }
    syncFolder(folder);
    return id;
  }

  async get(id: string): Promise<Uint8Array> {
    if (!isContentId(id)) throw new ContentStoreError(id);
    let fd: number;
    try {
      fd = openSync(this.pathOf(id), O_RDONLY | O_NOFOLLOW);
    } catch (e) {
      const code = foreignCodeOf(e);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') throw new ContentStoreError(id, { cause: e });
      throw e;
    }
    try {
      if (!fstatSync(fd).isFile()) throw new ContentStoreError(id);
      return new Uint8Array(readFileSync(fd));
    } finally {
      closeSync(fd);
    }
  }

  has(id: string): boolean {
    return isContentId(id) && lstatSync(this.pathOf(id), { throwIfNoEntry: false })?.isFile() === true;
  }

  sizeOf(id: string): number {
    if (!isContentId(id)) return 0;
    const st = lstatSync(this.pathOf(id), { throwIfNoEntry: false });
    return st?.isFile() ? st.size : 0;
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) {
      if (!isContentId(id)) continue;
      try {
        unlinkSync(this.pathOf(id));
      } catch (e) {
        const code = foreignCodeOf(e);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      }
    }
  }

  /** The object file of a well-formed id. */
  private pathOf(id: string): string {
    return join(this.dir, id.slice(0, 2), id.slice(2));
  }
}

/** Flushes a folder's entries (the rename of a new object). */
function syncFolder(folder: string): void {
  const fd = openSync(folder, O_RDONLY | O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
