/**
 * `readInWorkers`: the host layer's `FolderAccess.readFiles` — several files of a held folder
 * read by the worker pool (vfs/host-read-workers.ts `readBatch`), each answered as the layer's
 * own read through that folder answers it: the bytes, or the same `VfsError` (`SYMLINK_ESCAPE`
 * for a link, `NOT_FOUND`, `IS_DIRECTORY`, `NOT_REGULAR_FILE`, `TOO_LARGE`, `BAD_NAME`, `BUSY` out
 * of descriptors, …) at the entry's layer path; `undefined` for a file that grew while read (the
 * caller reads it on its own). The caller holds the folder's handle until the promise settles
 * (vfs/host-tree-walk.ts).
 *
 * Batching: a message to a worker costs tens of microseconds, about what reading a small file
 * does, so the folders asked for within one turn of the event loop (a walk lists dozens between
 * two yields) travel in one batch, sent once it holds `BATCH_FILES` files or at the next turn.
 * Memory: the pool's slabs; the bytes handed to `each` are a view into one, valid until `each`
 * returns (or its promise settles). A batch's slab is given back once every folder in it has
 * used its bytes.
 */
import { setImmediate } from 'node:timers';
import { VfsError } from './errors.js';
import type { HeldDir } from './host-walk.js';
import type { FileScanned, FolderReadManyOptions } from './layer.js';
import { hostError } from './host-names.js';
import { MAX_READ_BYTES, readBatch, type WorkerRead } from './host-read-workers.js';

/** Files that make a batch go at once. */
const BATCH_FILES = 128;

type Each = (index: number, read: Uint8Array | VfsError | FileScanned | undefined) => void | Promise<void>;

/** One call's files still to read (indexes into its names), and how it ends. */
interface Part {
  readonly base: string;
  readonly names: readonly string[];
  readonly paths: readonly string[];
  readonly maxBytes: number;
  readonly find?: FolderReadManyOptions['find'];
  readonly each: Each;
  todo: number[];
  resolve(): void;
  reject(e: unknown): void;
}

let waiting: Part[] = [];
let waitingFiles = 0;
let flushScheduled = false;

/**
 * Reads `names` (at layer paths `paths`) of the held folder `dir` in the workers, handing each to
 * `each` (see the module comment). A `maxBytes` past `MAX_READ_BYTES` reads nothing (every file
 * answers `undefined`).
 */
export async function readInWorkers(
  dir: HeldDir,
  names: readonly string[],
  paths: readonly string[],
  options: FolderReadManyOptions,
  each: Each,
): Promise<void> {
  const { maxBytes, find } = options;
  if (maxBytes > MAX_READ_BYTES && !find) {
    for (let i = 0; i < names.length; i++) await each(i, undefined);
    return;
  }
  if (names.length === 0) return;
  return new Promise<void>((resolve, reject) => {
    enqueue({ base: dir.base, names, paths, maxBytes, find, each, todo: names.map((_, i) => i), resolve, reject });
  });
}

function enqueue(part: Part): void {
  waiting.push(part);
  waitingFiles += part.todo.length;
  if (waitingFiles >= BATCH_FILES) flush();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

/** Sends the waiting parts as one batch. */
function flush(): void {
  flushScheduled = false;
  if (waiting.length === 0) return;
  const parts = waiting;
  waiting = [];
  waitingFiles = 0;
  const sent = parts.map((p) => ({
    base: p.base,
    names: p.todo.map((i) => p.names[i]),
    maxBytes: p.maxBytes,
    ...(p.find ? { find: p.find.bytes, sniff: p.find.sniffBytes, handOver: p.find.handOver } : {}),
  }));
  readBatch(sent).then(
    async (batch) => {
      // Guard: a batch that read nothing (impossible: the slab holds maxBytes + 1) must not be resent forever.
      const stuck = batch.results.every((rs) => rs.every((r) => 'again' in r));
      const done = await Promise.allSettled(parts.map((p, k) => deliver(p, batch.results[k], batch.slab, stuck)));
      batch.release();
      for (const [k, d] of done.entries()) {
        const part = parts[k];
        if (d.status === 'rejected') part.reject(d.reason);
        else if (part.todo.length > 0) enqueue(part);
        else part.resolve();
      }
    },
    (e: unknown) => {
      for (const p of parts) p.reject(e);
    },
  );
}

/**
 * Hands one part's reads to its `each`, in order; leaves in `todo` the files the slab had no room
 * for (`stuck`: answers them `undefined` instead).
 */
async function deliver(part: Part, results: WorkerRead[], slab: SharedArrayBuffer, stuck: boolean): Promise<void> {
  const again: number[] = [];
  for (const [k, r] of results.entries()) {
    const i = part.todo[k];
    let done: void | Promise<void>;
    if (!('again' in r)) done = part.each(i, answer(r, slab, part.paths[i], part.maxBytes, part.find?.handOver ?? true));
    else if (stuck) done = part.each(i, undefined);
    else {
      again.push(i);
      continue;
    }
    if (done) await done;
  }
  part.todo = again;
}

/** One worker read as the layer answers it. */
function answer(
  r: Exclude<WorkerRead, { again: true }>,
  slab: SharedArrayBuffer,
  path: string,
  maxBytes: number,
  handOver: boolean,
): Uint8Array | VfsError | FileScanned | undefined {
  if ('at' in r) return new Uint8Array(slab, r.at, r.length);
  if ('absent' in r) return { holds: false, nul: r.nul };
  if ('found' in r) return handOver ? undefined : { holds: true, nul: r.nul };
  if ('deferred' in r) return undefined;
  if ('refused' in r) {
    if (r.refused === 'TOO_LARGE') return new VfsError('TOO_LARGE', 'read', path, `the file is larger than the ${maxBytes} bytes allowed`);
    return new VfsError(r.refused, 'read', path);
  }
  return hostError(Object.assign(new Error(r.errno.code ?? 'read failed'), r.errno), 'read', path);
}
