/**
 * A conversation's agent identity (docs/ARCHITECTURE.md § Agent model): whose home it sees at
 * `/home`. Given at preparation (`prepare({ agent })`, `--agent`), else kept from an earlier
 * preparation, else its role's (`defaultAgentOf`); a subagent's default is its parent's (the
 * subagents room passes it). Recorded in the store (`store.bindings.register`), read back with
 * `store.bindings.stateOf(c).agent`. A conversation keeps its agent: asking for another is refused.
 */
import type { Role } from '../../manifest/index.js';
import type { StateStore, WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { defaultAgentOf, homeFolderOf, type PathBase, seedAgentHome, type HostPlatform } from '../platform/index.js';

/**
 * The agent `conversation` is prepared for: `asked`, else the one it has, else its role's.
 * Throws `WorkspaceError` `PREPARATION_FAILED` with data.reason `BAD_AGENT_NAME` (outside the
 * conversation grammar) or `AGENT_MISMATCH` (the conversation has another agent; data.agent,
 * data.asked).
 */
export function agentForPreparation(
  base: PathBase,
  store: StateStore,
  conversation: string,
  asked: string | undefined,
  role: Role,
): string {
  const held = store.bindings.stateOf(conversation)?.agent;
  const agent = asked ?? held ?? defaultAgentOf(role.name);
  homeFolderOf(base, agent); // the grammar: BAD_AGENT_NAME
  if (held !== undefined && held !== agent) {
    throw new WorkspaceError('PREPARATION_FAILED', `conversation '${conversation}' belongs to agent '${held}', not '${agent}'`, {
      conversation,
      reason: 'AGENT_MISMATCH',
      agent: held,
      asked: agent,
      hint: 'a conversation keeps its agent: prepare it without --agent, or prepare another conversation for that agent',
    });
  }
  return agent;
}

/** The agent of a recorded workspace: the one the store has, else its role's (a workspace prepared before agents were recorded). */
export function agentOfRecord(store: StateStore, record: Pick<WorkspaceRecord, 'conversation' | 'role'>): string {
  return store.bindings.stateOf(record.conversation)?.agent ?? defaultAgentOf(record.role);
}

/**
 * Makes `agent`'s home, or the parts of its layout that are missing (src/host/platform/agent-home.ts),
 * and appends `home.seeded` (for `conversation`) when anything was made. Throws what
 * `seedAgentHome` throws (`STATE_UNTRUSTED` for a link in the home).
 */
export async function seedHomeFor(
  parts: { platform: HostPlatform; store: StateStore },
  conversation: string,
  agent: string,
): Promise<void> {
  const made = await seedAgentHome(parts.platform, agent);
  if (made.length > 0) parts.store.runLog.append({ type: 'home.seeded', conversation, data: { agent, made } });
}
