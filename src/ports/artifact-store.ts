/**
 * `ArtifactStore`: the host-owned store of handoff artifacts and auto-patches
 * (docs/ARCHITECTURE.md § Runs, handoffs and artifacts), under `<stateDir>/artifacts`:
 *
 * - objects, `objects/<sha256>`: named by the sha256 of their bytes, mode 0444, each content
 *   stored once. An object is written under a temp name (`objects/.tmp-<tag>-<hex>`, `tag` the
 *   writer's pid), fsynced, then hard-linked to its name — an object already there is kept, so
 *   the first inode stays — and the temp name unlinked; `flush` fsyncs the objects folder, after
 *   which every object committed is durable. A temp name is never read; one a dead writer left
 *   is removed by `removeTemps`.
 * - run folders, `<run>/<role>-v<visit>/<path>`: hard links to objects (O(1) in their size),
 *   built in `<run>/.staging-<role>-v<visit>`, every folder of it fsynced, then renamed into
 *   place and the run folder fsynced (`publishFolder`).
 *
 * One implementation over a small file-system interface (`ArtifactFs`): node:fs on disk, the
 * memfs volume in the memory host (which supports hard links), so both hosts keep the same layout.
 *
 * Limits: the state directory is trusted (the host proved its origin); names are checked before
 * they become path parts, but the folders on the way are not checked for links. A content linked
 * into more run folders than the file system allows links (65,000 on ext4) fails with `EMLINK`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { foreignCodeOf } from '../../vfs/index.js';

/** The file-system calls the store makes (a subset of node:fs that memfs's volume has too). */
export interface ArtifactFs {
  mkdirSync(path: string, options: { recursive: boolean; mode?: number }): unknown;
  openSync(path: string, flags: string | number, mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position?: number): number;
  write(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, written: number) => void,
  ): void;
  fsync(fd: number, callback: (error: Error | null) => void): void;
  closeSync(fd: number): void;
  chmodSync(path: string, mode: number): void;
  linkSync(existing: string, path: string): void;
  unlinkSync(path: string): void;
  renameSync(from: string, to: string): void;
  readdirSync(path: string): unknown[];
  lstatSync(path: string): { isFile(): boolean; isDirectory(): boolean; size: number | bigint };
  rmSync(path: string, options: { recursive: boolean; force: boolean }): void;
  readFile(path: string, callback: (error: Error | null, data: Uint8Array) => void): void;
}

/** An object as stored: its sha256 (lowercase hex) and size. */
export interface StoredObject {
  sha256: string;
  bytes: number;
}

/** One object being written: bytes in order, then `commit` (or `abort`). */
export interface ObjectWriter {
  /**
   * Appends `chunk`: hashed at once and copied out (the caller may reuse it after the call),
   * written to the temp file in the thread pool (on the calling thread while `QUEUED_BYTES`
   * wait there). Never throws: a failed write is `commit`'s error.
   */
  write(chunk: Uint8Array): void;
  /** Bytes written so far. */
  readonly bytes: number;
  /** Waits for the writes, fsyncs the bytes and gives them their name (kept if already there); durable after `flush`. */
  commit(): Promise<StoredObject>;
  /** Drops what was written (nothing stored); resolves once the temp file is gone. */
  abort(): Promise<void>;
}

/** One folder found under a run (`listFolders`). */
export interface FoundFolder {
  run: string;
  /** The folder's name, `<role>-v<visit>` (without `.staging-` for a staging folder). */
  name: string;
  staging: boolean;
}

/** The artifact store (see the file comment). */
export interface ArtifactStore {
  /** `<stateDir>/artifacts`. */
  readonly root: string;
  /** Starts writing one object. */
  begin(): ObjectWriter;
  /** Stores `bytes` as one object (`begin`, `write`, `commit`), written from `bytes` themselves: leave them unchanged until it settles. */
  put(bytes: Uint8Array): Promise<StoredObject>;
  /** Makes every object committed so far durable (one fsync of the objects folder). */
  flush(): Promise<void>;
  /** True when the object is stored (false for a malformed id). */
  has(sha256: string): boolean;
  /** The bytes of an object. Throws the file system's `ENOENT` when missing, an `Error` for a malformed id. */
  read(sha256: string): Promise<Uint8Array>;
  /** The platform path of an object. */
  objectPath(sha256: string): string;
  /** The platform path of a run folder `<root>/<run>/<name>`. Throws for a run or name outside their grammars. */
  folderPath(run: string, name: string): string;
  /**
   * Builds `<run>/<name>` holding each file's object at its relative path (staging folder,
   * links, fsyncs, one rename). Throws when the folder exists already or an object is missing;
   * the staging folder is removed then.
   */
  publishFolder(run: string, name: string, files: readonly { path: string; sha256: string }[]): Promise<void>;
  /** Removes `<run>/<name>` and `<run>/.staging-<name>` (missing is fine). Result: true when something was removed. */
  removeFolder(run: string, name: string): boolean;
  /** Every folder under every run (staging ones too), by run then name. */
  listFolders(): FoundFolder[];
  /** Removes the temp objects whose writer's tag `isGone` says has ended. Result: how many. */
  removeTemps(isGone: (tag: string) => boolean): number;
  /**
   * Writes a `shared` receiver's seed inventory, `<run>/inventory/<conversation>/inventory.json`
   * (the folder made when missing): an exclusive temp file beside it, renamed over it, so a
   * reader sees the old or the new bytes. Not fsynced: it is written again whenever the
   * receiver is registered. Result: the folder's platform path. Throws for a run or conversation
   * outside the grammar, and the file system's error.
   */
  writeInventory(run: string, conversation: string, bytes: Uint8Array): string;
}

/** The grammar of a run name (the conversation-id grammar). */
const RUN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** The grammar of a run folder's name: a folder-safe role name, `-v`, the visit number. */
const FOLDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}-v[1-9][0-9]{0,8}$/;
/** The grammar of an object id. */
const OBJECT_ID = /^[0-9a-f]{64}$/;
const STAGING = '.staging-';
const TEMP = /^\.tmp-([^-]+)-[0-9a-f]+$/;
/** Bytes one writer leaves waiting for the thread pool before it writes on the calling thread. */
const QUEUED_BYTES = 8 * 1024 * 1024;

/** True when `name` is a run folder name (`<role>-v<visit>`). */
export function isArtifactFolderName(name: string): boolean {
  return FOLDER_NAME.test(name);
}

/** The store in `<stateDir>/artifacts` over `fs` (see the file comment). */
export class ArtifactStoreDir implements ArtifactStore {
  readonly root: string;
  private readonly objects: string;
  private dirty = false;
  /** True once the objects folder is known to exist (made at the first `begin`). */
  private objectsMade = false;

  /**
   * `stateDir`: the host's state directory; `fs`: node:fs or a memfs volume; `tag`: names this
   * writer's temp files (the pid on disk), no '-' in it.
   */
  constructor(
    stateDir: string,
    private readonly fs: ArtifactFs,
    private readonly tag: string,
  ) {
    this.root = `${stateDir.replace(/\/+$/, '')}/artifacts`;
    this.objects = `${this.root}/objects`;
  }

  begin(): ObjectWriter {
    return this.writer();
  }

  /** `begin`'s writer; `write(chunk, true)` hands `chunk` over (not copied: the caller leaves it as it is). */
  private writer(): ObjectWriter & { write(chunk: Uint8Array, owned?: boolean): void } {
    const { fs } = this;
    const temp = `${this.objects}/.tmp-${this.tag}-${randomBytes(8).toString('hex')}`;
    const fd = this.openTemp(temp);
    const hash = createHash('sha256');
    let open = true;
    let bytes = 0;
    let queued = 0;
    let failure: { error: unknown } | undefined;
    // Positional writes in the thread pool; each settles (never rejects) before the fd is closed.
    const writes: Promise<void>[] = [];
    const writeAt = (copy: Buffer, at: number): Promise<void> =>
      new Promise<void>((resolve) => {
        const step = (done: number) => {
          if (done === copy.length || failure) return resolve();
          fs.write(fd, copy, done, copy.length - done, at + done, (e, n) => {
            if (e) failure ??= { error: e };
            step(done + (e ? copy.length : n));
          });
        };
        step(0);
      }).finally(() => {
        queued -= copy.length;
      });
    const close = () => {
      if (!open) return;
      open = false;
      fs.closeSync(fd);
    };
    const drop = () => {
      close();
      try {
        fs.unlinkSync(temp);
      } catch {
        // Gone already; a leftover temp name is never read.
      }
    };
    const settled = async () => {
      while (writes.length > 0) await Promise.all(writes.splice(0));
    };
    return {
      get bytes() {
        return bytes;
      },
      write(chunk: Uint8Array, owned = false) {
        hash.update(chunk);
        const at = bytes;
        bytes += chunk.length;
        if (failure) return;
        if (owned || queued + chunk.length <= QUEUED_BYTES) {
          queued += chunk.length;
          const copy = owned ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.from(chunk);
          writes.push(writeAt(copy, at));
          return;
        }
        try {
          for (let done = 0; done < chunk.length; ) done += fs.writeSync(fd, chunk, done, chunk.length - done, at + done);
        } catch (e) {
          failure = { error: e };
        }
      },
      commit: async () => {
        const sha256 = hash.digest('hex');
        try {
          await settled();
          if (failure) throw failure.error;
          await new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve())));
          close();
          fs.chmodSync(temp, 0o444);
          try {
            fs.linkSync(temp, this.objectPath(sha256));
            this.dirty = true;
          } catch (e) {
            if (foreignCodeOf(e) !== 'EEXIST') throw e;
          }
        } finally {
          drop();
        }
        return { sha256, bytes };
      },
      abort: async () => {
        await settled();
        drop();
      },
    };
  }

  async put(bytes: Uint8Array): Promise<StoredObject> {
    const writer = this.writer();
    writer.write(bytes, true);
    return writer.commit();
  }

  async flush(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    await this.syncFolder(this.objects);
  }

  has(sha256: string): boolean {
    return OBJECT_ID.test(sha256) && this.kindOf(this.objectPath(sha256)) === 'file';
  }

  read(sha256: string): Promise<Uint8Array> {
    const path = this.objectPath(sha256);
    return new Promise((resolve, reject) => this.fs.readFile(path, (e, data) => (e ? reject(e) : resolve(new Uint8Array(data)))));
  }

  objectPath(sha256: string): string {
    if (!OBJECT_ID.test(sha256)) throw new Error(`'${String(sha256).slice(0, 80)}' is not an object id`);
    return `${this.objects}/${sha256}`;
  }

  folderPath(run: string, name: string): string {
    return `${this.runPath(run)}/${checkedFolderName(name)}`;
  }

  async publishFolder(run: string, name: string, files: readonly { path: string; sha256: string }[]): Promise<void> {
    const { fs } = this;
    const final = this.folderPath(run, name);
    const staging = `${this.runPath(run)}/${STAGING}${name}`;
    if (this.kindOf(final) !== 'missing') throw Object.assign(new Error(`the artifact folder ${run}/${name} exists`), { code: 'EEXIST' });
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    const runIsNew = this.kindOf(this.runPath(run)) === 'missing';
    fs.mkdirSync(this.runPath(run), { recursive: true, mode: 0o700 });
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: false, mode: 0o755 });
    try {
      const folders = new Set<string>([staging]);
      for (const file of files) {
        const parts = checkedRelativePath(file.path);
        let folder = staging;
        for (const part of parts.slice(0, -1)) {
          folder = `${folder}/${part}`;
          if (!folders.has(folder)) {
            fs.mkdirSync(folder, { recursive: false, mode: 0o755 });
            folders.add(folder);
          }
        }
        fs.linkSync(this.objectPath(file.sha256), `${staging}/${parts.join('/')}`);
      }
      await Promise.all([...folders].map((folder) => this.syncFolder(folder)));
      fs.renameSync(staging, final);
    } catch (e) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw e;
    }
    await Promise.all([this.syncFolder(this.runPath(run)), runIsNew ? this.syncFolder(this.root) : undefined]);
  }

  removeFolder(run: string, name: string): boolean {
    const paths = [this.folderPath(run, name), `${this.runPath(run)}/${STAGING}${name}`];
    let removed = false;
    for (const path of paths) {
      if (this.kindOf(path) === 'missing') continue;
      this.fs.rmSync(path, { recursive: true, force: true });
      removed = true;
    }
    return removed;
  }

  listFolders(): FoundFolder[] {
    const found: FoundFolder[] = [];
    for (const run of this.names(this.root).filter((n) => RUN_NAME.test(n))) {
      for (const entry of this.names(`${this.root}/${run}`)) {
        const staging = entry.startsWith(STAGING);
        const name = staging ? entry.slice(STAGING.length) : entry;
        if (FOLDER_NAME.test(name)) found.push({ run, name, staging });
      }
    }
    return found;
  }

  removeTemps(isGone: (tag: string) => boolean): number {
    let removed = 0;
    for (const name of this.names(this.objects)) {
      const tag = TEMP.exec(name)?.[1];
      if (tag === undefined || !isGone(tag)) continue;
      try {
        this.fs.unlinkSync(`${this.objects}/${name}`);
        removed++;
      } catch {
        // Removed meanwhile by another process's sweep.
      }
    }
    return removed;
  }

  writeInventory(run: string, conversation: string, bytes: Uint8Array): string {
    const { fs } = this;
    if (!RUN_NAME.test(conversation)) throw new Error(`'${String(conversation).slice(0, 80)}' is not a conversation id`);
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.runPath(run), { recursive: true, mode: 0o700 });
    const folder = `${this.runPath(run)}/inventory/${conversation}`;
    fs.mkdirSync(folder, { recursive: true, mode: 0o755 });
    const temp = `${folder}/.tmp-${this.tag}-${randomBytes(6).toString('hex')}`;
    const fd = fs.openSync(temp, 'wx', 0o644);
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    } catch (e) {
      fs.closeSync(fd);
      fs.unlinkSync(temp);
      throw e;
    }
    fs.closeSync(fd);
    fs.renameSync(temp, `${folder}/inventory.json`);
    return folder;
  }

  /** Opens a new temp object for writing (the objects folder made at the first one, or again when it went). */
  private openTemp(temp: string): number {
    if (!this.objectsMade) {
      this.fs.mkdirSync(this.objects, { recursive: true, mode: 0o700 });
      this.objectsMade = true;
    }
    try {
      return this.fs.openSync(temp, 'wx', 0o600);
    } catch (e) {
      if (foreignCodeOf(e) !== 'ENOENT') throw e;
      this.fs.mkdirSync(this.objects, { recursive: true, mode: 0o700 });
      return this.fs.openSync(temp, 'wx', 0o600);
    }
  }

  private runPath(run: string): string {
    if (!RUN_NAME.test(run)) throw new Error(`'${String(run).slice(0, 80)}' is not a run name`);
    return `${this.root}/${run}`;
  }

  private names(folder: string): string[] {
    if (this.kindOf(folder) !== 'folder') return [];
    return this.fs
      .readdirSync(folder)
      .map(String)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private kindOf(path: string): 'file' | 'folder' | 'other' | 'missing' {
    try {
      const st = this.fs.lstatSync(path);
      return st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other';
    } catch (e) {
      const code = foreignCodeOf(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
      throw e;
    }
  }

  private syncFolder(folder: string): Promise<void> {
    const fd = this.fs.openSync(folder, 'r');
    return new Promise<void>((resolve, reject) => this.fs.fsync(fd, (e) => (e ? reject(e) : resolve()))).finally(() =>
      this.fs.closeSync(fd),
    );
  }
}

function checkedFolderName(name: string): string {
  if (!FOLDER_NAME.test(name)) throw new Error(`'${String(name).slice(0, 80)}' is not an artifact folder name`);
  return name;
}

/** The segments of a relative artifact path; throws for an empty, `.`, `..` or NUL segment, or an absolute path. */
function checkedRelativePath(path: string): string[] {
  const parts = path.split('/');
  if (path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) {
    throw new Error(`'${path.slice(0, 200)}' is not a relative artifact path`);
  }
  return parts;
}
