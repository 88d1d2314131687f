/**
 * `collectArtifacts`: a handoff's declared files taken from the emitting workspace into the
 * artifact store, each all or nothing, each answered by a record in declared order
 * (`artifact_collected` with its sha256 and size, or `artifact_rejected` with a code of
 * `ARTIFACT_REJECTION_DOCS` and the reason).
 *
 * A file is reached through the conversation's own namespace — the confined walk every tool uses
 * — and never through a link: the path is resolved lexically (no link followed), must land in
 * the workspace root's own mount, is looked at without following its last component, and its
 * bytes are read through the layer, which refuses a link anywhere on the way
 * (`SYMLINK_ESCAPE`). Its size is checked against `max_file_bytes` before the read, by the read
 * (`maxBytes`) and after it, so a file growing meanwhile is `TOO_LARGE`, never cut. Bytes go
 * straight from the layer to the store a slice at a time, read once (host layers stream: a slice
 * is read in the thread pool, hashed between turns of the event loop and written in the thread
 * pool), so other conversations' calls run meanwhile.
 *
 * The objects are committed (written, fsynced, named) here, several at once; the caller flushes
 * the store before any record names them. Nothing here records anything.
 */
import { isVfsError, type Namespace, type Resolved } from '../../../vfs/index.js';
import type { ArtifactStore, ObjectWriter } from '../../ports/index.js';
import type { ArtifactRecord } from '../../state/index.js';
import { type ArtifactRejectionCode, isArtifactRejectionCode } from './rejection-codes.js';

/** What a role allows a handoff to carry (`artifacts:` of the manifest). */
export interface CollectionLimits {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
}

/** The records of a collection, in declared order, and the objects of the collected ones. */
export interface Collection {
  records: ArtifactRecord[];
  /** Each collected file's workspace-relative path and object. */
  files: { path: string; sha256: string }[];
}

/** How many declared files are collected at once. */
const FILES_AT_ONCE = 4;

/**
 * Collects `declared` from `namespace` into `store` (see the file comment). `isolated` false (a
 * `shared` role) rejects every file `NOT_ISOLATED` and reads nothing. Throws only what the store
 * throws (a full disk, …); every problem of a file is its record.
 */
export async function collectArtifacts(
  namespace: Namespace,
  store: ArtifactStore,
  declared: readonly string[],
  limits: CollectionLimits,
  isolated: boolean,
): Promise<Collection> {
  const records: ArtifactRecord[] = [];
  const seen = new Set<string>();
  const wanted: { index: number; path: string; resolved: Resolved | null }[] = [];
  for (const [index, path] of declared.entries()) {
    const resolved = resolveQuietly(namespace, path);
    const shown = resolved ? namespace.display(resolved.path) : clip(path);
    const key = resolved ? resolved.path : `\0${path}`;
    const earlier = seen.has(key);
    seen.add(key);
    if (!isolated)
      records[index] = rejected(shown, 'NOT_ISOLATED', "a shared role's workspace is the user's checkout: nothing is collected");
    else if (index >= limits.maxFiles)
      records[index] = rejected(shown, 'TOO_MANY_FILES', `the role hands over at most ${limits.maxFiles} files (artifacts.max_files)`);
    else if (earlier) records[index] = rejected(shown, 'DUPLICATE', 'declared earlier in this handoff');
    else wanted.push({ index, path, resolved });
  }
  // A few files at once: one's slices are read in the thread pool while another's are hashed and
  // written there. Then every object is committed at once: their fsyncs share journal commits, and
  // no fsync runs while files are still being created (a create waits for a running commit).
  let next = 0;
  const failures: unknown[] = [];
  const read: (Pending & { index: number })[] = [];
  const worker = async () => {
    while (next < wanted.length && failures.length === 0) {
      const { index, path, resolved } = wanted[next++]!;
      try {
        const outcome = await collectOne(namespace, store, path, resolved, limits.maxFileBytes);
        if ('writer' in outcome) read.push({ ...outcome, index });
        else records[index] = outcome;
      } catch (e) {
        failures.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILES_AT_ONCE, wanted.length) }, worker));
  if (failures.length > 0) {
    await Promise.all(read.map((r) => r.writer.abort()));
    throw failures[0];
  }
  const commits = read.map(async ({ index, path, writer }) => {
    const stored = await writer.commit();
    records[index] = { record: 'artifact_collected', path, sha256: stored.sha256, bytes: stored.bytes };
  });
  const settled = await Promise.allSettled(commits);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const files = records.flatMap((r) => (r.record === 'artifact_collected' ? [{ path: r.path, sha256: r.sha256 }] : []));
  return { records, files };
}

/** A file read into a writer (its writes perhaps still under way), waiting for its commit. */
interface Pending {
  path: string;
  writer: ObjectWriter;
}

/** One declared file: read into an uncommitted object, or rejected. */
async function collectOne(
  namespace: Namespace,
  store: ArtifactStore,
  declared: string,
  resolved: Resolved | null,
  maxBytes: number,
): Promise<ArtifactRecord | Pending> {
  if (!resolved) return rejectedByPath(namespace, declared);
  const shown = namespace.display(resolved.path);
  if (resolved.mount.path !== namespace.root) {
    const what = resolved.mount.writable ? 'a writable mount' : 'a read-only mount';
    return rejected(
      shown,
      'OUTSIDE_WORKSPACE',
      `the path is in ${what}, not in the workspace: only the workspace's own files are collected`,
    );
  }
  if (resolved.rel === '') return rejected(shown, 'NOT_REGULAR_FILE', 'the workspace root is a folder');
  let size: number;
  try {
    const stat = await namespace.stat(resolved);
    if (stat.type === 'symlink') return rejected(shown, 'SYMLINK', 'the file is a symbolic link, which is never followed');
    if (stat.type !== 'file')
      return rejected(shown, 'NOT_REGULAR_FILE', `the path is ${stat.type === 'directory' ? 'a folder' : 'a special file'}`);
    size = stat.size;
  } catch (e) {
    return rejectedByError(shown, e);
  }
  if (size > maxBytes) return tooLarge(shown, size, maxBytes);
  const writer = store.begin();
  try {
    const rest = await namespace.readFile(resolved, {
      maxBytes,
      onChunk: (chunk) => {
        writer.write(chunk);
        return true;
      },
    });
    if (rest.length > 0) writer.write(rest);
  } catch (e) {
    await writer.abort();
    if (isVfsError(e, 'TOO_LARGE')) return tooLarge(shown, maxBytes + 1, maxBytes);
    return rejectedByError(shown, e);
  }
  if (writer.bytes > maxBytes) {
    await writer.abort();
    return tooLarge(shown, writer.bytes, maxBytes);
  }
  return { path: resolved.rel, writer };
}

/** The path resolved lexically (no link followed), or null when the namespace refuses it. */
function resolveQuietly(namespace: Namespace, path: string): Resolved | null {
  try {
    return namespace.resolve(path, 'handoff');
  } catch {
    return null;
  }
}

/** The record of a path the namespace refuses: its own code, `OUTSIDE_WORKSPACE` for one outside every mount. */
function rejectedByPath(namespace: Namespace, path: string): ArtifactRecord {
  try {
    namespace.resolve(path, 'handoff');
  } catch (e) {
    return rejectedByError(clip(path), e);
  }
  return rejected(clip(path), 'NOT_FOUND', 'the path names nothing');
}

/** The record of a file the layer refused: its code when documented, else `NOT_FOUND` (say `NOT_DIRECTORY`) or a thrown error. */
function rejectedByError(path: string, e: unknown): ArtifactRecord {
  if (!isVfsError(e)) throw e;
  const code = e.code === 'OUTSIDE_MOUNTS' ? 'OUTSIDE_WORKSPACE' : e.code;
  if (code === 'BUSY' || code === 'INTERNAL') throw e;
  if (code === 'IS_DIRECTORY') return rejected(path, 'NOT_REGULAR_FILE', 'the path is a folder');
  if (isArtifactRejectionCode(code)) return rejected(path, code, reasonOf(code));
  return rejected(path, 'NOT_FOUND', `the file cannot be reached (${e.code})`);
}

function reasonOf(code: ArtifactRejectionCode): string {
  switch (code) {
    case 'OUTSIDE_WORKSPACE':
      return 'the path is outside the workspace and every mount';
    case 'PATH_ESCAPE':
      return "a '..' climbs out of the namespace";
    case 'SYMLINK_ESCAPE':
      return 'a folder on the way is a symbolic link, which is never followed';
    case 'NOT_DISCLOSED':
      return 'the file was never disclosed to this role';
    case 'NOT_REGULAR_FILE':
      return 'the path is a special file (FIFO, socket, device)';
    case 'NOT_FOUND':
      return 'no such file in the workspace';
    default:
      return 'the path is not allowed';
  }
}

function tooLarge(path: string, size: number, maxBytes: number): ArtifactRecord {
  const what = size > maxBytes + 1 ? `${size} bytes` : 'larger than that';
  return rejected(path, 'TOO_LARGE', `the file is ${what}; the role takes files of at most ${maxBytes} bytes (artifacts.max_file_bytes)`);
}

function rejected(path: string, code: ArtifactRejectionCode, reason: string): ArtifactRecord {
  return { record: 'artifact_rejected', path, code, reason };
}

/** A declared string as a record may hold it: at most 300 characters, control characters shown as '?'. */
function clip(path: string): string {
  const text = String(path).replace(/[\u0000-\u001f\u007f]/g, '?');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
