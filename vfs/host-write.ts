/**
 * The mutating operations of the host layer: `hostWriteFile`, `hostMkdir`, `hostRemove`
 * (and `hostRename`, in vfs/host-rename.ts).
 * Each walks to the parent folder through `ConfinedWalk` (showing every folder
 * to the guard), then acts on one name inside the held parent, by `/proc/self/fd/<parentFd>/<name>`
 * (SECURITY.md §3, steps 5–6). The kernel treats `/proc/self/fd/<fd>` as the held folder
 * itself, so a rename or unlink lands in that folder even if it was moved meanwhile.
 *
 * Writes replace: a temp file is created with `O_CREAT | O_EXCL | O_NOFOLLOW` in the parent,
 * written, and renamed over the name. So a symlink at the name is replaced, never followed, a
 * hard-linked name gets a new inode while the other links keep their bytes, and a reader sees
 * the old or the new bytes, never a mix. Durable changes (`WriteOptions.durable`, the `sync`
 * argument of the others: the host layer's `fsync` policy) also fsync the temp file before the
 * rename and the parent folder after the change, so what was reported done survives a power
 * loss; without it, only the operating system's own writeback puts them on disk.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fdatasyncSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { VfsError } from './errors.js';
import type { RemoveOptions, WriteOptions, WriteResult } from './layer.js';
import { baseName } from './layer.js';
import type { ConfinedWalk, HeldDir } from './host-walk.js';
import { identityOf, type HostGuard } from './host-hooks.js';
import { hostError, layerSegments, parentSegmentsOf } from './host-names.js';
import { writeHandle } from './host-file-io.js';
import { holdsExactly } from './host-content-check.js';
import { foreignCodeOf } from './coded-error.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
const NEW_FILE = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;
/** link(2) errors that mean "this filesystem has no hard links", not "the name exists". */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);
let tempCounter = 0;
/**
 * The tag in the temp file names of a layer whose owner names none (`HostLayerOptions.tempTag`):
 * chosen at random once per process, so two processes writing one folder do not race for names.
 */
const RANDOM_TEMP_TAG = randomBytes(4).toString('hex');

/**
 * Replaces (or creates) the file at `path` atomically: readers see the old or the new bytes.
 * An existing file keeps its permission bits (0o777; set-id bits are dropped); a new one gets
 * `options.mode` (default 0o644). `exclusive` publishes with `link(2)`, which fails if the name
 * exists meanwhile (on a filesystem without hard links it creates the name itself with O_EXCL).
 * `ifMatch` publishes only if the name still holds those bytes once the new ones are synced
 * (`STALE_CONTENT` otherwise; see vfs/layer.ts `WriteOptions`). Codes: `IS_DIRECTORY`,
 * `NOT_REGULAR_FILE` (FIFO, socket, device at the name), `ALREADY_EXISTS` (exclusive),
 * `STALE_CONTENT` (ifMatch), `NOT_FOUND` / `NOT_DIRECTORY` / `SYMLINK_ESCAPE` (parents), and the
 * guard's `READ_ONLY` / `PROTECTED_PATH`. The temp file is `.gatefs-<tempTag>-<n>.tmp` in the
 * same folder (see `HostLayerOptions.tempTag`).
 */
export function hostWriteFile(
  walk: ConfinedWalk,
  path: string,
  data: Uint8Array,
  options: WriteOptions,
  guard?: HostGuard,
  tempTag = RANDOM_TEMP_TAG,
): WriteResult {
  const op = 'write';
  const segments = layerSegments(path, op);
  if (segments.length === 0) throw new VfsError('IS_DIRECTORY', op, path);
  const name = segments.pop()!;
  const chain = walk.openChain(segments, op, guard);
  const parent = chain[chain.length - 1];
  let temp: string | undefined;
  try {
    walk.seams.beforeStep?.({ op, path });
    const existing = lstatOrUndefined(walk.at(parent, name), op, path);
    if (existing) {
      if (existing.isDirectory()) {
        if (guard) walk.checkGuard(guard, identityOf(existing), op, path);
        throw new VfsError('IS_DIRECTORY', op, path);
      }
      if (options.exclusive) throw new VfsError('ALREADY_EXISTS', op, path);
      if (!existing.isFile() && !existing.isSymbolicLink()) throw new VfsError('NOT_REGULAR_FILE', op, path);
    }
    const ifMatch = options.exclusive ? undefined : options.ifMatch;
    if (ifMatch && (!existing?.isFile() || existing.size !== ifMatch.length)) throw stale(op, path);
    const mode = existing?.isFile() ? existing.mode & 0o777 : (options.mode ?? 0o644) & 0o777;
    walk.seams.afterCheck?.({ op, path });
    const durable = options.durable ?? true;
    temp = createTemp(walk, parent, data, mode, path, durable, tempTag);
    walk.seams.beforeCommit?.({ op, path });
    // Compare-and-swap: the slow part (writing and syncing the new bytes) is done; only now is
    // the name checked to still hold what the caller read, right before it is replaced.
    if (ifMatch && !holdsExactly(walk.at(parent, name), ifMatch)) throw stale(op, path);
    if (options.exclusive) {
      try {
        linkSync(walk.at(parent, temp), walk.at(parent, name));
      } catch (e) {
        if (!NO_HARD_LINKS.has(foreignCodeOf(e) ?? '')) throw e;
        // A filesystem without hard links: create at the name itself with O_EXCL (readers may
        // then see the new file before all its bytes are in).
        writeNew(walk.at(parent, name), data, mode, durable);
      }
    } else {
      renameSync(walk.at(parent, temp), walk.at(parent, name));
      temp = undefined;
    }
    if (durable) syncFolder(parent);
    return { created: !existing };
  } catch (e) {
    throw hostError(e, op, path);
  } finally {
    if (temp !== undefined) {
      try {
        unlinkSync(walk.uncheckedAt(parent, temp));
      } catch {
        /* already gone: nothing to clean */
      }
    }
    walk.release(chain);
  }
}

/**
 * Creates the folder `path` (mode 0o755); `sync` fsyncs the parent afterwards. `ALREADY_EXISTS`
 * (also for a link there), `NOT_FOUND`, guard codes.
 */
export function hostMkdir(walk: ConfinedWalk, path: string, guard?: HostGuard, sync = true): void {
  if (layerSegments(path, 'mkdir').length === 0) throw new VfsError('ALREADY_EXISTS', 'mkdir', path);
  const chain = walk.openChain(parentSegmentsOf(path, 'mkdir'), 'mkdir', guard);
  try {
    walk.seams.beforeCommit?.({ op: 'mkdir', path });
    mkdirSync(walk.at(chain[chain.length - 1], baseName(path)), 0o755);
    if (sync) syncFolder(chain[chain.length - 1]);
  } catch (e) {
    throw hostError(e, 'mkdir', path);
  } finally {
    walk.release(chain);
  }
}

/**
 * Removes a file, a link (never its target) or an empty folder. The root cannot be removed
 * (`READ_ONLY`). `NOT_EMPTY`, `NOT_FOUND`, guard codes (a folder target is shown to the guard).
 * `fileOnly` refuses a folder (`IS_DIRECTORY`). With `ifMatch`, only a regular file holding exactly those bytes just before the unlink
 * (`STALE_CONTENT` otherwise, nothing removed; the compare and the unlink are two calls).
 * `sync` fsyncs the parent afterwards.
 */
export function hostRemove(walk: ConfinedWalk, path: string, guard?: HostGuard, options: RemoveOptions = {}, sync = true): void {
  if (layerSegments(path, 'remove').length === 0) throw new VfsError('READ_ONLY', 'remove', path, 'cannot remove the root of a mount');
  const chain = walk.openChain(parentSegmentsOf(path, 'remove'), 'remove', guard);
  try {
    const parent = chain[chain.length - 1];
    const name = baseName(path);
    walk.seams.beforeStep?.({ op: 'remove', path });
    const st = lstatSync(walk.at(parent, name));
    if (st.isDirectory() && guard) walk.checkGuard(guard, identityOf(st), 'remove', path);
    if (options.fileOnly && st.isDirectory()) throw new VfsError('IS_DIRECTORY', 'remove', path);
    if (options.ifMatch && !st.isFile()) throw staleRemove(path);
    walk.seams.afterCheck?.({ op: 'remove', path });
    walk.seams.beforeCommit?.({ op: 'remove', path });
    if (options.ifMatch && !holdsExactly(walk.at(parent, name), options.ifMatch)) throw staleRemove(path);
    // rmdir(2) refuses a link and unlink(2) never follows one: a swap here changes nothing outside.
    if (st.isDirectory()) rmdirSync(walk.at(parent, name));
    else unlinkSync(walk.at(parent, name));
    if (sync) syncFolder(parent);
  } catch (e) {
    throw hostError(e, 'remove', path);
  } finally {
    walk.release(chain);
  }
}

/**
 * Puts a held folder's entries on stable storage (fsync(2) of its handle). A file system that
 * cannot sync a folder (`EINVAL`, `ENOTSUP`: some network and FUSE ones) is left to its own
 * writeback: the change itself is done, and refusing it now would report a done change failed.
 */
export function syncFolder(dir: HeldDir): void {
  try {
    fsyncSync(dir.fd);
  } catch (e) {
    const code = foreignCodeOf(e);
    if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw e;
  }
}

/** Creates an exclusive temp file `.gatefs-<tag>-<n>.tmp` in `parent`, writes `data` (fsynced when `durable`); returns its name. */
function createTemp(
  walk: ConfinedWalk,
  parent: HeldDir,
  data: Uint8Array,
  mode: number,
  path: string,
  durable: boolean,
  tag: string,
): string {
  for (let attempt = 0; attempt < 16; attempt++) {
    const temp = `.gatefs-${tag}-${++tempCounter}.tmp`;
    try {
      writeNew(walk.at(parent, temp), data, mode, durable);
      return temp;
    } catch (e) {
      if (foreignCodeOf(e) !== 'EEXIST') throw hostError(e, 'write', path);
    }
  }
  throw new VfsError('INTERNAL', 'write', path, 'could not create a temporary file');
}

/** Creates `at` with O_CREAT | O_EXCL | O_NOFOLLOW, sets `mode`, writes (fdatasync when `durable`); removes it on failure. */
function writeNew(at: string, data: Uint8Array, mode: number, durable: boolean): void {
  const fd = openSync(at, NEW_FILE, mode);
  try {
    fchmodSync(fd, mode);
    writeHandle(fd, data);
    if (durable) fdatasyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(at);
    } catch {
      /* never mind: the write failed either way */
    }
    throw e;
  }
  closeSync(fd);
}

function staleRemove(path: string): VfsError {
  return new VfsError('STALE_CONTENT', 'remove', path, 'the file changed after it was read; nothing was removed');
}

function stale(op: string, path: string): VfsError {
  return new VfsError('STALE_CONTENT', op, path, 'the file changed after it was read; nothing was written');
}

function lstatOrUndefined(at: string, op: string, path: string): Stats | undefined {
  try {
    return lstatSync(at);
  } catch (e) {
    if (foreignCodeOf(e) === 'ENOENT') return undefined;
    throw hostError(e, op, path);
  }
}
