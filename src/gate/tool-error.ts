/**
 * `toToolError`: what a failed tool call tells the agent. A `VfsError` keeps its code (the VFS
 * speaks the public vocabulary; `NOT_EMPTY`, which no tool should meet, becomes `INTERNAL`), a
 * `ToolFailure` keeps its code, anything else is `INTERNAL` with a fixed message: an
 * unexpected error's text may hold host paths or contents and never leaves the gate.
 */
import { isDescriptorShortage, isVfsError } from '../../vfs/index.js';
import type { Namespace } from '../../vfs/index.js';
import { isToolErrorCode } from '../../tools/index.js';
import { ToolFailure, type ToolError } from '../../tools/index.js';

/** Converts a thrown value into a `ToolError`; paths are shown as the agent writes them. */
export function toToolError(e: unknown, ns?: Namespace): ToolError {
  if (e instanceof ToolFailure) return e.toToolError();
  if (isVfsError(e)) {
    const shown = ns && e.path.startsWith('/') ? ns.display(e.path) : e.path;
    const code = isToolErrorCode(e.code) ? e.code : 'INTERNAL';
    return { code, message: `${e.op} '${shown}': ${e.detail}`, path: shown };
  }
  // Out of descriptors anywhere below (a git reader, a library): retryable, never INTERNAL.
  if (isDescriptorShortage(e)) return { code: 'BUSY', message: 'the host is out of file descriptors; retry shortly' };
  return { code: 'INTERNAL', message: 'internal error in gatefs; the call was recorded in the run log' };
}
