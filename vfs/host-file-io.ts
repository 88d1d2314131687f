/**
 * Byte I/O through an already opened, already checked handle: `readHandle` and `writeHandle`.
 * Nothing here takes a path, so nothing here can be redirected by a swapped name.
 */
import { readSync, writeSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { VfsError } from './errors.js';

/** Reads larger than this are done in slices of this size, yielding to the event loop between. */
export const READ_SLICE_BYTES = 1 << 20;

/**
 * All bytes of the open regular file `fd`, whose `fstat` size was `size`. A file that grows
 * while being read is read to its end (a short read marks the end, as for any regular file).
 * `TOO_LARGE` (at `path`) once more than `maxBytes` would be returned. A file that fits in one
 * slice (`READ_SLICE_BYTES`) is read synchronously and the bytes are returned directly; a larger
 * one is read in slices, yielding to the event loop between them, and a Promise is returned.
 * The caller keeps `fd` open until the bytes (or the Promise) are settled.
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
  const state = { buf: scratch && scratch.length >= size + 1 ? scratch.subarray(0, size + 1) : Buffer.allocUnsafe(size + 1), filled: 0 };
  return readSlice(fd, state, path, maxBytes) ? bytesOf(state) : readRest(fd, state, path, maxBytes);
}

/** One read into `state`, growing its buffer as needed; true once the end of the file is reached. */
function readSlice(fd: number, state: { buf: Buffer; filled: number }, path: string, maxBytes: number): boolean {
  if (state.filled === state.buf.length) {
    if (state.filled > maxBytes) throw tooLarge(path, maxBytes);
    const bigger = Buffer.allocUnsafe(Math.min(state.buf.length * 2, maxBytes + 1));
    state.buf.copy(bigger, 0, 0, state.filled);
    state.buf = bigger;
  }
  const want = Math.min(state.buf.length - state.filled, READ_SLICE_BYTES);
  const n = readSync(fd, state.buf, state.filled, want, state.filled);
  state.filled += n;
  if (state.filled > maxBytes) throw tooLarge(path, maxBytes);
  return n < want;
}

async function readRest(fd: number, state: { buf: Buffer; filled: number }, path: string, maxBytes: number): Promise<Uint8Array> {
  do await yieldToLoop();
  while (!readSlice(fd, state, path, maxBytes));
  return bytesOf(state);
}

function bytesOf(state: { buf: Buffer; filled: number }): Uint8Array {
  return new Uint8Array(state.buf.buffer, state.buf.byteOffset, state.filled);
}

function tooLarge(path: string, maxBytes: number): VfsError {
  return new VfsError('TOO_LARGE', 'read', path, `the file is larger than the ${maxBytes} bytes allowed`);
}

/**
 * Streams the open regular file `fd` (fstat size `size`) to `onChunk`, a slice of at most
 * `READ_SLICE_BYTES` at a time through one reused buffer, yielding to the event loop between
 * slices, until the end of the file or until `onChunk` returns false. `TOO_LARGE` (at `path`)
 * when the file is, or grows, past `maxBytes`. Resolves to an empty array (vfs/layer.ts
 * `ReadOptions.onChunk`). The caller keeps `fd` open until it settles.
 */
export async function streamHandle(
  fd: number,
  size: number,
  path: string,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => boolean | undefined,
): Promise<Uint8Array> {
  if (size > maxBytes) throw tooLarge(path, maxBytes);
  const buf = Buffer.allocUnsafe(Math.min(READ_SLICE_BYTES, Math.max(size, 1)));
  let position = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, position);
    if (n === 0) break;
    position += n;
    if (position > maxBytes) throw tooLarge(path, maxBytes);
    if (onChunk(buf.subarray(0, n)) === false) break;
    await yieldToLoop();
  }
  return new Uint8Array(0);
}

/** Writes all of `data` to `fd` from offset 0 (short writes are continued). */
export function writeHandle(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, done);
}
