/**
 * The own workspace's write, for the tools that change it without the gate's path walk. Once a
 * conversation gave its write up (`attach(c, c, 'shared-read')`), its own root is read-only to
 * its file tools and commands; `rollback` (which restores every file) and `commit` (which moves
 * its branch and records what another holder wrote there) are refused too: `OCCUPIED` naming the
 * holder while another conversation holds the workspace `exclusive-write`, `READ_ONLY` while
 * nobody does. One indexed read (`bindingsOf`). `checkpoint`, `diff` and `submit` (which needs
 * a clean checkout and changes no file) stay allowed.
 */
import { type SnapshotRequests, ToolFailure, type WorkRequests } from '../../../tools/index.js';
import type { StateStore } from '../../state/index.js';

type Bindings = Pick<StateStore, 'bindings'>;

/** Throws the refusal of a change to `conversation`'s own workspace by `what`, when it gave its write up. */
function refuseGivenUp(store: Bindings, conversation: string, what: string): void {
  const own = store.bindings.bindingsOf(conversation).find((b) => b.own);
  if (!own || own.mode === 'exclusive-write') return;
  const writer = store.bindings.writerOf(conversation);
  if (writer !== null && writer !== conversation) {
    throw new ToolFailure(
      'OCCUPIED',
      `'${writer}' holds this workspace exclusive-write (you gave your write up): ${what} would change its work; attach your workspace exclusive-write again once it lets go`,
      undefined,
      { holder: writer },
    );
  }
  throw new ToolFailure(
    'READ_ONLY',
    `you gave this workspace's write up (shared-read): ${what} would change it; attach your workspace exclusive-write again first`,
  );
}

/** `requests` of `conversation` with its `rollback` refused while it has given its write up (see the file comment). */
export function guardRollback(requests: SnapshotRequests, store: Bindings, conversation: string): SnapshotRequests {
  return {
    ...requests,
    rollback: async (snapshotId, holder) => {
      refuseGivenUp(store, conversation, 'a rollback');
      return requests.rollback(snapshotId, holder);
    },
  };
}

/** `work` of `conversation` with its `commit` refused while it has given its write up (see the file comment). */
export function guardCommit(work: WorkRequests, store: Bindings, conversation: string): WorkRequests {
  return {
    diff: (request) => work.diff(request),
    commit: async (request) => {
      refuseGivenUp(store, conversation, 'a commit');
      return work.commit(request);
    },
    submit: (request) => work.submit(request),
    messages: (request) => work.messages(request),
  };
}
