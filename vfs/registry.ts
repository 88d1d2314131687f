/**
 * The registry of workspaces: the VFS entries for `/worktrees/<id>`.
 *
 * The gate answers "may this conversation use a tool now?" from this table alone (a map
 * lookup, never git, never a process). The host's preparation side fills it: `preparing` when a
 * preparation starts, `ready` with the conversation's namespace once the checkout exists,
 * `released` after release.
 */
import { VfsError } from './errors.js';
import type { Namespace } from './namespace.js';

export type RegistrationState = 'preparing' | 'ready' | 'released';

/** What the gate needs to know about one conversation's workspace. */
export interface Registration {
  readonly conversation: string;
  readonly state: RegistrationState;
  readonly role: string;
  /** Tools the role declares (the gate refuses others with `TOOL_NOT_ALLOWED`). */
  readonly tools: ReadonlySet<string>;
  /** The conversation's namespace; present when `state` is `ready`. */
  readonly namespace?: Namespace;
  /** Free-form extras a later layer may need (backend, guarantee, disclosure handle, …). */
  readonly extras?: Readonly<Record<string, unknown>>;
}

/** Conversation ids: validated before any use as a path part (DESIGN.md vocabulary). */
export const CONVERSATION_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

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

export class Registry {
  private readonly entries = new Map<string, Registration>();

  /** The registration of a conversation, or undefined. */
  lookup(conversation: string): Registration | undefined {
    return this.entries.get(conversation);
  }

  /** Adds or replaces a registration. */
  set(registration: Registration): void {
    workspaceRoot(registration.conversation);
    this.entries.set(registration.conversation, registration);
  }

  /** Removes a registration entirely (a failed preparation leaves no half registration). */
  delete(conversation: string): void {
    this.entries.delete(conversation);
  }

  /** All registrations, sorted by conversation id. */
  list(): Registration[] {
    return [...this.entries.values()].sort((a, b) => (a.conversation < b.conversation ? -1 : 1));
  }
}
