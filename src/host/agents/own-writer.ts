/**
 * `guardRollback`: the `rollback` tool's check of the conversation's own workspace binding. A
 * rollback restores every file of the own workspace without the gate's path walk; once the
 * conversation gave its write up (`attach(c, c, 'shared-read')`) and another conversation took
 * the workspace `exclusive-write`, it would overwrite and delete the holder's work. It answers
 * `OCCUPIED` naming the holder instead (one indexed read, `writerOf`). `checkpoint` only reads
 * and stays allowed.
 */
import { type SnapshotRequests, ToolFailure } from '../../../tools/index.js';
import type { StateStore } from '../../state/index.js';

/** `requests` of `conversation` with its `rollback` refused while another conversation holds its workspace exclusive-write. */
export function guardRollback(requests: SnapshotRequests, store: Pick<StateStore, 'bindings'>, conversation: string): SnapshotRequests {
  return {
    ...requests,
    rollback: async (snapshotId, holder) => {
      const writer = store.bindings.writerOf(conversation);
      if (writer !== null && writer !== conversation) {
        throw new ToolFailure(
          'OCCUPIED',
          `'${writer}' holds this workspace exclusive-write (you gave your write up): a rollback would overwrite its work; attach your workspace exclusive-write again once it lets go`,
          undefined,
          { holder: writer },
        );
      }
      return requests.rollback(snapshotId, holder);
    },
  };
}
