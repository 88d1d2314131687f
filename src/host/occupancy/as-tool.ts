/**
 * `asTool`: runs a host operation a tool called (a snapshot, a restore, a handoff) and turns a
 * `WorkspaceError` whose code is a tool code into a `ToolFailure` of the same code, its data as
 * details without the internal `reason` (its message names no host path). Anything else is
 * rethrown as it is.
 */
import { isToolErrorCode, ToolFailure } from '../../../tools/index.js';
import { isWorkspaceError } from '../../workspace-error.js';

/** See the file comment. */
export async function asTool<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (isWorkspaceError(e) && isToolErrorCode(e.code)) {
      const { reason: _r, ...details } = e.data as Record<string, unknown>;
      throw new ToolFailure(e.code, e.message, undefined, details);
    }
    throw e;
  }
}
