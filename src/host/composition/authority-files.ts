/**
 * The files that grant agents their authority on the disk host — `<repo>/gatefs.yaml` (which the
 * CLI loads by default) and the manifest and settings files loaded, under every name that leads
 * to them — so that wherever a workspace shows one, it is readable and never changed.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The authority files of a host over `repo` loading `manifest` and `settings` (file paths, or parsed objects: none). */
export function authorityFilesOf(repo: string, manifest: string | object | undefined, settings: string | object | undefined): string[] {
  return [
    join(repo, 'gatefs.yaml'),
    ...(typeof manifest === 'string' ? namesOnTheWay(manifest) : []),
    ...(typeof settings === 'string' ? namesOnTheWay(settings) : []),
  ];
}

/**
 * Every host path that names the file `path` on the way to it: the path as given (absolute),
 * each symbolic link it runs through at its last component, and the file itself, each also
 * under its folder's real path (the repository is compared by its real path). Replacing any of
 * those links would change what the next start loads, so each is an authority file. At most
 * 40 links are followed (the kernel's own limit); a name that cannot be read ends the list.
 */
function namesOnTheWay(path: string): string[] {
  const names = new Set<string>();
  let current = resolve(path);
  for (let hops = 0; hops <= 40; hops++) {
    names.add(current);
    let here: string;
    let target: string;
    try {
      here = join(realpathSync(dirname(current)), basename(current));
      names.add(here);
      if (!lstatSync(here).isSymbolicLink()) break;
      target = readlinkSync(here);
    } catch {
      break;
    }
    current = resolve(dirname(here), target);
  }
  return [...names];
}
