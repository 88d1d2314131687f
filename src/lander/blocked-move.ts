/**
 * `blockedMoveText`: why a checked submission's move onto its target is blocked and what unblocks
 * it, in words for `gatefs lander status` and the submitter's `messages`. The move is blocked by
 * the checkout that has the target branch checked out (the source checkout): moving the branch
 * would overwrite its uncommitted changes, or files git does not track are in the way. Nothing
 * moved; the submission stays `checked` and the next `gatefs lander run` tries again.
 */
import type { BlockedMove } from '../state/index.js';

/** Files named in the text before the rest are counted. */
const SHOWN_FILES = 5;

/** What `blockedMoveText` answers: why, in one line, and what a person does about it. */
export interface BlockedMoveText {
  why: string;
  unblock: string;
}

/** The words for `blocked` on `target` (a full ref or a branch name). */
export function blockedMoveText(blocked: Pick<BlockedMove, 'reason' | 'files'>, target: string): BlockedMoveText {
  const branch = target.replace(/^refs\/heads\//, '');
  const shown = blocked.files.slice(0, SHOWN_FILES).join(', ');
  const more = blocked.files.length > SHOWN_FILES ? ` and ${blocked.files.length - SHOWN_FILES} more` : '';
  const files = blocked.files.length === 0 ? '' : ` (${shown}${more})`;
  const again = 'then run `gatefs lander run` again (nothing moved; the submission waits, checked)';
  if (blocked.reason === 'UNTRACKED_FILES') {
    return {
      why: `files git does not track${files} in the checkout that has ${branch} checked out are in the way of the landing`,
      unblock: `move or delete those files in the checkout that has ${branch} checked out (or add them to ${branch}), ${again}`,
    };
  }
  return {
    why: `moving ${branch} would overwrite uncommitted changes${files} in the checkout that has it checked out`,
    unblock: `commit, stash or discard those changes in the checkout that has ${branch} checked out, ${again}`,
  };
}
