/**
 * Turning the `path`/`paths` of `diff` and `commit` into repository-relative paths: each is
 * resolved in the conversation's namespace (the same grammar and confinement as every file
 * tool) and must lie in the workspace's own checkout, not in another mount (a mount is not part
 * of the branch). The workspace root itself means "everything" (an empty list).
 */
import type { Namespace } from '../vfs/index.js';
import { workspaceRoot } from '../vfs/index.js';
import { ToolFailure } from './result.js';

/**
 * Repository-relative paths for `paths` (workspace-relative or `/worktrees/<id>/…`), in order,
 * duplicates removed; [] when one of them is the workspace root. `writes`: also refuse protected
 * paths (`.git`, authority files, a path in a submodule or a nested repository, which the
 * workspace's git cannot take) as a write would (`PROTECTED_PATH`). Throws the path codes
 * (`PATH_ESCAPE`, `BAD_NAME`, …) and `OUTSIDE_MOUNTS` for a path in another mount.
 */
export async function repositoryPaths(
  namespace: Namespace,
  conversation: string,
  paths: readonly string[],
  tool: string,
  writes: boolean,
): Promise<string[]> {
  const root = workspaceRoot(conversation);
  const out = new Set<string>();
  for (const path of paths) {
    const resolved = namespace.resolve(path, tool);
    if (resolved.mount.path !== root) {
      throw new ToolFailure(
        'OUTSIDE_MOUNTS',
        `'${path}' is in the mount ${resolved.mount.path}, which is not part of your branch: name paths of your workspace`,
        path,
      );
    }
    if (writes) {
      namespace.checkWritable(resolved, tool);
      await namespace.checkOwnRepository(resolved, tool);
    }
    if (resolved.rel === '') return [];
    out.add(resolved.rel);
  }
  return [...out];
}
