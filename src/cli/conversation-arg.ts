/**
 * Validates a conversation id given on the command line before it is used anywhere (it becomes
 * a path part and a branch name): `^[a-z0-9][a-z0-9_-]{0,62}$`.
 */
import { isConversationId } from '../../vfs/workspace-root.js';
import { UsageError } from './usage-error.js';

/** Returns `value` when it is a valid conversation id; throws `UsageError` naming the rule otherwise. */
export function conversationArg(value: string, command: string): string {
  const shown = value.slice(0, 80);
  if (!isConversationId(value)) {
    throw new UsageError(
      `"${shown}" is not a valid conversation id: use 1-63 lower-case letters, digits, "-" or "_", starting with a letter or digit`,
      command,
    );
  }
  return value;
}
