/**
 * `refreshRegistration`: brings one registry entry in line with the store (src/host/lifecycle/
 * synced-registry.ts asks for it), so this process sees workspaces another process prepared,
 * released, or released and prepared again (over a new folder).
 */
import { codeOf, isCodedError } from '../../../vfs/index.js';
import { isConversationId } from '../../../vfs/index.js';
import type { Registration } from '../../gate/index.js';
import type { RunEventData } from '../../state/index.js';
import { isWorkspaceError } from '../../workspace-error.js';
import {
  closeView,
  followBindings,
  followRouting,
  registerReady,
  registrationOf,
  viewIsCurrent,
  type RegistrationParts,
} from './registration.js';

/** What the refresh uses of the host: what registering uses, and the releases running here. */
interface RefreshParts extends RegistrationParts {
  /** Conversations a release of this process is taking down (left as they are). */
  readonly releasing: ReadonlySet<string>;
  /** Resolves once no tool call of `conversation` is in flight in this process. */
  drain(conversation: string): Promise<void>;
}

/**
 * The registration of `conversation` as the store has it now (`current`: the entry the registry
 * holds). Left as it is while `busy(conversation)` (the host is closed, or a preparation runs
 * here) or a release runs here. A ready record whose view cannot open is unregistered with a
 * `registry.unavailable` event; result undefined when its folder is gone, else the error is
 * thrown to the lookup's caller.
 */
export function refreshRegistration(
  parts: RefreshParts,
  conversation: string,
  current: Registration | undefined,
  busy: (conversation: string) => boolean,
): Registration | undefined {
  if (busy(conversation) || !isConversationId(conversation) || parts.releasing.has(conversation)) return current;
  const record = parts.store.workspaces.get(conversation);
  // Another process may have released the workspace and prepared it again in between: a view
  // over the folder it replaced is opened anew.
  if (current?.state === 'ready' && record?.state === 'ready' && viewIsCurrent(parts, record)) {
    // A handoff routed to it since its view opened: the view is opened again to show it; calls
    // in flight finish over the one it replaces, which is closed once they have (the call
    // looking it up now counts too, and runs over the new view).
    if (!followRouting(parts, conversation) || !followBindings(parts, conversation)) {
      try {
        const replaced = parts.views.get(conversation);
        const registration = registerReady(parts, record, { keepReplaced: true });
        if (replaced)
          void parts.drain(conversation).then(
            () => replaced.close(),
            () => replaced.close(),
          );
        return registration;
      } catch {
        // A routed folder that cannot be opened: the workspace keeps serving as it was (and the next call tries again).
        return current;
      }
    }
    // Another process may have finished the copy's lower folder meanwhile.
    parts.lowers?.upgrade(conversation);
    return current;
  }
  if (current?.state === 'ready') closeView(parts.views, conversation);
  if (!record || record.state === 'failed') {
    parts.registry.delete(conversation);
    return undefined;
  }
  if (record.state === 'released' || record.state === 'preparing') {
    const registration = registrationOf(record, record.state);
    parts.registry.set(registration);
    return registration;
  }
  try {
    return registerReady(parts, record);
  } catch (e) {
    // No view can open: nothing stays registered over a closed one, and the run log says why.
    parts.registry.delete(conversation);
    parts.store.runLog.append({ type: 'registry.unavailable', conversation, data: failureData(e) });
    // Only a workspace folder that is gone means "no workspace here". Anything else (a link
    // where the folder was, the role gone from the manifest, no descriptors left) is an error
    // the caller must see (the gate answers INTERNAL or BUSY), not an unknown conversation.
    if (isWorkspaceError(e, 'PREPARATION_FAILED') && e.data.reason === 'MISSING_FOLDER') return undefined;
    throw e;
  }
}

/** What the run log keeps of a failure: its code, `data.reason` when it has one, its message. */
function failureData(e: unknown): RunEventData['registry.unavailable'] {
  const reason = isCodedError(e) ? e.data.reason : undefined;
  return {
    code: codeOf(e) ?? 'ERROR',
    ...(typeof reason === 'string' ? { reason } : {}),
    message: e instanceof Error ? e.message : String(e),
  };
}
