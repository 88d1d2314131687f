/**
 * The roots a file reference resolves in (docs/ARCHITECTURE.md § Agent model, "File references"):
 * `canonical` (the source checkout), each conversation's workspace (its worktree folder, its copy's
 * upper folder over the pinned tree, its scratch folder) and an agent's home. Roots are
 * deduplicated by anchor: a `shared` conversation's workspace is the checkout, so it is `canonical`.
 *
 * Found without scanning: a workspace id names its record (one indexed read), and a host path
 * names its root by its place — `<stateDir>/<area>/<id>/…` is parsed into the area and the id,
 * then that one record is read. Folders are derived from the state directory and the id
 * (`checkoutOf`, `homeFolderOf`), never taken from a record.
 */
import type { Backend } from '../../manifest/index.js';
import { CANONICAL_WORKSPACE, HOME_WORKSPACE, type StateStore } from '../../state/index.js';
import { isConversationId } from '../../../vfs/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { agentOfRecord } from '../lifecycle/index.js';
import { checkoutOf, homeFolderOf, type HostPlatform } from '../platform/index.js';
import { anchorOf } from '../views/index.js';
import { badReference } from './file-reference.js';

/** One root: its id, anchor and host folder, and how its files are served. */
export interface ReferenceRoot {
  /** `canonical`, a conversation id, or `home`. */
  readonly id: string;
  /** `/canonical`, `/worktrees/<id>` or `/home`. */
  readonly anchor: string;
  /** Its host folder (a copy's upper folder). */
  readonly folder: string;
  readonly kind: 'canonical' | Exclude<Backend, 'shared'> | 'home';
  /** A copy's pinned commit (its lower tree), else null. */
  readonly pinnedSha: string | null;
  /** A home's agent. */
  readonly agent?: string;
}

/** What finding a root reads. */
export interface ReferenceParts {
  readonly platform: HostPlatform;
  readonly store: StateStore;
}

/** The areas of the state directory that hold one workspace folder per conversation, and their backends. */
const AREAS: Readonly<Record<string, Exclude<Backend, 'shared'>>> = { worktrees: 'worktree', copies: 'copy', scratch: 'empty' };

/** The source checkout's root. */
export function canonicalRoot(platform: HostPlatform): ReferenceRoot {
  return { id: CANONICAL_WORKSPACE, anchor: anchorOf(CANONICAL_WORKSPACE), folder: platform.repo, kind: 'canonical', pinnedSha: null };
}

/** The home root of `agent`. Throws `PREPARATION_FAILED` (`BAD_AGENT_NAME`) for a name outside the grammar. */
export function homeRoot(platform: HostPlatform, agent: string): ReferenceRoot {
  return {
    id: HOME_WORKSPACE,
    anchor: anchorOf(HOME_WORKSPACE),
    folder: homeFolderOf(platform, agent),
    kind: 'home',
    pinnedSha: null,
    agent,
  };
}

/**
 * The root of workspace id `workspace` (`canonical`, `home`, a conversation id). `home` is the
 * home of `conversation`'s agent. Throws `WorkspaceError` `UNKNOWN_CONVERSATION` (no such
 * workspace, or one whose preparation failed), `REFERENCE_GONE` (released; data.workspace),
 * `BUSY` (being prepared), `BAD_REFERENCE` (`NO_CONVERSATION`: `home` without a conversation).
 */
export function rootOfWorkspace(
  parts: ReferenceParts,
  workspace: string,
  conversation: string | undefined,
  reference: string,
): ReferenceRoot {
  if (workspace === CANONICAL_WORKSPACE) return canonicalRoot(parts.platform);
  if (workspace === HOME_WORKSPACE) {
    if (conversation === undefined) {
      throw badReference('NO_CONVERSATION', reference, "the home is an agent's: give the conversation whose agent's home it is");
    }
    // A home outlives its conversations: any recorded conversation names its agent's.
    const record = isConversationId(conversation) ? parts.store.workspaces.get(conversation) : undefined;
    if (!record) throw unknown(conversation);
    return homeRoot(parts.platform, agentOfRecord(parts.store, record));
  }
  const record = readyRecord(parts, workspace);
  if (record.backend === 'shared') return canonicalRoot(parts.platform);
  return {
    id: workspace,
    anchor: anchorOf(workspace),
    folder: checkoutOf(parts.platform, workspace, record.backend),
    kind: record.backend,
    pinnedSha: record.pinnedSha,
  };
}

/** The record of a ready workspace (see `rootOfWorkspace` for what it throws). */
function readyRecord(parts: ReferenceParts, conversation: string) {
  const record = isConversationId(conversation) ? parts.store.workspaces.get(conversation) : undefined;
  const shown = conversation.slice(0, 80);
  if (!record || record.state === 'failed') throw unknown(conversation);
  if (record.state === 'released') {
    throw new WorkspaceError('REFERENCE_GONE', `the workspace of '${shown}' was released: its files are no longer anyone's`, {
      workspace: shown,
    });
  }
  if (record.state === 'preparing') {
    throw new WorkspaceError('BUSY', `conversation '${shown}' is being prepared`, { conversation: shown });
  }
  return record;
}

function unknown(conversation: string): WorkspaceError {
  const shown = conversation.slice(0, 80);
  return new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${shown}'`, { conversation: shown });
}

/**
 * The roots holding host path `path` (absolute, without '.' or '..'), `canonical` first, then
 * the deeper one (a workspace or home folder inside the state directory). The deepest one is
 * where the path's links are followed. Throws `REFERENCE_GONE` when that deepest one is a
 * released conversation's (never another root's file), `UNKNOWN_CONVERSATION` for a workspace
 * folder no record names, `BAD_REFERENCE` (`OUTSIDE_ROOTS`) when no root holds it.
 */
export function rootsOfHostPath(parts: ReferenceParts, path: string, reference: string): ReferenceRoot[] {
  const { platform } = parts;
  const roots: ReferenceRoot[] = [];
  if (platform.relativeInside(platform.repo, path) !== null) roots.push(canonicalRoot(platform));
  const inState = platform.relativeInside(platform.stateDir, path);
  const [area, id] = inState ? inState.split('/') : [];
  if (area !== undefined && id !== undefined && isConversationId(id)) {
    const deeper = area === 'homes' ? homeRoot(platform, id) : AREAS[area] ? workspaceRootAt(parts, AREAS[area]!, id) : null;
    if (deeper) roots.push(deeper);
  }
  if (roots.length === 0) {
    throw badReference('OUTSIDE_ROOTS', reference, 'it lies outside the source checkout and every workspace and home folder');
  }
  return roots;
}

/** The root of the folder `<stateDir>/<area of backend>/<id>`, or null when that folder is not the workspace's (another backend's area). */
function workspaceRootAt(parts: ReferenceParts, backend: Exclude<Backend, 'shared'>, id: string): ReferenceRoot | null {
  const record = parts.store.workspaces.get(id);
  if (record && record.backend !== backend) return null;
  const root = rootOfWorkspace(parts, id, undefined, id);
  return root.kind === backend ? root : null;
}
