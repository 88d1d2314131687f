/**
 * `checkoutTree`: fills a working folder of a memfs volume from a git tree, as a checkout
 * writes it (exec bit kept, links as links, a submodule as an empty folder). Comparing a
 * folder with a tree is memory-changes.ts's.
 */
import type { Volume } from 'memfs';
import type { GitObjectReader } from '../../vfs/git-object-reader.js';

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
