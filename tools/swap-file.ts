/**
 * `swapFile`: a read-modify-write of one file as a compare-and-swap — the shared step of `edit`
 * and of `write` with an `expectedSha256` string.
 *
 * It reads the file, lets the tool decide the new bytes from exactly those bytes, and writes
 * them with `ifMatch` (vfs/layer.ts): the layer publishes them only if the file still holds what
 * was read. The gate already holds the file's in-process lock and, on the disk host, its
 * cross-process lock, so no gatefs writer of this state directory can come between; what the
 * check catches is everything else — a plain `write` from another gatefs process, an editor,
 * git, another gatefs install with its own state directory. Then the whole step runs again on
 * the new bytes (the tool's own checks, `expectedSha256` included, see them), up to
 * `SWAP_ATTEMPTS` times, after which the answer is `BUSY` with nothing changed.
 *
 * Limit: the final compare and the rename are two system calls; a writer outside gatefs's locks
 * that replaces the file in between (microseconds) is overwritten. Nothing short of a kernel
 * compare-and-swap on a name closes that; `expectedSha256` and this check narrow it.
 */
import { isVfsError } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import type { Namespace } from '../vfs/index.js';
import { ToolFailure } from './result.js';

/** How many times the read-decide-write step runs before answering `BUSY`. */
export const SWAP_ATTEMPTS = 5;

/** What the tool decides from the bytes it read: the new bytes, and the value to return. */
interface SwapChange<T> {
  data: Uint8Array;
  value: T;
}

/**
 * Runs `read`, then `change` on its bytes (which may throw the tool's refusals), then writes
 * `data` if the file still holds those bytes; repeats on a change in between. Result: the
 * `value` of the attempt that was written. Codes: whatever `read`, `change` and the layer throw;
 * `BUSY` after `SWAP_ATTEMPTS` attempts each overtaken by another writer.
 */
export async function swapFile<T>(
  ns: Namespace,
  target: Resolved,
  shown: string,
  read: () => Promise<Uint8Array>,
  change: (current: Uint8Array) => SwapChange<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const current = await read();
    const { data, value } = change(current);
    try {
      await ns.writeFile(target, data, { ifMatch: current });
      return value;
    } catch (e) {
      if (!isVfsError(e, 'STALE_CONTENT')) throw e;
      if (attempt >= SWAP_ATTEMPTS) {
        throw new ToolFailure(
          'BUSY',
          `'${shown}' changed under every one of ${attempt} attempts to write it (another program keeps writing it); nothing was changed: retry`,
          shown,
        );
      }
    }
  }
}
