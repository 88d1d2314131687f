/**
 * `bindingViewOf`: what a conversation's bindings (src/state/binding-table.ts) make of its view —
 * the workspaces it has attached with their write flags, the own root's write flag, the active
 * workspace's anchor, the anchors of workspaces released under it — read from the store in one
 * place, for the view (src/host/lifecycle/registration.ts) and the sandbox plan alike. Host paths
 * are in `attached[].checkoutPath` only (the view and the sandbox need them; no agent sees them).
 *
 * `version` is the agents row's version the facts were read at: a view opened with them is stale
 * once `store.bindings.stateOf(conversation).version` differs (one indexed read per call).
 */
import type { Backend } from '../../manifest/index.js';
import type { StateStore, WorkspaceRecord } from '../../state/index.js';
import { anchorOf, type AttachedWorkspace } from '../views/index.js';
import type { HostPlatform } from '../platform/index.js';
import { checkoutOf } from '../platform/index.js';

/** A conversation's bindings as its view shows them (see the file comment). */
export interface BindingView {
  /** The agents row's version these facts were read at (null: the conversation has no agents row). */
  version: number | null;
  /** The active workspace's id (the own conversation id, `home`, `canonical` or an attached one) and anchor. */
  active: { id: string; anchor: string };
  /** The own root's write flag and what a change there answers when it is not writable. */
  own: { writable: boolean; refusal?: () => 'READ_ONLY' | 'OCCUPIED' };
  /** Attached workspaces whose folders are there to show, oldest binding first. */
  attached: AttachedWorkspace[];
  /** Anchors that answer `WORKSPACE_RELEASED`: bound workspaces released (now or before, and not bound again). */
  released: string[];
}

/** The binding facts of a `ready` workspace record (see the file comment). */
export function bindingViewOf(
  parts: { readonly store: Pick<StateStore, 'bindings' | 'workspaces'>; readonly platform: HostPlatform },
  record: Pick<WorkspaceRecord, 'conversation' | 'backend'>,
): BindingView {
  const { store, platform } = parts;
  const c = record.conversation;
  const state = store.bindings.stateOf(c);
  const bindings = store.bindings.bindingsOf(c);
  const ownBinding = bindings.find((b) => b.own);
  const isolated = record.backend !== 'shared';
  // No agents row (a workspace prepared before the agent model): its own root as it always was.
  const ownWritable = !isolated || !state || ownBinding?.mode === 'exclusive-write';
  const own: BindingView['own'] = ownWritable
    ? { writable: true }
    : { writable: false, refusal: () => (otherWriter(store, c) ? 'OCCUPIED' : 'READ_ONLY') };
  const attached: AttachedWorkspace[] = [];
  const released = new Set<string>();
  for (const b of bindings) {
    if (b.own || b.workspace === c) continue;
    const anchor = anchorOf(b.workspace);
    if (b.workspace === 'canonical') {
      attached.push({ anchor, writable: b.mode === 'exclusive-write', backend: 'canonical', checkoutPath: platform.repo, pinnedSha: null });
      continue;
    }
    const w = store.workspaces.get(b.workspace);
    if (w?.state !== 'ready' || w.backend === 'shared') {
      released.add(anchor);
      continue;
    }
    attached.push({
      anchor,
      writable: b.mode === 'exclusive-write',
      backend: w.backend as Exclude<Backend, 'shared'>,
      checkoutPath: checkoutOf(platform, w.conversation, w.backend),
      pinnedSha: w.pinnedSha,
    });
  }
  const bound = new Set(bindings.map((b) => b.workspace));
  for (const b of store.bindings.historyOfHolder(c)) {
    if (b.endReason === 'workspace-released' && !bound.has(b.workspace)) released.add(anchorOf(b.workspace));
  }
  const activeId = state?.active ?? c;
  const activeAnchor = activeId === c ? anchorOf(c) : anchorOf(activeId);
  return { version: state?.version ?? null, active: { id: activeId, anchor: activeAnchor }, own, attached, released: [...released] };
}

/** True when a conversation other than `c` holds `c`'s workspace exclusive-write. */
function otherWriter(store: Pick<StateStore, 'bindings'>, c: string): boolean {
  const writer = store.bindings.writerOf(c);
  return writer !== null && writer !== c;
}
