/**
 * `worktreeWorkFiles`: the files of a worktree that are work a release must not delete unasked —
 * what `git status --ignored` reports (changed, untracked, ignored; an initialised submodule
 * with changes shows as its folder), and the files inside a submodule folder that has no `.git`
 * of its own (a submodule never checked out, the usual case in a worktree): git reports none of
 * those, and removing the worktree deletes them. Nested repositories (a folder holding `.git`,
 * untracked) are reported by git as their folder.
 */
import type { GitContext } from '../../git/index.js';
import type { HostPlatform } from '../platform/index.js';

/**
 * The work files of the worktree at host path `path` (see the file comment), sorted without
 * repeats; submodule files as `<submodule>/<file>`. Throws what git throws.
 */
export async function worktreeWorkFiles(platform: HostPlatform, path: string, context: GitContext): Promise<string[]> {
  const [dirty, gitlinks] = await Promise.all([
    platform.git.dirtyFiles(path, context, { includeIgnored: true }),
    platform.git.gitlinks(path, context),
  ]);
  const found = new Set(dirty);
  for (const link of gitlinks) {
    // A link or a file on the way is git's to report (a type change); only plain folders are walked.
    const folder = plainFolder(platform, path, link);
    if (folder === undefined) continue;
    if (platform.folderState(platform.join(folder, '.git')) !== 'missing') continue;
    for (const file of platform.listFiles(folder)) found.add(`${link}/${file}`);
  }
  return [...found].sort();
}

/** The host path of `rel` below `root` when every step of it is a folder, not a link; else undefined. */
function plainFolder(platform: HostPlatform, root: string, rel: string): string | undefined {
  let at = root;
  for (const seg of rel.split('/')) {
    at = platform.join(at, seg);
    if (platform.folderState(at) !== 'folder') return undefined;
  }
  return at;
}
