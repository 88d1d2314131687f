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
 * while being read is read to its end (a short read marks the end, as for any regular file). `TOO_LARGE` (at `path`) once more than `maxBytes` would
 * be returned. Files over `READ_SLICE_BYTES` are read in slices so the event loop keeps turning.
 */
export async function readHandle(fd: number, size: number, path: string, maxBytes = Infinity): Promise<Uint8Array> {
  if (size > maxBytes) throw tooLarge(path, maxBytes);
  // One byte more than announced: a single short read then proves the end of a regular file.
  let buf = Buffer.allocUnsafe(size + 1);
  let filled = 0;
  for (;;) {
    if (filled === buf.length) {
      if (filled > maxBytes) throw tooLarge(path, maxBytes);
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const want = Math.min(buf.length - filled, READ_SLICE_BYTES);
    const n = readSync(fd, buf, filled, want, filled);
    filled += n;
    if (filled > maxBytes) throw tooLarge(path, maxBytes);
    if (n < want) break;
    if (want === READ_SLICE_BYTES) await yieldToLoop();
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, filled);
}

function tooLarge(path: string, maxBytes: number): VfsError {
  return new VfsError('TOO_LARGE', 'read', path, `the file is larger than the ${maxBytes} bytes allowed`);
}

/** Writes all of `data` to `fd` from offset 0 (short writes are continued). */
export function writeHandle(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, done);
}
