/**
 * `readBatch`: the files of folders a host walk holds, read beside the event loop by the
 * process's worker pool (vfs/worker-pool.ts), so a search over a big tree uses every core for
 * its file reads (open, fstat, read, close are most of a grep's time) while the walk goes on.
 *
 * Each read is the host layer's own read through a held folder, done in another thread by the
 * read program (vfs/host-read-program.ts) with the same functions (vfs/host-entry.ts
 * `openEntryForReading`, `regularFileSize`; vfs/host-file-io.ts): open
 * `/proc/self/fd/<folder>/<name>` with `O_RDONLY | O_NOFOLLOW | O_NONBLOCK` (a link fails the
 * open, a FIFO never blocks, a name that is not one entry name is `BAD_NAME`), `fstat` the
 * handle, regular files only, at most `maxBytes`, every byte read through that handle, then close
 * it. Only under the procfs guarantee (the descriptor table is the process's, so the folder's
 * handle names the same folder in every thread); the caller keeps that handle open until the
 * batch settles (vfs/host-walk.ts `holdDir`). Nothing here takes a path from outside the layer.
 *
 * A batch holds the files of one or more folders, read in order into one of the pool's slabs
 * (memory shared with every worker) until the next one does not fit (the rest answer `again`, to
 * be sent in a later batch): no buffer is allocated or moved per file, and a batch holds a
 * bounded amount of memory. With bytes to `find`, a file without them is answered `absent` (and
 * whether a NUL came in its first `sniff` bytes) and never handed over, one with them `found`
 * unless `handOver`, and a file too large for a slab is scanned in 1 MiB slices: a literal
 * search's bytes stay in the worker. Messages cost tens of microseconds each, so small folders
 * travel together. Batches wait in the pool's common line, FIFO, for a free worker and a free slab.
 */
import type { ReadBatchInput } from './host-read-program.js';
import { SLAB_BYTES, workerPool, type WorkerPool } from './worker-pool.js';

/**
 * What one file of a batch gave: where its bytes lie in the batch's slab, an errno from the open
 * or a read, a refusal, `again` (no room left in the slab: send it in the next batch) or
 * `deferred` (it grew while read: the caller reads it on its own). With `find`: `absent` (the
 * file does not hold those bytes; `nul` when a NUL lies in its first `sniff` bytes), or, for a
 * file too large for a slab that holds them, `found` (the caller reads it on its own).
 */
export type WorkerRead =
  | { readonly at: number; readonly length: number }
  | { readonly absent: true; readonly nul: boolean }
  | { readonly found: true; readonly nul: boolean }
  | { readonly errno: { readonly code?: string; readonly errno?: number; readonly syscall?: string } }
  | { readonly refused: 'BAD_NAME' | 'IS_DIRECTORY' | 'NOT_REGULAR_FILE' | 'TOO_LARGE' }
  | { readonly again: true }
  | { readonly deferred: true };

/** The largest `maxBytes` a batch takes: a file up to it fits a slab (with `find`, larger files are scanned in place). */
export const MAX_READ_BYTES = SLAB_BYTES - 1;
/** The read program run by the pool's workers. */
const READ_PROGRAM = new URL('./host-read-program.js', import.meta.url);

/**
 * One folder's part of a batch: its handle's procfs path, the names to read, the most bytes a
 * file may have, and optionally bytes to `find` (then only files holding them come back as
 * bytes; larger files are scanned, up to `maxBytes`, and never come back).
 */
export interface BatchPart {
  readonly base: string;
  readonly names: readonly string[];
  readonly maxBytes: number;
  readonly find?: Uint8Array;
  /** With `find`: the leading bytes checked for a NUL. */
  readonly sniff?: number;
  /** With `find`: hand over the bytes of a file (fitting a slab) that holds them; else answer `found`. */
  readonly handOver?: boolean;
}

/** The answer of one batch: a read per name of each part, and the slab they lie in, to `release` once used. */
export interface WorkerBatch {
  readonly results: WorkerRead[][];
  readonly slab: SharedArrayBuffer;
  /** Gives the slab back (the views into it must not be used afterwards). Calling it again does nothing. */
  release(): void;
}

/**
 * Reads the files of `parts` (each a folder whose handle's procfs path is `base`) into a slab of
 * `pool`, one after the other, until the next one does not fit (see the module comment): one
 * `WorkerRead` per name, in order. A `maxBytes` past `MAX_READ_BYTES` is cut to it unless the
 * part has `find`. The caller holds the folders' handles until this settles, and releases the
 * batch once it has used the bytes. Rejects when the worker failed (the caller answers
 * `INTERNAL`).
 */
export async function readBatch(parts: readonly BatchPart[], pool: WorkerPool = workerPool): Promise<WorkerBatch> {
  // A message copies the whole buffer under a view: `find` travels as bytes of its own
  // (a Buffer's few bytes usually lie in an 8 KiB pool, or in a far larger buffer).
  const own = new Map<Uint8Array, Uint8Array>();
  const alone = (b: Uint8Array) => {
    if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength) return b;
    let copy = own.get(b);
    if (!copy) own.set(b, (copy = new Uint8Array(b)));
    return copy;
  };
  const sent = parts.map((p) => (p.find ? { ...p, find: alone(p.find) } : { ...p, maxBytes: Math.min(p.maxBytes, MAX_READ_BYTES) }));
  const input: ReadBatchInput = { parts: sent };
  const { value, slab, release } = await pool.submit<WorkerRead[][]>({ program: READ_PROGRAM, input, slab: true }).done;
  return { results: value, slab: slab!, release };
}
