/**
 * `hostReadWorkers`: the process's few worker threads that read the files of a folder a host
 * walk holds, beside the event loop, so a search over a big tree uses every core for its file
 * reads (open, fstat, read, close are most of a grep's time) while the walk goes on.
 *
 * Each read is the host layer's read through a held folder (vfs/host-layer.ts `openFileIn` and
 * `readOpened`), done in another thread: open `/proc/self/fd/<folder>/<name>` with `O_RDONLY |
 * O_NOFOLLOW | O_NONBLOCK` (a link fails the open, a FIFO never blocks), `fstat` the handle,
 * regular files only, at most `maxBytes`, every byte read through that handle, then close it.
 * Only under the procfs guarantee (the descriptor table is the process's, so the folder's handle
 * names the same folder in every thread); the caller keeps that handle open until the batch
 * settles (vfs/host-walk.ts `holdDir`). Nothing here takes a path from outside the layer.
 *
 * A batch holds the files of one or more folders, read in order into a slab of memory shared with
 * the worker until the next one does not fit (the rest answer `again`, to be sent in a later
 * batch): no buffer is allocated or moved per file, and a batch holds a bounded amount of memory.
 * With bytes to `find`, a file without them is answered `absent` (and whether a NUL came in its
 * first `sniff` bytes) and never handed over, one with them `found` unless `handOver`, and a file
 * too large for a slab is scanned in 1 MiB chunks: a literal search's bytes stay in the worker.
 * Messages cost tens of microseconds each, so small folders travel together. Batches wait in one
 * FIFO queue for a free worker; at most `size` workers exist, started on demand, and an idle
 * worker never keeps the process alive. A worker that fails rejects its batch (the caller
 * answers `INTERNAL`) and is replaced on demand.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

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
  | { readonly refused: 'IS_DIRECTORY' | 'NOT_REGULAR_FILE' | 'TOO_LARGE' }
  | { readonly again: true }
  | { readonly deferred: true };

/** Bytes of one slab: a batch reads files into one, and a file of up to `MAX_READ_BYTES` always fits. */
export const SLAB_BYTES = 2 * 1024 * 1024;
/** The largest `maxBytes` a batch takes (without `find`; with it, larger files are scanned in place). */
export const MAX_READ_BYTES = SLAB_BYTES - 1;
/** The chunk a worker scans a large file in. */
const SCAN_BYTES = 1024 * 1024;
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const slabs = workerData.slabs.map((s) => Buffer.from(s));
const scratch = Buffer.allocUnsafe(${SCAN_BYTES});
const errnoOf = (e) => ({ errno: { code: e.code, errno: e.errno, syscall: e.syscall } });
/** Reads the open regular file fd (size bytes announced) into slab at used; one byte more proves the end. */
function intoSlab(fd, size, slab, used) {
  let filled = 0;
  for (;;) {
    const n = fs.readSync(fd, slab, used + filled, size + 1 - filled, filled);
    filled += n;
    if (n === 0 || filled === size + 1) break;
  }
  return filled > size ? { deferred: true } : { at: used, length: filled };
}
/** Scans the open file fd for find in chunks (find.length - 1 bytes kept across chunks), up to maxBytes. */
function scan(fd, find, sniff, maxBytes) {
  let pos = 0;
  let kept = 0;
  let nul = false;
  for (;;) {
    const n = fs.readSync(fd, scratch, kept, scratch.length - kept, pos);
    if (pos === 0) nul = scratch.subarray(0, Math.min(n, sniff)).indexOf(0) !== -1;
    pos += n;
    if (pos > maxBytes) return { refused: 'TOO_LARGE' };
    const chunk = scratch.subarray(0, kept + n);
    if (chunk.indexOf(find) !== -1) return { found: true, nul };
    if (n === 0) return { absent: true, nul };
    kept = Math.min(find.length - 1, chunk.length);
    chunk.copy(scratch, 0, chunk.length - kept);
  }
}
function readOne(base, name, maxBytes, slab, used, find, sniff, handOver) {
  let fd;
  try {
    fd = fs.openSync(base + '/' + name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    return errnoOf(e);
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) return { refused: 'IS_DIRECTORY' };
    if (!st.isFile()) return { refused: 'NOT_REGULAR_FILE' };
    if (st.size > maxBytes) return { refused: 'TOO_LARGE' };
    if (st.size + 1 > slab.length) return find ? scan(fd, find, sniff, maxBytes) : { refused: 'TOO_LARGE' };
    if (used + st.size + 1 > slab.length) return { again: true };
    const r = intoSlab(fd, st.size, slab, used);
    if (!find || r.at === undefined) return r;
    const bytes = slab.subarray(r.at, r.at + r.length);
    const nul = bytes.subarray(0, sniff).indexOf(0) !== -1;
    if (bytes.indexOf(find) === -1) return { absent: true, nul };
    return handOver ? r : { found: true, nul };
  } catch (e) {
    return errnoOf(e);
  } finally {
    try { fs.closeSync(fd); } catch {}
  }
}
parentPort.on('message', ({ id, parts, slab }) => {
  const bytes = slabs[slab];
  let used = 0;
  let full = false;
  const results = parts.map(({ base, names, maxBytes, find, sniff, handOver }) => {
    const needle = find ? Buffer.from(find.buffer, find.byteOffset, find.byteLength) : undefined;
    return names.map((name) => {
      if (full) return { again: true };
      const r = readOne(base, name, maxBytes, bytes, used, needle, sniff, handOver);
      if (r.length !== undefined) used += r.length;
      else if (r.again) full = true;
      return r;
    });
  });
  parentPort.postMessage({ id, results });
});`;

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

interface Job {
  readonly parts: readonly BatchPart[];
  resolve(batch: WorkerBatch): void;
  reject(e: unknown): void;
}

interface Slot {
  readonly worker: Worker;
  /** The worker's slabs, shared with it once at its start (posting a slab per message costs ~0.1 ms). */
  readonly slabs: SharedArrayBuffer[];
  /** Indexes of the slabs no batch holds. */
  readonly free: number[];
  current?: { id: number; job: Job; slab: number };
  retired?: boolean;
}

/** Slabs per worker: one being filled, the others being read by their callers. */
const SLABS_PER_WORKER = 3;

/** A bounded set of read workers with one FIFO queue of batches (see the module comment). */
export class HostReadWorkers {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;

  /** `size`: most workers alive at once (at least 1). */
  constructor(readonly size: number) {}

  /**
   * Reads the files of `parts` (each a folder whose handle's procfs path is `base`) into a slab,
   * one after the other, until the next one does not fit (see the module comment): one
   * `WorkerRead` per name, in order. A `maxBytes` past `MAX_READ_BYTES` is cut to it unless the
   * part has `find`. The caller
   * holds the folders' handles until this settles, and releases the batch once it has used the
   * bytes.
   */
  read(parts: readonly BatchPart[]): Promise<WorkerBatch> {
    // A message copies the whole buffer under a view: `find` travels as bytes of its own
    // (a Buffer's few bytes usually lie in an 8 KiB pool, or in a far larger buffer).
    const own = new Map<Uint8Array, Uint8Array>();
    const alone = (b: Uint8Array) => {
      if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength) return b;
      let copy = own.get(b);
      if (!copy) own.set(b, (copy = new Uint8Array(b)));
      return copy;
    };
    return new Promise((resolve, reject) => {
      this.queue.push({
        parts: parts.map((p) => (p.find ? { ...p, find: alone(p.find) } : { ...p, maxBytes: Math.min(p.maxBytes, MAX_READ_BYTES) })),
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Workers alive now (for tests). */
  get workers(): number {
    return this.slots.length;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.current && s.free.length > 0);
      if (!slot && this.slots.length < Math.max(1, this.size)) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      const id = ++this.nextId;
      const slab = slot.free.pop()!;
      slot.current = { id, job, slab };
      slot.worker.ref(); // a batch in a worker keeps the process alive, an idle worker does not
      slot.worker.postMessage({ id, parts: job.parts, slab });
    }
  }

  private spawn(): Slot {
    const slabs = Array.from({ length: SLABS_PER_WORKER }, () => new SharedArrayBuffer(SLAB_BYTES));
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { slabs } });
    const slot: Slot = { worker, slabs, free: slabs.map((_, i) => i) };
    worker.on('message', (msg: { id: number; results: WorkerRead[][] }) => {
      const current = slot.current;
      if (!current || msg.id !== current.id) return;
      slot.current = undefined;
      worker.unref();
      let released = false;
      current.job.resolve({
        results: msg.results,
        slab: slabs[current.slab],
        release: () => {
          if (released) return;
          released = true;
          slot.free.push(current.slab);
          this.dispatch();
        },
      });
      this.dispatch();
    });
    worker.on('error', (e) => this.retire(slot, new Error(`read worker failed: ${e.message}`)));
    worker.on('exit', () => this.retire(slot, new Error('read worker stopped')));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** Ends a failed slot: its batch rejects with `e`, the worker is terminated. */
  private retire(slot: Slot, e: Error): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    const current = slot.current;
    slot.current = undefined;
    current?.job.reject(e);
    void slot.worker.terminate();
    this.dispatch();
  }
}

/** The process's read workers: as many as cores, between 1 and 4. */
export const hostReadWorkers = new HostReadWorkers(Math.max(1, Math.min(4, availableParallelism())));
