/**
 * Byte I/O through an already opened, already checked handle: `readHandle` and `writeHandle`.
 * Nothing here takes a path, so nothing here can be redirected by a swapped name.
 */
import { read, readSync, writeSync } from 'node:fs';
import { VfsError } from './errors.js';

/**
 * Files up to this size are read in one synchronous read; the rest of a larger one is read in
 * slices of this size in the libuv thread pool, the event loop free meanwhile.
 */
const READ_SLICE_BYTES = 1 << 20;

/**
 * All bytes of the open regular file `fd`, whose `fstat` size was `size`. A file that grows
 * while being read is read to its end (a short read marks the end, as for any regular file).
 * `TOO_LARGE` (at `path`) once more than `maxBytes` would be returned. A file that fits in one
 * slice (`READ_SLICE_BYTES`) is read synchronously and the bytes are returned directly; a larger
 * one is read in slices by the thread pool (the copy out of the page cache runs beside the event
 * loop, so a search reading several large files overlaps their reads with its own work), and a
 * Promise is returned. The caller keeps `fd` open until the bytes (or the Promise) are settled.
 */
export function readHandle(
  fd: number,
  size: number,
  path: string,
  maxBytes = Infinity,
  scratch?: Buffer,
): Uint8Array | Promise<Uint8Array> {
  if (size > maxBytes) throw tooLarge(path, maxBytes);
  // One byte more than announced: a single short read then proves the end of a regular file.
  // `scratch` (when big enough) saves an allocation; the bytes then live in it.
  const state: ReadState = {
    buf: scratch && scratch.length >= size + 1 ? scratch.subarray(0, size + 1) : Buffer.allocUnsafe(size + 1),
    filled: 0,
  };
  return readSlice(fd, state, path, maxBytes) ? bytesOf(state) : readRest(fd, state, path, maxBytes);
}

interface ReadState {
  buf: Buffer;
  filled: number;
}

/** Room for the next slice in `state` (growing its buffer when full); its length. */
function nextSlice(state: ReadState, path: string, maxBytes: number): number {
  if (state.filled === state.buf.length) {
    if (state.filled > maxBytes) throw tooLarge(path, maxBytes);
    const bigger = Buffer.allocUnsafe(Math.min(state.buf.length * 2, maxBytes + 1));
    state.buf.copy(bigger, 0, 0, state.filled);
    state.buf = bigger;
  }
  return Math.min(state.buf.length - state.filled, READ_SLICE_BYTES);
}

/** Counts `n` bytes read of the `want` asked for; true once the end of the file is reached. */
function sliceRead(state: ReadState, n: number, want: number, path: string, maxBytes: number): boolean {
  state.filled += n;
  if (state.filled > maxBytes) throw tooLarge(path, maxBytes);
  return n < want;
}

/** One synchronous read into `state`; true once the end of the file is reached. */
function readSlice(fd: number, state: ReadState, path: string, maxBytes: number): boolean {
  const want = nextSlice(state, path, maxBytes);
  return sliceRead(state, readSync(fd, state.buf, state.filled, want, state.filled), want, path, maxBytes);
}

/** The rest of the file, one slice at a time in the thread pool. */
async function readRest(fd: number, state: ReadState, path: string, maxBytes: number): Promise<Uint8Array> {
  for (;;) {
    const want = nextSlice(state, path, maxBytes);
    const n = await new Promise<number>((resolve, reject) =>
      read(fd, state.buf, state.filled, want, state.filled, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))),
    );
    if (sliceRead(state, n, want, path, maxBytes)) return bytesOf(state);
  }
}

function bytesOf(state: ReadState): Uint8Array {
  return new Uint8Array(state.buf.buffer, state.buf.byteOffset, state.filled);
}

function tooLarge(path: string, maxBytes: number): VfsError {
  return new VfsError('TOO_LARGE', 'read', path, `the file is larger than the ${maxBytes} bytes allowed`);
}

/**
 * Streams the open regular file `fd` (fstat size `size`) to `onChunk`, a slice of at most
 * `READ_SLICE_BYTES` at a time through one reused buffer, each slice read in the thread pool (the
 * event loop free meanwhile: a handoff collecting 1 MiB files never holds other conversations'
 * calls), until the end of the file or until `onChunk` returns false. A short read marks the end,
 * as in `readHandle`; a file of at most one slice gets a buffer one byte longer than announced,
 * so it is read in one read when it did not grow. `TOO_LARGE` (at `path`) when the file is, or
 * grows, past `maxBytes`. Resolves to an empty array (vfs/layer.ts `ReadOptions.onChunk`). The
 * caller keeps `fd` open until it settles.
 */
export async function streamHandle(
  fd: number,
  size: number,
  path: string,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => boolean | undefined,
): Promise<Uint8Array> {
  if (size > maxBytes) throw tooLarge(path, maxBytes);
  const buf = Buffer.allocUnsafe(size <= READ_SLICE_BYTES ? size + 1 : READ_SLICE_BYTES);
  let position = 0;
  for (;;) {
    const at = position;
    const n = await new Promise<number>((resolve, reject) =>
      read(fd, buf, 0, buf.length, at, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))),
    );
    if (n === 0) break;
    position += n;
    if (position > maxBytes) throw tooLarge(path, maxBytes);
    if (onChunk(buf.subarray(0, n)) === false || n < buf.length) break;
  }
  return new Uint8Array(0);
}

/** Writes all of `data` to `fd` from offset 0 (short writes are continued). */
export function writeHandle(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, done);
}
