/**
 * What a release does to the agent model (docs/ARCHITECTURE.md § Agent model): every binding the
 * released conversation holds ends (`release`), and so does every other conversation's binding
 * of its workspace (`workspace-released`), each with a `binding.end` event naming the holder that
 * lost it; their versions move, so their next call opens a view in which the workspace's anchor
 * answers `WORKSPACE_RELEASED`. And the ids no conversation may take: `canonical` and `home` name
 * workspaces gatefs shows itself.
 */
import { CANONICAL_WORKSPACE, HOME_WORKSPACE, type StateStore } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/**
 * Ends the bindings of and on `conversation`'s workspace at its release, with one `binding.end`
 * event per other holder. Result: the other conversations whose binding of it ended.
 */
export function endBindingsOf(store: StateStore, conversation: string): string[] {
  const lost = store.bindings.holdersOf(conversation).filter((b) => b.holder !== conversation);
  store.bindings.releaseWorkspace(conversation);
  for (const b of lost) {
    store.runLog.append({
      type: 'binding.end',
      conversation: b.holder,
      data: { workspace: conversation, holder: b.holder, mode: b.mode, reason: 'workspace-released' },
    });
  }
  return lost.map((b) => b.holder);
}

/** `PREPARATION_FAILED` (data.reason `RESERVED_ID`) for `canonical` and `home`, which name no conversation. */
export function refuseReservedId(conversation: string): void {
  if (conversation !== CANONICAL_WORKSPACE && conversation !== HOME_WORKSPACE) return;
  throw new WorkspaceError(
    'PREPARATION_FAILED',
    `'${conversation}' is reserved: it names ${conversation === HOME_WORKSPACE ? "the agent's home (/home)" : 'the source checkout (/canonical)'}, never a conversation; choose another id`,
    { conversation, reason: 'RESERVED_ID' },
  );
}
