/**
 * `describeConversation`: a conversation's execution snapshot (tools/execution-snapshot.ts,
 * DESIGN § "Agent model"), computed from what the store and the manifest hold now — the
 * workspace record (backend, branch, base), the role the manifest gives it (tools, `exec`, the
 * checks), `store.bindings` (agent identity, active workspace, the bindings it holds, one indexed
 * read each), `store.runs.visitOf`, and the sandbox's cached probe (`Sandbox.known`: nothing is
 * spawned here). Synchronous and cheap: a few indexed reads in one read transaction
 * (bench/suites/describe.ts).
 *
 * Namespace paths only: anchors are derived from workspace ids, never from a record's host path.
 * A conversation prepared before migration 11 has no `agents` row: its own workspace is active,
 * held `exclusive-write` for an isolated backend, and its agent is its role's name.
 */
import type { ExecutionSnapshot, ProjectionKind, WorkspaceFacts } from '../../../tools/index.js';
import type { Backend, Manifest, Role } from '../../manifest/index.js';
import { findRole } from '../../manifest/index.js';
import type { Sandbox } from '../../ports/index.js';
import { type BindingRecord, CANONICAL_WORKSPACE, HOME_WORKSPACE, type StateStore } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';

/** What describing a conversation reads. */
export interface DescribeParts {
  readonly manifest: Manifest;
  readonly store: Pick<StateStore, 'workspaces' | 'bindings' | 'runs' | 'readTogether'>;
  /** The agents' command sandbox: only its cached probe is read (`known`). */
  readonly sandbox: Pick<Sandbox, 'known'>;
}

/** The tools that run commands: a role declaring one has a command policy. */
const COMMAND_TOOLS: ReadonlySet<string> = new Set(['exec', 'exec_output', 'exec_kill', 'check']);

/** The projection kind of a conversation's workspace, by its backend. */
const PROJECTION_OF: Readonly<Record<Backend, ProjectionKind>> = {
  worktree: 'git-worktree-root',
  shared: 'canonical-root',
  copy: 'copy-overlay',
  empty: 'scratch',
};

/** Where a workspace id is shown in every namespace. */
export function anchorOf(workspace: string): string {
  if (workspace === CANONICAL_WORKSPACE) return '/canonical';
  if (workspace === HOME_WORKSPACE) return '/home';
  return `/worktrees/${workspace}`;
}

/**
 * The execution snapshot of `conversation` (see the file comment). Throws `WorkspaceError`
 * `UNKNOWN_CONVERSATION` (none recorded, or its preparation failed), `WORKSPACE_RELEASED` (it
 * was released), and `ManifestError` `UNKNOWN_ROLE` when the manifest no longer has its role.
 */
export function describeConversation(parts: DescribeParts, conversation: string): ExecutionSnapshot {
  // One read transaction for its few reads: one consistent state, one read lock (bench/suites/describe.ts).
  return parts.store.readTogether(() => snapshotOf(parts, conversation));
}

/** `describeConversation`'s reads, run inside one read transaction. */
function snapshotOf(parts: DescribeParts, conversation: string): ExecutionSnapshot {
  const record = parts.store.workspaces.get(conversation);
  if (!record || record.state === 'failed') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
  }
  if (record.state === 'released') {
    throw new WorkspaceError('WORKSPACE_RELEASED', `the workspace of '${conversation}' was released`, { conversation });
  }
  const role = findRole(parts.manifest, record.role);
  const state = parts.store.bindings.stateOf(conversation);
  const held = parts.store.bindings.bindingsOf(conversation);
  const agent = state?.agent ?? record.role;
  const ownBinding = held.find((b) => b.own);
  const own: WorkspaceFacts = {
    ...facts(conversation, PROJECTION_OF[record.backend]),
    // No binding: a `shared` conversation writes the checkout without one; one prepared before migration 11 holds its own.
    accessMode: ownBinding?.mode ?? 'exclusive-write',
    acquiredAt: ownBinding?.acquiredAt ?? null,
  };
  const attached = held.filter((b) => !b.own && b.workspace !== conversation).map((b) => attachedFacts(parts, b));
  const activeId = state?.active ?? conversation;
  const active =
    activeId === conversation ? own : activeId === HOME_WORKSPACE ? homeFacts() : (attached.find((f) => f.id === activeId) ?? own);
  const visit = parts.store.runs.visitOf(conversation);
  return {
    conversation,
    agent,
    role: record.role,
    run: visit?.run ?? null,
    visit: visit?.visit ?? null,
    active,
    cwd: active.executionRoot,
    own,
    attached,
    home: { anchor: '/home', agent },
    worktreeRoot: record.backend === 'worktree' ? anchorOf(conversation) : null,
    branch: record.branch,
    base: { ref: record.baseRef, sha: record.pinnedSha },
    policy: { tools: [...role.tools], commands: commandPolicy(parts, role) },
  };
}

/** A workspace's facts without its binding. */
function facts(id: string, projectionKind: ProjectionKind): Omit<WorkspaceFacts, 'accessMode' | 'acquiredAt'> {
  const anchor = anchorOf(id);
  return { id, anchor, executionRoot: anchor, projectionKind };
}

/** `/home`: never bound, always there, writable (but for its runtime-owned `.gatefs/`). */
function homeFacts(): WorkspaceFacts {
  return { ...facts(HOME_WORKSPACE, 'agent-home'), accessMode: 'exclusive-write', acquiredAt: null };
}

/** An attached workspace's facts: `canonical`, or another conversation's workspace by its backend. */
function attachedFacts(parts: DescribeParts, binding: BindingRecord): WorkspaceFacts {
  const kind =
    binding.workspace === CANONICAL_WORKSPACE
      ? 'canonical-root'
      : PROJECTION_OF[parts.store.workspaces.get(binding.workspace)?.backend ?? 'worktree'];
  return { ...facts(binding.workspace, kind), accessMode: binding.mode, acquiredAt: binding.acquiredAt };
}

/** The role's command policy, or null when it declares no command tool. */
function commandPolicy(parts: DescribeParts, role: Role): ExecutionSnapshot['policy']['commands'] {
  if (!role.tools.some((t) => COMMAND_TOOLS.has(t))) return null;
  return {
    exec: role.tools.includes('exec'),
    check: role.tools.includes('check') ? parts.manifest.checks.map((c) => c.name) : [],
    sandbox: sandboxWord(parts.sandbox),
    network: role.exec.network,
    timeoutSeconds: role.exec.timeoutMs / 1000,
  };
}

/** What the sandbox's cached probe says: its kind, `unavailable`, or `unprobed` before any probe ended. */
function sandboxWord(sandbox: Pick<Sandbox, 'known'>): string {
  const support = sandbox.known?.();
  if (!support) return 'unprobed';
  return support.available ? support.kind : 'unavailable';
}

/**
 * `describeConversation`, after probing the sandbox when the snapshot would say `unprobed` (the
 * port's probe: once per process, cached; a role without commands never probes). What the
 * `whereami` tool, the MCP resource and `gatefs describe` answer. Throws what `describeConversation` throws.
 */
export async function describeProbed(
  parts: DescribeParts & { readonly sandbox: Pick<Sandbox, 'known' | 'probe'> },
  conversation: string,
): Promise<ExecutionSnapshot> {
  const first = describeConversation(parts, conversation);
  if (first.policy.commands?.sandbox !== 'unprobed') return first;
  await parts.sandbox.probe().catch(() => undefined);
  return describeConversation(parts, conversation);
}
