/**
 * `statusRowOf`: one `gatefs status` row from a workspace record — conversation, role, backend,
 * guarantee, state, branch, pinned SHA, its run and visit, the current occupancy holder, the platform's
 * confinement, its snapshots and auto-patches, and the lineage (a subagent's parent; a root's landed count). No host paths. A
 * holder whose process is gone is not shown (the next write or acquire ends it).
 *
 * The agent model's facts (src/state/binding-table.ts): the conversation's agent identity and
 * active workspace, the bindings it holds (its own workspace and what it attached) and the
 * bindings others hold of its workspace (`heldBy`), each with its mode and when it was acquired.
 */
import type { OccupancyRecord } from '../../state/index.js';
import type { OccupancyGuard } from '../occupancy/index.js';
import type { HostPlatform } from '../platform/index.js';
import type { StateStore } from '../../state/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import type { Backend, Guarantee } from '../../manifest/index.js';
import type { BindingMode } from '../../state/index.js';

/** One active binding the conversation holds (`WorkspaceStatus.bindings`). */
export interface HeldBinding {
  /** A conversation id (its own, or another's) or `canonical`. */
  workspace: string;
  mode: BindingMode;
  /** True for its own workspace. */
  own: boolean;
  acquiredAt: number;
}

/** One active binding of the conversation's workspace by another conversation (`WorkspaceStatus.heldBy`). */
export interface BindingHolder {
  holder: string;
  mode: BindingMode;
  acquiredAt: number;
}

/** A workspace's state as `host.status()` shows it (a failed record shows as `released`). */
export type WorkspaceState = 'preparing' | 'ready' | 'released';

/** One row of `gatefs status` / `host.status()`. Never contains host paths. */
export interface WorkspaceStatus {
  conversation: string;
  role: string;
  backend: Backend;
  guarantee: Guarantee;
  state: WorkspaceState;
  branch: string | null;
  pinnedSha: string | null;
  /** The run of the conversation's visit; null for a workspace prepared before runs existed (until it is prepared again). */
  run: string | null;
  /** Its visit number: the n-th conversation of its role in that run; null with `run`. */
  visit: number | null;
  /** Holder of the current occupancy, if any. */
  holder: string | null;
  /** The client that holder serves (an MCP client's `clientInfo.name`), when it said. */
  holderClient?: string;
  /**
   * How folder access is confined on this host: `procfs` (handle walk through /proc/self/fd),
   * `lstat-fallback` (the weaker per-component check, SECURITY.md §3) or `memory`.
   */
  confinement?: string;
  /** The conversation that started this one (a subagent), or null for a root conversation. */
  parent?: string | null;
  /** For a root conversation: how many submissions of its lineage (itself and its subagents) have landed. */
  landed?: number;
  /** The conversation's snapshots: how many, and the bytes they hold in the store. */
  snapshots?: { count: number; bytes: number };
  /** How many auto-patches its visits kept (`gatefs run status` lists them). */
  patches: number;
  /** The sha256 of the latest one (its object in the artifact store), or null when it has none. */
  latestPatch: string | null;
  /** Its agent identity (whose `/home` it sees); null for a workspace prepared before the agent model. */
  agent: string | null;
  /** Its active workspace id (its own, `home`, or one it attached); null with `agent`. */
  active: string | null;
  /** The bindings it holds now, oldest first (its own workspace, and what it attached). */
  bindings: HeldBinding[];
  /** The bindings other conversations hold of its workspace now, oldest first. */
  heldBy: BindingHolder[];
}

/** What a status row uses of the host: the store, the platform's confinement, and which holders are shown. */
export interface StatusParts {
  readonly store: StateStore;
  readonly platform: Pick<HostPlatform, 'confinement'>;
  readonly occupancy: Pick<OccupancyGuard, 'isShown'>;
}

/**
 * The status row of `record` (see the file comment). `landed`: the landed counts per root
 * (`StateStore.landedPerRoot`), when the caller has read them already for many rows.
 */
export function statusRowOf(parts: StatusParts, record: WorkspaceRecord, landed?: Map<string, number>): WorkspaceStatus {
  const row = statusOf(record, parts.store, parts.platform.confinement, (holder) => parts.occupancy.isShown(holder));
  const lineage = parts.store.lineage.of(record.conversation);
  if (lineage.parent !== null) return { ...row, parent: lineage.parent };
  return { ...row, parent: null, landed: (landed ?? parts.store.submissions.landedPerRoot()).get(record.conversation) ?? 0 };
}

/** The row without its lineage; `isLive` filters the holders shown. */
function statusOf(
  record: WorkspaceRecord,
  store: StateStore,
  confinement: string,
  isLive: (holder: OccupancyRecord) => boolean,
): WorkspaceStatus {
  const holders = store.occupancy.current(record.conversation).filter(isLive);
  const writer = holders.find((h) => h.mode === 'exclusive-write') ?? holders[0];
  const visit = store.runs.visitOf(record.conversation);
  const agentState = store.bindings.stateOf(record.conversation);
  const patches = store.runs.patches(record.conversation);
  return {
    conversation: record.conversation,
    role: record.role,
    backend: record.backend,
    guarantee: record.guarantee,
    state: record.state === 'failed' ? 'released' : record.state,
    branch: record.branch,
    pinnedSha: record.pinnedSha,
    run: visit?.run ?? null,
    visit: visit?.visit ?? null,
    holder: writer?.holder ?? null,
    ...(writer?.client ? { holderClient: writer.client } : {}),
    ...(confinement ? { confinement } : {}),
    snapshots: store.snapshots.totalsOf(record.conversation),
    patches: patches.length,
    latestPatch: patches.at(-1)?.sha256 ?? null,
    agent: agentState?.agent ?? null,
    active: agentState?.active ?? null,
    bindings: store.bindings
      .bindingsOf(record.conversation)
      .map((b) => ({ workspace: b.workspace, mode: b.mode, own: b.own, acquiredAt: b.acquiredAt })),
    heldBy: store.bindings
      .holdersOf(record.conversation)
      .filter((b) => b.holder !== record.conversation)
      .map((b) => ({ holder: b.holder, mode: b.mode, acquiredAt: b.acquiredAt })),
  };
}
