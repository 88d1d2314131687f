/**
 * The sparse-checkout half of `MemoryGit`'s worktree emulation, laid out as git lays it out:
 * the patterns live in `<worktree git dir>/info/sparse-checkout` (one exact-path pattern per
 * line, see `sparse-pattern.ts`), only the listed files exist in the working folder, and a
 * tracked file outside the list that is absent from the folder is skip-worktree: `git status`
 * does not report it. A file present on disk is compared as usual, as git 2.37+ does.
 */
import type { Volume } from 'memfs';
import type { GitObjectReader, TreeEntry } from '../../vfs/index.js';
import { removeEntry } from './memory-worktree.js';
import { pathOfSparsePattern, sparseCheckoutFile } from './sparse-pattern.js';

type Vol = InstanceType<typeof Volume>;

/** The sparse file of a worktree's git dir (`meta`). */
function sparseFileOf(meta: string): string {
  return `${meta}/info/sparse-checkout`;
}

/** The paths a worktree checks out, or null for a full (non-sparse) worktree. */
export function readSparsePaths(volume: Vol, meta: string): Set<string> | null {
  const file = sparseFileOf(meta);
  if (!volume.existsSync(file)) return null;
  const lines = String(volume.readFileSync(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '');
  return new Set(lines.map(pathOfSparsePattern));
}

/** Records `paths` (added to those already listed) as the worktree's sparse set. */
export function writeSparsePaths(volume: Vol, meta: string, paths: Iterable<string>): void {
  const all = new Set([...(readSparsePaths(volume, meta) ?? []), ...paths]);
  volume.mkdirSync(`${meta}/info`, { recursive: true });
  volume.writeFileSync(sparseFileOf(meta), sparseCheckoutFile(all));
}

/**
 * Writes each of `paths` (repository-relative) from `tree` under `dir`, creating the folders
 * leading to it. Paths that are absent from the tree or are folders or submodules there are
 * skipped, as git's pattern matching would skip them.
 */
export async function checkoutPaths(
  volume: Vol,
  objects: GitObjectReader,
  tree: string,
  dir: string,
  paths: Iterable<string>,
): Promise<void> {
  for (const path of paths) {
    const entry = await entryAt(objects, tree, path);
    if (entry?.type !== 'blob') continue;
    const abs = `${dir}/${path}`;
    volume.mkdirSync(abs.slice(0, abs.lastIndexOf('/')), { recursive: true });
    const bytes = await objects.readBlob(entry.oid);
    removeEntry(volume, abs);
    if (entry.mode === '120000') volume.symlinkSync(Buffer.from(bytes).toString('utf8'), abs);
    else volume.writeFileSync(abs, bytes, { mode: entry.mode === '100755' ? 0o755 : 0o644 });
  }
}

/** The tree entry at a repository-relative path, or null. */
export async function entryAt(objects: GitObjectReader, tree: string, path: string): Promise<TreeEntry | null> {
  let oid = tree;
  let found: TreeEntry | null = null;
  for (const seg of path.split('/')) {
    if (found && found.type !== 'tree') return null;
    found = (await objects.readTree(oid)).find((e) => e.name === seg) ?? null;
    if (!found) return null;
    oid = found.oid;
  }
  return found;
}
