/**
 * An agent's home on the host, `<stateDir>/homes/<agent>` (`homeFolderOf`): made, completed and
 * its `tmp/` emptied through the `HostPlatform`, so the disk and memory hosts do the same.
 *
 * The `homes` area and the home folder are looked at without following a link and made (mode
 * 0700) when missing; everything inside is reached through the home opened as a confined layer
 * (`openFolder`: held handles, no link followed on the way or at the last component), so a link
 * a command planted in the home never leads a write or a removal outside it. A home folder, the
 * area or a part of the layout that is a link is refused (`STATE_UNTRUSTED`, data.reason
 * `LINK_IN_STATE_DIR`) and nothing is written through it; so is a `.gatefs` that is not a
 * folder (only the runtime writes there). An agent-owned part of another kind (a file where
 * `notes/` belongs) is left as the agent made it. Nothing that exists is ever overwritten.
 */
import { isVfsError, type WritableLayer } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { HOME_LAYOUT, HOME_RUNTIME_FOLDER, HOME_TMP_FOLDER } from './agent-home-layout.js';
import type { HostPlatform } from './platform.js';
import { homeFolderOf } from './workspace-paths.js';

/** What the home functions use of the platform. */
type HomePlatform = Pick<HostPlatform, 'stateDir' | 'repo' | 'join' | 'folderState' | 'makeFolder' | 'openFolder'>;

/** One home, for the operator (`gatefs home list`): its agent and its host folder. */
export interface AgentHome {
  agent: string;
  folder: string;
}

/**
 * The host folder of `agent`'s home, made (with the `homes` area) when missing. Result: the
 * folder and whether it was made now. Throws `PREPARATION_FAILED` (`BAD_AGENT_NAME`) and
 * `STATE_UNTRUSTED` (the area or the folder is a link or not a folder).
 */
export function homeFolderReady(platform: HomePlatform, agent: string): { folder: string; made: boolean } {
  const folder = homeFolderOf(platform, agent);
  const area = platform.join(platform.stateDir, 'homes');
  const areaState = platform.folderState(area);
  if (areaState === 'missing') platform.makeFolder(area, 0o700);
  else if (areaState !== 'folder') throw untrusted(area, areaState);
  const state = platform.folderState(folder);
  if (state === 'folder') return { folder, made: false };
  if (state !== 'missing') throw untrusted(folder, state);
  platform.makeFolder(folder, 0o700);
  return { folder, made: true };
}

/**
 * Makes `agent`'s home and every missing part of its layout (see the file comment). Result:
 * what was made, home-relative ('.' for the home folder itself), in layout order; empty when
 * nothing was missing. Throws what `homeFolderReady` throws, and `STATE_UNTRUSTED` for a part
 * that is a link or a `.gatefs` that is not a folder.
 */
export async function seedAgentHome(platform: HomePlatform, agent: string): Promise<string[]> {
  const { folder, made } = homeFolderReady(platform, agent);
  const done: string[] = made ? ['.'] : [];
  await withHome(platform, folder, async (layer) => {
    for (const part of HOME_LAYOUT) {
      const type = await typeAt(layer, folder, part.path);
      if (type === 'symlink') throw untrusted(platform.join(folder, part.path), 'link');
      const runtime = part.path === HOME_RUNTIME_FOLDER || part.path.startsWith(`${HOME_RUNTIME_FOLDER}/`);
      if (type !== null) {
        if (runtime && type !== (part.kind === 'folder' ? 'directory' : 'file')) throw untrusted(platform.join(folder, part.path), 'other');
        continue;
      }
      try {
        if (part.kind === 'folder') await layer.mkdir(part.path);
        else await layer.writeFile(part.path, new TextEncoder().encode(part.text(agent)), { exclusive: true, mode: 0o644 });
        done.push(part.path);
      } catch (e) {
        // Another preparation of the same agent made it first: it is there, as it should be.
        if (!isVfsError(e, 'ALREADY_EXISTS')) throw e;
      }
    }
  });
  return done;
}

/**
 * Empties `agent`'s `tmp/` (its contents; the folder stays): each entry removed through the
 * confined layer, a link as a link, never followed. Result: how many entries of `tmp/` went
 * (an entry that cannot be removed, say swapped for a link mid-way, is left and not counted).
 * A home or `tmp/` that does not exist: 0. Throws `PREPARATION_FAILED` (`BAD_AGENT_NAME`),
 * `STATE_UNTRUSTED` when the area, the home or `tmp/` is a link.
 */
export async function cleanAgentTmp(platform: HomePlatform, agent: string): Promise<number> {
  const folder = homeFolderOf(platform, agent);
  const areaState = platform.folderState(platform.join(platform.stateDir, 'homes'));
  if (areaState === 'missing') return 0;
  if (areaState !== 'folder') throw untrusted(platform.join(platform.stateDir, 'homes'), areaState);
  const state = platform.folderState(folder);
  if (state === 'missing') return 0;
  if (state !== 'folder') throw untrusted(folder, state);
  return withHome(platform, folder, async (layer) => {
    const type = await typeAt(layer, folder, HOME_TMP_FOLDER);
    if (type === 'symlink') throw untrusted(platform.join(folder, HOME_TMP_FOLDER), 'link');
    if (type !== 'directory') return 0;
    let removed = 0;
    for (const entry of await layer.readdir(HOME_TMP_FOLDER)) {
      try {
        await removeTree(layer, `${HOME_TMP_FOLDER}/${entry.name}`);
        removed++;
      } catch (e) {
        if (!isVfsError(e)) throw e;
      }
    }
    return removed;
  });
}

/** Every home in `<stateDir>/homes` (folders named in the agent grammar), sorted by agent. */
export async function listAgentHomes(platform: HomePlatform): Promise<AgentHome[]> {
  const area = platform.join(platform.stateDir, 'homes');
  if (platform.folderState(area) !== 'folder') return [];
  return withHome(platform, area, async (layer) =>
    (await layer.readdir(''))
      .filter((e) => e.type === 'directory')
      .flatMap((e) => {
        try {
          return [{ agent: e.name, folder: homeFolderOf(platform, e.name) }];
        } catch {
          return []; // not a name gatefs gives a home
        }
      }),
  );
}

/** Removes the entry at `path` and, for a folder, everything in it, depth first (links removed as links). */
async function removeTree(layer: WritableLayer, path: string): Promise<void> {
  if ((await layer.stat(path)).type === 'directory') {
    for (const entry of await layer.readdir(path)) await removeTree(layer, `${path}/${entry.name}`);
  }
  await layer.remove(path);
}

/** Runs `work` over the folder opened as a confined layer, closed after; a link on the way is `STATE_UNTRUSTED`. */
async function withHome<T>(platform: HomePlatform, folder: string, work: (layer: WritableLayer) => Promise<T>): Promise<T> {
  let opened: ReturnType<HomePlatform['openFolder']>;
  try {
    opened = platform.openFolder(folder);
  } catch (e) {
    if (isVfsError(e, 'SYMLINK_ESCAPE')) throw untrusted(folder, 'link');
    throw e;
  }
  try {
    return await work(opened.layer);
  } finally {
    opened.close();
  }
}

/** The type of the entry at `path` (a link reported, not followed), or null when there is none. */
async function typeAt(layer: WritableLayer, folder: string, path: string): Promise<string | null> {
  try {
    return (await layer.stat(path)).type;
  } catch (e) {
    if (isVfsError(e, 'NOT_FOUND')) return null;
    if (isVfsError(e, 'SYMLINK_ESCAPE')) throw untrusted(`${folder}/${path}`, 'link');
    throw e;
  }
}

function untrusted(path: string, state: string): WorkspaceError {
  const what = state === 'link' ? 'a symbolic link' : 'not what gatefs made there';
  return new WorkspaceError('STATE_UNTRUSTED', `'${path}' is ${what}: gatefs writes and removes nothing through it`, {
    reason: 'LINK_IN_STATE_DIR',
    hint: 'remove it after checking what it is (a command may have planted it in the home); gatefs never follows it',
  });
}
