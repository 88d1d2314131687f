/**
 * Where a conversation's workspace sits in the namespace (`/worktrees/<id>`), and the grammar of a
 * conversation id, checked before an id is used as a path part anywhere (docs/ARCHITECTURE.md §
 * Glossary, "conversation"). In vfs/ because every namespace is laid out by it; the gate, the host,
 * the ports and the MCP server all check ids with `isConversationId`.
 */
import { VfsError } from './errors.js';

/** Conversation ids: validated before any use as a path part (docs/ARCHITECTURE.md § Glossary, "conversation"). */
const CONVERSATION_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** True when `id` is a valid conversation id. */
export function isConversationId(id: unknown): id is string {
  return typeof id === 'string' && CONVERSATION_ID.test(id);
}

/** The namespace root of a conversation. Throws `BAD_NAME` for an invalid id. */
export function workspaceRoot(conversation: string): string {
  if (!isConversationId(conversation)) {
    throw new VfsError('BAD_NAME', 'register', String(conversation).slice(0, 80), 'invalid conversation id');
  }
  return `/worktrees/${conversation}`;
}
