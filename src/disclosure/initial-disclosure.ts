/**
 * `initialDisclosure`: the disclosure state a workspace starts with, computed at preparation
 * from the role's policy and the pinned commit (through the object reader; nothing spawns).
 *
 * Each `initial_paths` entry that names a file or symlink of the pinned commit is disclosed; a
 * folder discloses every file and symlink below it (a user who lists a folder means its
 * contents); an entry the commit lacks, or a submodule, is skipped and reported in `missing`,
 * so a policy written for another branch still prepares.
 */
import type { GitObjectReader } from '../../vfs/index.js';
import type { DisclosurePolicy } from '../manifest/index.js';
import type { EventDraft } from '../state/index.js';
import type { DisclosureState } from './disclosure-state.js';
import { PinnedSnapshot } from './pinned-snapshot.js';

/** The starting state, and the initial paths the pinned commit could not provide. */
async function initialDisclosure(
  objects: GitObjectReader,
  pinnedSha: string,
  policy: DisclosurePolicy,
): Promise<{ state: DisclosureState; missing: string[] }> {
  const snapshot = new PinnedSnapshot(objects, pinnedSha);
  const disclosed = new Set<string>();
  const missing: string[] = [];
  for (const path of policy.initialPaths) {
    const type = await snapshot.entryType(path);
    if (type === 'file' || type === 'symlink') disclosed.add(path);
    else if (type === 'directory') for (const f of await snapshot.filesBelow(path)) disclosed.add(f);
    else missing.push(path);
  }
  const sorted = [...disclosed].sort();
  return {
    state: {
      initialPaths: [...policy.initialPaths],
      allowedPaths: [...policy.allowedPaths],
      disclosed: sorted,
      visible: sorted,
      requests: 0,
    },
    missing,
  };
}

/** What `startDisclosure` needs of the host. */
interface StartDisclosureHost {
  readonly platform: { readonly git: { readonly objects: GitObjectReader } };
  readonly store: { readonly runLog: { append(draft: EventDraft<'disclosure.initial_missing'>): unknown } };
}

/**
 * The preparation step for a role with a policy: the starting state (see `initialDisclosure`),
 * with a `disclosure.initial_missing` run-log record when some initial paths were skipped.
 */
export async function startDisclosure(
  host: StartDisclosureHost,
  conversation: string,
  pinnedSha: string,
  policy: DisclosurePolicy,
): Promise<DisclosureState> {
  const { state, missing } = await initialDisclosure(host.platform.git.objects, pinnedSha, policy);
  if (missing.length > 0) host.store.runLog.append({ type: 'disclosure.initial_missing', conversation, data: { missing, pinnedSha } });
  return state;
}
