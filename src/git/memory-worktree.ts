/**
 * The working-folder half of `MemoryGit`'s worktree emulation: filling a folder from a tree,
 * and comparing a folder with a tree the way `git status --porcelain --untracked-files=all`
 * would (modified, deleted and untracked files; ignored files skipped).
 */
import git from 'isomorphic-git';
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

/**
 * The repository-relative paths under `dir` that differ from `tree`, sorted. `isIgnored` is
 * asked about untracked files only. The top-level `.git` pointer file is not compared.
 */
export async function dirtyAgainstTree(
  volume: Vol,
  objects: GitObjectReader,
  tree: string,
  dir: string,
  isIgnored: (path: string) => Promise<boolean>,
): Promise<string[]> {
  const dirty: string[] = [];
  await compare(volume, objects, tree, dir, '', isIgnored, dirty);
  return dirty.sort();
}

async function compare(
  volume: Vol,
  objects: GitObjectReader,
  tree: string | null,
  dir: string,
  prefix: string,
  isIgnored: (path: string) => Promise<boolean>,
  dirty: string[],
): Promise<void> {
  const entries = tree ? await objects.readTree(tree) : [];
  const tracked = new Map(entries.map((e) => [e.name, e]));
  const present = new Set<string>(isFolder(volume, dir) ? (volume.readdirSync(dir) as unknown[]).map(String) : []);
  if (prefix === '') present.delete('.git');
  for (const entry of entries) {
    const rel = prefix + entry.name;
    const path = `${dir}/${entry.name}`;
    if (entry.type === 'tree') {
      await compare(volume, objects, entry.oid, path, `${rel}/`, isIgnored, dirty);
      continue;
    }
    if (entry.type === 'commit') continue;
    if (!present.has(entry.name)) {
      dirty.push(rel);
      continue;
    }
    const st = volume.lstatSync(path);
    const isLink = entry.mode === '120000';
    if (isLink !== st.isSymbolicLink() || (!isLink && !st.isFile())) {
      dirty.push(rel);
      continue;
    }
    const bytes = isLink ? Buffer.from(String(volume.readlinkSync(path))) : (volume.readFileSync(path) as Buffer);
    const { oid } = await git.hashBlob({ object: bytes });
    const exec = !isLink && (Number(st.mode) & 0o111) !== 0;
    if (oid !== entry.oid || (!isLink && exec !== (entry.mode === '100755'))) dirty.push(rel);
  }
  for (const name of present) {
    if (tracked.has(name)) continue;
    const rel = prefix + name;
    const path = `${dir}/${name}`;
    if (await isIgnored(rel)) continue;
    if (volume.lstatSync(path).isDirectory()) await compare(volume, objects, null, path, `${rel}/`, isIgnored, dirty);
    else dirty.push(rel);
  }
}

function isFolder(volume: Vol, path: string): boolean {
  try {
    return volume.lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
