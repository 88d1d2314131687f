/**
 * `ContentStoreDir`: the `ContentStore` port (content-store.ts) on disk, one file per object at
 * `<stateDir>/snapshots/objects/<2 hex>/<62 hex>` (the sha256 of its bytes, split as git splits
 * its loose objects). An object is written under a temp name in its folder (`.tmp-*`) and renamed
 * to its name; temp names are never read (a leftover one is garbage, nothing more). An object
 * already there is not written again. `flush` makes every object put since the last one durable
 * at once — one `sync -f` (syncfs of the state directory's file system: one journal commit instead
 * of one per file, some 15 times faster for thousands of small objects), else an fsync of each —
 * and a snapshot flushes before its record says the objects exist, so a crash never leaves a
 * recorded snapshot over a half object.
 *
 * Limits: the state directory is trusted (the host proved its origin); the object itself is
 * opened with `O_NOFOLLOW`, the folders on the way are not checked for links. Stored bytes are
 * not re-hashed on `get`.
 */
import { execFile } from 'node:child_process';
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
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { foreignCodeOf } from '../../vfs/index.js';
import { type ContentStore, ContentStoreError, contentIdOf, isContentId } from './content-store.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;

/** The content store in `<stateDir>/snapshots/objects` (see the file comment). */
export class ContentStoreDir implements ContentStore {
  /** The objects folder, `<stateDir>/snapshots/objects`. */
  readonly dir: string;
  /** Objects written since the last `flush`. */
  private unsynced: string[] = [];

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
    this.unsynced.push(this.pathOf(id));
    return id;
  }

  async flush(): Promise<void> {
    if (this.unsynced.length === 0) return;
    const files = this.unsynced.splice(0);
    if (await syncFileSystem(this.dir)) return;
    await Promise.all(files.map(syncFile));
    for (const folder of new Set(files.map((f) => f.slice(0, f.lastIndexOf('/'))))) syncFolder(folder);
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

/** `sync -f DIR` (coreutils: syncfs of the file system holding DIR). Result: false when it could not run or failed. */
function syncFileSystem(dir: string): Promise<boolean> {
  return new Promise((resolve) => execFile('sync', ['-f', dir], { timeout: 120_000 }, (error) => resolve(!error)));
}

/** Flushes one file's bytes (gone meanwhile: nothing to flush). */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, O_RDONLY | O_NOFOLLOW).catch(() => null);
  if (!handle) return;
  try {
    await handle.sync();
  } finally {
    await handle.close();
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
