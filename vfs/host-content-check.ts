/**
 * `holdsExactly`: the compare step of a host compare-and-swap write (`WriteOptions.ifMatch`).
 * It opens the name the way a read does (`O_NOFOLLOW | O_NONBLOCK`, regular files only, all
 * I/O through the handle) and compares its bytes with what the caller read, synchronously, so
 * nothing of this process runs between the compare and the caller's rename.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { foreignCodeOf } from './coded-error.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
const CHUNK = 64 * 1024;
/** Answers that mean "not the file that was read" rather than a failure. */
const GONE = new Set(['ENOENT', 'ELOOP', 'ENXIO', 'EISDIR', 'ENOTDIR']);

/**
 * True when the host path `at` (formed from a held folder handle) names a regular file holding
 * exactly `expected`; false when it is missing, a link, a special file, or holds other bytes.
 * Throws the Node error for anything else (EMFILE, EIO…), for the caller's `hostError`.
 */
export function holdsExactly(at: string, expected: Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync(at, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    if (GONE.has(foreignCodeOf(e) ?? '')) return false;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== expected.length) return false;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, expected.length + 1));
    let offset = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, offset);
      if (n === 0) return offset === expected.length;
      if (offset + n > expected.length) return false;
      if (Buffer.compare(buf.subarray(0, n), expected.subarray(offset, offset + n)) !== 0) return false;
      offset += n;
    }
  } finally {
    closeSync(fd);
  }
}
