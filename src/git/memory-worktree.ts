/**
 * `checkoutTree`: fills a working folder of a memfs volume from a git tree, as a checkout
 * writes it (exec bit kept, links as links, a submodule as an empty folder); `removeEntry`
 * takes one entry out of a folder. Comparing a folder with a tree is memory-changes.ts's.
 */
import type { Volume } from 'memfs';
import { isMissingPath } from '../ports/index.js';
import type { GitObjectReader } from '../../vfs/index.js';

type Vol = InstanceType<typeof Volume>;

/** Writes every file, symlink and folder of `tree` under `dir` (which must exist). */
export async function checkoutTree(volume: Vol, objects: GitObjectReader, tree: string, dir: string): Promise<void> {
  for (const entry of await objects.readTree(tree)) {
    const path = `${dir}/${entry.name}`;
    if (entry.type === 'tree') {
      volume.mkdirSync(path);
      await checkoutTree(volume, objects, entry.oid, path);
    } else if (entry.type === 'commit') {
      volume.mkdirSync(path);
    } else if (entry.mode === '120000') {
      volume.symlinkSync(Buffer.from(await objects.readBlob(entry.oid)).toString('utf8'), path);
    } else {
      volume.writeFileSync(path, await objects.readBlob(entry.oid), { mode: entry.mode === '100755' ? 0o755 : 0o644 });
    }
  }
}

/**
 * Removes what is at `path` — a file, a link (never what it points at: memfs's `rmSync` on a
 * link removes its target), or a folder with everything in it. Nothing there is fine.
 */
export function removeEntry(volume: Vol, path: string): void {
  let folder: boolean;
  try {
    folder = volume.lstatSync(path).isDirectory();
  } catch (e) {
    if (isMissingPath(e)) return;
    throw e;
  }
  // A folder goes whole: its own links are unlinked, and memfs's rmdirSync can refuse a folder a
  // rename replaced an entry of (ENOTEMPTY, nothing listed).
  if (folder) volume.rmSync(path, { recursive: true, force: true });
  else volume.unlinkSync(path);
}
