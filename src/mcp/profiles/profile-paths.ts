/**
 * `PathView`: how the `claude-code` profile shows paths. Claude Code's tools take and give
 * absolute paths, so every path in this profile's results is an absolute namespace path
 * (`/worktrees/<id>/src/a.ts`; a mount's paths are absolute already): the model passes it back
 * as `file_path` unchanged. The gate shows paths inside the workspace relative to its root.
 */
import { workspaceRoot } from '../../../vfs/index.js';

/** The workspace root of one conversation and the absolute form of the gate's paths. */
export interface PathView {
  /** `/worktrees/<conversation>`. */
  readonly root: string;
  /** The absolute namespace path of a path as the gate shows it ('.', 'src/a.ts', '/data/out/x'). */
  absolute(shown: string): string;
}

/** The `PathView` of `conversation` (a valid conversation id). */
export function pathView(conversation: string): PathView {
  const root = workspaceRoot(conversation);
  return {
    root,
    absolute: (shown) => (shown === '.' || shown === '' ? root : shown.startsWith('/') ? shown : `${root}/${shown}`),
  };
}
