/**
 * `bindingFactsOf`: what a conversation's commands show of the agent model (docs/ARCHITECTURE.md
 * § Agent model), read from the store at the moment a command starts, so a `switch`, `attach` or
 * `detach` made while a command runs never changes that command (it keeps the folders it
 * started with) and the next command follows it:
 *
 * - each attached workspace at its anchor: another conversation's worktree or empty scratch
 *   folder at `/worktrees/<w>`, the source checkout at `/canonical` (writable only for
 *   `exclusive-write`). An attached `copy` workspace has no folder that is its root (a kernel
 *   overlay per attached copy is not made): it is left out of the sandbox, which the file tools
 *   still show; a `cwd` there answers `OUTSIDE_MOUNTS`. A workspace that is not ready, or whose
 *   folder is not a folder (a link, gone), is left out too;
 * - the own root read-only when the conversation gave its write up (its own binding is
 *   `shared-read`);
 * - the agent's home folder at `/home` (when it exists);
 * - the default working folder: the active workspace's anchor (never another folder: when the
 *   sandbox leaves the active workspace out, a command naming no folder is refused).
 *
 * Host paths stay in the facts (the plan's `host` fields); nothing here reaches an agent.
 */
import type { Backend } from '../../manifest/index.js';
import { CANONICAL_WORKSPACE, HOME_WORKSPACE, type StateStore } from '../../state/index.js';
import { checkoutOf, defaultAgentOf, HOME_ANCHOR, homeFolderOf, type HostPlatform } from '../platform/index.js';

/** The anchor of the agent's home in every namespace. */
export const HOME_AT = HOME_ANCHOR;
/** The anchor of the source checkout when it is attached. */
export const CANONICAL_AT = '/canonical';

/** One attached workspace as the sandbox shows it. */
export interface AttachedFacts {
  /** Its workspace id (a conversation id, or `canonical`). */
  readonly id: string;
  /** Its anchor: `/worktrees/<id>` or `/canonical`. */
  readonly at: string;
  /** Its folder (a worktree, a scratch folder, or the source checkout). */
  readonly host: string;
  readonly writable: boolean;
  /**
   * `checkout`: a git checkout (the source checkout, a worktree): a `.git` there is covered;
   * `scratch`: an empty backend's folder, whose `.git` is its own files.
   */
  readonly kind: 'checkout' | 'scratch';
}

/** The agent-model facts of one command's sandbox (see the file comment). */
export interface BindingFacts {
  /** True: the own root is read-only (the conversation gave its write up). */
  readonly ownReadOnly: boolean;
  /** Attached workspaces, oldest binding first. */
  readonly attached: readonly AttachedFacts[];
  /** The agent's home folder, shown at `/home`; absent when it does not exist. */
  readonly home?: string;
  /** The active workspace's anchor: where a command starts when it names no folder. */
  readonly defaultCwd: string;
}

/** The namespace anchor of workspace `id` for `conversation` (its own, `home`, `canonical`, or another's). */
export function anchorOf(id: string): string {
  if (id === HOME_WORKSPACE) return HOME_AT;
  if (id === CANONICAL_WORKSPACE) return CANONICAL_AT;
  return `/worktrees/${id}`;
}

/**
 * The facts of `conversation`'s sandbox now (see the file comment). `role`: the agent identity
 * when the conversation has none recorded (prepared before the agent model).
 */
export function bindingFactsOf(
  parts: { readonly store: StateStore; readonly platform: HostPlatform },
  conversation: string,
  role: string,
): BindingFacts {
  const { store, platform } = parts;
  const state = store.bindings.stateOf(conversation);
  const held = store.bindings.bindingsOf(conversation);
  const own = held.find((b) => b.workspace === conversation);
  const attached: AttachedFacts[] = [];
  for (const b of held) {
    if (b.workspace === conversation) continue;
    const facts = attachedFacts(store, platform, b.workspace, b.mode === 'exclusive-write');
    if (facts && platform.folderState(facts.host) === 'folder') attached.push(facts);
  }
  const home = homeOf(platform, state?.agent ?? defaultAgentOf(role));
  return {
    ownReadOnly: own?.mode === 'shared-read',
    attached,
    ...(home !== undefined ? { home } : {}),
    // Never another folder than the active one: an active workspace the sandbox leaves out is refused (OUTSIDE_MOUNTS).
    defaultCwd: anchorOf(state?.active ?? conversation),
  };
}

/** The facts of attached workspace `id`, or null when the sandbox leaves it out (not ready, a copy, unknown). */
function attachedFacts(store: StateStore, platform: HostPlatform, id: string, writable: boolean): AttachedFacts | null {
  if (id === CANONICAL_WORKSPACE) return { id, at: CANONICAL_AT, host: platform.repo, writable, kind: 'checkout' };
  const record = store.workspaces.get(id);
  if (record?.state !== 'ready') return null;
  const backend: Backend = record.backend;
  if (backend === 'copy') return null;
  try {
    return { id, at: anchorOf(id), host: checkoutOf(platform, id, backend), writable, kind: backend === 'empty' ? 'scratch' : 'checkout' };
  } catch {
    return null; // an id outside the grammar names no folder
  }
}

/** The agent's home folder when it is a folder, else undefined (an agent name outside the grammar has none). */
function homeOf(platform: HostPlatform, agent: string): string | undefined {
  try {
    const folder = homeFolderOf(platform, agent);
    return platform.folderState(folder) === 'folder' ? folder : undefined;
  } catch {
    return undefined;
  }
}
