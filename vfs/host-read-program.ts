/**
 * The host layer's batch read, run by a pool worker (vfs/worker-pool.ts) beside the event loop:
 * the files of the held folders of a batch (vfs/host-read-workers.ts `BatchPart`) read into the
 * slab the pool lent the task, one after the other.
 *
 * Each file is opened and checked exactly as the host layer's own read does it, with the same
 * functions: `openEntryForReading` (vfs/host-entry.ts: one entry name only, `O_NOFOLLOW |
 * O_NONBLOCK`), `regularFileSize` on the handle, `readHandle` / `streamHandle`
 * (vfs/host-file-io.ts) through that handle, then close. A part's `base` must be a procfs handle
 * path (`/proc/self/fd/<fd>`): the descriptor table is the process's, so the handle names the
 * same folder in this thread, and nothing else is accepted.
 *
 * With bytes to `find`: a file without them answers `absent` and its bytes stay here; a file too
 * large for the slab is streamed in 1 MiB slices and answers `found` or `absent`, never bytes.
 */
import { closeSync } from 'node:fs';
import { isVfsError } from './errors.js';
import { openEntryForReading, regularFileSize } from './host-entry.js';
import { readHandle, streamHandle } from './host-file-io.js';
import type { BatchPart, WorkerRead } from './host-read-workers.js';
import { foreignCodeOf } from './coded-error.js';
import type { ProgramContext } from './worker-program.js';

/** A handle path of the procfs walk: the only folder prefix a worker reads under. */
const PROC_FD_BASE = /^\/proc\/self\/fd\/\d+$/;

/** The task's input: the parts of one batch. */
export interface ReadBatchInput {
  readonly parts: readonly BatchPart[];
}

/** What one part reads with: its limits and, with `find`, the bytes looked for. */
interface PartRead {
  readonly maxBytes: number;
  readonly find?: Buffer;
  readonly sniff: number;
  readonly handOver: boolean;
}

/** Reads every part into the slab (see the module comment): one `WorkerRead` per name of each part. */
export async function run({ parts }: ReadBatchInput, { slab }: ProgramContext): Promise<WorkerRead[][]> {
  if (!slab) throw new Error('a read batch needs a slab');
  let used = 0;
  let full = false;
  const results: WorkerRead[][] = [];
  for (const part of parts) {
    const read: PartRead = {
      maxBytes: part.maxBytes,
      find: part.find ? Buffer.from(part.find.buffer, part.find.byteOffset, part.find.byteLength) : undefined,
      sniff: part.sniff ?? 0,
      handOver: part.handOver ?? false,
    };
    const answers: WorkerRead[] = [];
    for (const name of part.names) {
      const r: WorkerRead = full ? { again: true } : await readEntry(part.base, name, read, slab, used);
      if ('length' in r) used += r.length;
      else if ('again' in r) full = true;
      answers.push(r);
    }
    results.push(answers);
  }
  return results;
}

/** One file of a part, read into `slab` at `used` (or scanned, or refused); its handle closed. */
async function readEntry(base: string, name: string, read: PartRead, slab: Buffer, used: number): Promise<WorkerRead> {
  if (!PROC_FD_BASE.test(base)) throw new Error('a pool worker reads only below a procfs handle path (/proc/self/fd/<fd>)');
  let fd: number;
  try {
    fd = openEntryForReading({ base, rel: '' }, name);
  } catch (e) {
    return failure(e);
  }
  try {
    return await readOpened(fd, read, slab, used);
  } catch (e) {
    return failure(e);
  } finally {
    closeSync(fd);
  }
}

/** The open file `fd` checked and read (see `run`). */
async function readOpened(fd: number, read: PartRead, slab: Buffer, used: number): Promise<WorkerRead> {
  const size = regularFileSize(fd, '');
  if (size > read.maxBytes) return { refused: 'TOO_LARGE' };
  if (size + 1 > slab.length) return read.find ? scan(fd, size, read, read.find) : { refused: 'TOO_LARGE' };
  if (used + size + 1 > slab.length) return { again: true };
  let bytes: Uint8Array;
  try {
    // At most `size` bytes: one more means the file grew while read (the caller reads it alone).
    bytes = await readHandle(fd, size, '', size, slab.subarray(used));
  } catch (e) {
    if (isVfsError(e, 'TOO_LARGE')) return { deferred: true };
    throw e;
  }
  const at = { at: used, length: bytes.byteLength };
  if (!read.find) return at;
  const held = slab.subarray(used, used + bytes.byteLength);
  const nul = held.subarray(0, read.sniff).includes(0);
  if (!held.includes(read.find)) return { absent: true, nul };
  return read.handOver ? at : { found: true, nul };
}

/** A file too large for the slab, streamed for `find` (the last `find.length - 1` bytes of a slice kept for the next). */
async function scan(fd: number, size: number, read: PartRead, find: Buffer): Promise<WorkerRead> {
  const keep = find.length - 1;
  let tail = Buffer.alloc(0);
  let first = true;
  let nul = false;
  let found = false;
  await streamHandle(fd, size, '', read.maxBytes, (chunk) => {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (first) nul = bytes.subarray(0, read.sniff).includes(0);
    first = false;
    const seam = Buffer.concat([tail, bytes.subarray(0, keep)]);
    found = seam.includes(find) || bytes.includes(find);
    // The slice's buffer is reused for the next one: the kept bytes are a copy.
    tail = Buffer.concat([tail, bytes.subarray(Math.max(0, bytes.length - keep))]);
    tail = tail.subarray(Math.max(0, tail.length - keep));
    return !found;
  });
  return found ? { found: true, nul } : { absent: true, nul };
}

/** The refusals a worker read answers by code. */
const REFUSALS = ['BAD_NAME', 'IS_DIRECTORY', 'NOT_REGULAR_FILE', 'TOO_LARGE'] as const;

/** A failed open or read as a `WorkerRead`: a refusal by code, or the system call's errno. */
function failure(e: unknown): WorkerRead {
  const refused = REFUSALS.find((code) => isVfsError(e, code));
  if (refused) return { refused };
  const sys = e instanceof Error ? (e as NodeJS.ErrnoException) : undefined;
  return { errno: { code: foreignCodeOf(e), errno: sys?.errno, syscall: sys?.syscall } };
}
