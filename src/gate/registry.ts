/**
 * The registry of workspaces: which conversations exist, their role, the tools that role
 * declares, and the namespace each is served at (`/worktrees/<id>`).
 *
 * The gate answers "may this conversation use a tool now?" from this table alone (a map
 * lookup, never git, never a process). The host's preparation side fills it: `preparing` when a
 * preparation starts, `ready` with the conversation's namespace once the checkout exists,
 * `released` after release.
 */
import type { Namespace } from '../../vfs/index.js';
import { workspaceRoot } from '../../vfs/index.js';
import type { DisclosureRequests } from '../../tools/index.js';
import type { WorkRequests } from '../../tools/index.js';
import type { CommandRequests } from '../../tools/index.js';
import type { SnapshotRequests } from '../../tools/index.js';
import type { HandoffRequests } from '../../tools/index.js';
import type { BindingRequests } from '../../tools/index.js';
import type { DescribeRequest } from '../../tools/index.js';

/** Where a workspace is in its life, as the gate sees it. */
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
  /**
   * The workspace's progressive disclosure, when its role has a policy and it is `ready`:
   * `request_files` calls it (absent: the tool answers `TOOL_NOT_ALLOWED`).
   */
  readonly disclosure?: DisclosureRequests;
  /** Diff, commit and submit for the workspace (a `worktree` workspace that is `ready`); absent: those tools answer `NOT_A_WORKTREE`. */
  readonly work?: WorkRequests;
  /** Commands in the workspace's sandbox (a `ready` workspace whose role declares a command tool); absent: those tools answer `BACKEND_UNAVAILABLE`. */
  readonly commands?: CommandRequests;
  /** The conversation's own snapshots (a `ready` workspace that takes them); absent: `checkpoint` and `rollback` answer `BACKEND_UNAVAILABLE`. */
  readonly snapshots?: SnapshotRequests;
  /** The conversation's `handoff` and `end` (a `ready` workspace whose role declares one); absent: those tools answer `BACKEND_UNAVAILABLE`. */
  readonly handoffs?: HandoffRequests;
  /** The conversation's `attach`, `detach` and `switch` (a `ready` workspace); absent: those tools answer `BACKEND_UNAVAILABLE`. */
  readonly bindings?: BindingRequests;
  /** The conversation's execution snapshot (a `ready` workspace of a host); absent: `whereami` answers `BACKEND_UNAVAILABLE`. */
  readonly describe?: DescribeRequest;
}

/** The registrations of one host, by conversation id (see the file comment). */
export class Registry {
  private readonly entries = new Map<string, Registration>();

  /** The registration of a conversation, or undefined. */
  lookup(conversation: string): Registration | undefined {
    return this.entries.get(conversation);
  }

  /** Adds or replaces a registration. Throws `VfsError` `BAD_NAME` for an invalid conversation id. */
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
