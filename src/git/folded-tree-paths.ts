/**
 * `findFoldedPaths`: the entries of a commit's tree that a case-insensitive, normalization-
 * insensitive filesystem would take for one of some paths (vfs/fold-name.ts), as the tree spells
 * them. Both landing ports use it to refuse a candidate whose tree holds the state directory's
 * name: on macOS a tree entry `.GATEFS` lands in `.gatefs`.
 */
import { foldName } from '../../vfs/index.js';

/**
 * For each of `paths` ('/'-separated, repository-relative), the tree paths matching it once
 * folded segment by segment; `childrenOf(prefix)` lists the names inside the tree folder
 * `prefix` ('' for the root), or null when it is not a folder. Result: sorted, each once.
 */
export async function findFoldedPaths(
  paths: readonly string[],
  childrenOf: (prefix: string) => Promise<string[] | null>,
): Promise<string[]> {
  const listed = new Map<string, Promise<string[] | null>>();
  const list = (prefix: string) => {
    let names = listed.get(prefix);
    if (!names) listed.set(prefix, (names = childrenOf(prefix)));
    return names;
  };
  const found = new Set<string>();
  for (const path of paths) {
    let prefixes = [''];
    for (const segment of path.split('/').filter(Boolean)) {
      const wanted = foldName(segment);
      const next: string[] = [];
      for (const prefix of prefixes) {
        for (const name of (await list(prefix)) ?? []) {
          if (name === segment || foldName(name) === wanted) next.push(prefix === '' ? name : `${prefix}/${name}`);
        }
      }
      prefixes = next;
      if (prefixes.length === 0) break;
    }
    for (const p of prefixes) if (p !== '') found.add(p);
  }
  return [...found].sort();
}
