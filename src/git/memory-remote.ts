/**
 * Remotes of the memory host: a remote name maps to a bare repository inside the same memfs
 * volume, `/remotes/<name>.git`. `copyObjects` moves every object reachable from a commit that
 * the destination lacks (as a push or fetch would send a pack), stopping at commits and trees
 * the destination already holds — sound because a store that holds an object holds what it
 * reaches.
 *
 * Test seam (memory remote only): `rejectNextPushes(volume, name, n)` writes the count to
 * `/remotes/<name>.git/gatefs-reject-pushes`; each push consumes one and is refused, as a
 * server's pre-receive hook would refuse it.
 */
import git, { type FsClient } from 'isomorphic-git';
import type { Volume } from 'memfs';
import { readText } from './memory-refs.js';

type Vol = InstanceType<typeof Volume>;

const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const REJECT_FILE = 'gatefs-reject-pushes';

/** The bare repository folder of remote `name`, or null when the name is not a plain name. */
export function memoryRemoteDir(name: string): string | null {
  return REMOTE_NAME.test(name) && !name.endsWith('.git') ? `/remotes/${name}.git` : null;
}

/**
 * Creates remote `name` as an empty bare repository (`git init --bare`, default branch
 * `main`) at `/remotes/<name>.git`. Result: its folder. Throws a plain error for a name that
 * is not a plain name (letters, digits, `._-`). Repeating it leaves an existing remote as is.
 */
export async function createMemoryRemote(volume: Vol, name: string): Promise<string> {
  const dir = memoryRemoteDir(name);
  if (!dir) throw new TypeError(`'${name}' is not a plain remote name`);
  volume.mkdirSync(dir, { recursive: true });
  await git.init({ fs: volume as unknown as FsClient, dir, bare: true, defaultBranch: 'main' });
  return dir;
}

/**
 * Test seam of the memory remote only: makes the next `count` pushes to remote `name` fail
 * (`{ ok: false }`, nothing moved). `count` 0 clears it.
 */
export function rejectNextPushes(volume: Vol, name: string, count: number): void {
  const dir = memoryRemoteDir(name);
  if (!dir || !volume.existsSync(dir)) throw new TypeError(`there is no memory remote '${name}'`);
  volume.writeFileSync(`${dir}/${REJECT_FILE}`, `${count}\n`);
}

/** Consumes one refusal from the seam of the remote at `dir`; true when this push is refused. */
export function consumeRejection(volume: Vol, dir: string): boolean {
  const count = Number(readText(volume, `${dir}/${REJECT_FILE}`) ?? '0');
  if (!(count > 0)) return false;
  volume.writeFileSync(`${dir}/${REJECT_FILE}`, `${count - 1}\n`);
  return true;
}

/**
 * Copies every object reachable from commit `sha` from the repository at `from` to the one at
 * `to` (both git dirs in `volume`) that `to` lacks. Objects are copied as stored (deflated).
 */
export async function copyObjects(volume: Vol, from: string, to: string, sha: string): Promise<void> {
  const fs = volume as unknown as FsClient;
  const has = async (oid: string) =>
    git.readObject({ fs, gitdir: to, oid, format: 'deflated' }).then(
      () => true,
      () => false,
    );
  const queue: Array<{ oid: string; type: 'commit' | 'tree' | 'blob' }> = [{ oid: sha, type: 'commit' }];
  const seen = new Set<string>();
  const missing: string[] = [];
  while (queue.length > 0) {
    const { oid, type } = queue.pop() as { oid: string; type: 'commit' | 'tree' | 'blob' };
    if (seen.has(oid)) continue;
    seen.add(oid);
    if (await has(oid)) continue;
    if (type === 'commit') {
      const { commit } = await git.readCommit({ fs, gitdir: from, oid });
      queue.push({ oid: commit.tree, type: 'tree' }, ...commit.parent.map((p) => ({ oid: p, type: 'commit' as const })));
    } else if (type === 'tree') {
      const { tree } = await git.readTree({ fs, gitdir: from, oid });
      for (const e of tree) if (e.type !== 'commit') queue.push({ oid: e.oid, type: e.type });
    }
    missing.push(oid);
  }
  // Referenced objects go first, so a copy cut short never leaves an object whose parts are absent.
  for (const oid of missing.reverse()) {
    const { object } = await git.readObject({ fs, gitdir: from, oid, format: 'deflated' });
    await git.writeObject({ fs, gitdir: to, object: object as Uint8Array, format: 'deflated', oid });
  }
}
