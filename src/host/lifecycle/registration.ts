/**
 * Turning workspace records into Registry entries: `preparing` and `released` entries carry no
 * namespace; `ready` ones get a freshly opened workspace view. Used by preparation, release,
 * recovery on start, and the lazy refresh that lets one process see workspaces another
 * process prepared.
 *
 * A record supplies no host path and no authority: the checkout is derived from the state
 * directory and the id (`checkoutOf`), and the tools and mounts are those the manifest gives
 * the record's role now (the manifest is the authority; what the record kept is history).
 */
import type { BindingRequests, HandoffRequests, SnapshotRequests, WorkRequests } from '../../../tools/index.js';
import type { DescribeRequest } from '../../../tools/index.js';
import { isToolErrorCode, ToolFailure } from '../../../tools/index.js';
import type { IdSource, Sandbox, SandboxPlan } from '../../ports/index.js';
import { CommandService, OverlayChangeKeeper, sandboxPlan, type CommandRuns, type CopyFacts, type PlanFacts } from '../commands/index.js';
import { bindingFactsOf } from '../commands/index.js';
import type { Role } from '../../manifest/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import type { StateStore } from '../../state/index.js';
import type { Registration, Registry } from '../../gate/index.js';
import type { Manifest } from '../../manifest/index.js';
import { workspaceData } from './workspace-data.js';
import { emptyWork } from './empty-work.js';
import { openWorkspaceView, type WorkspaceView } from '../views/index.js';
import { attachDisclosure } from '../../disclosure/index.js';
import { findRole } from '../../manifest/index.js';
import type { LowerFolders } from '../lower/index.js';
import type { HostPlatform } from '../platform/index.js';
import { checkoutOf, homeFolderReady } from '../platform/index.js';
import { agentOfRecord } from './agent-identity.js';
import { WorkspaceError } from '../../workspace-error.js';
import { sameIdentity, type HostIdentity, type WritableLayer } from '../../../vfs/index.js';
import { ARTIFACTS_AT, INVENTORY_AT, routingHolds, routingOf, type Routing } from './routed-artifacts.js';
import { bindingViewOf } from './binding-view.js';

/** The open workspace views of this process, by conversation; closed on release and on host close. */
export type OpenViews = Map<string, WorkspaceView>;

/** What registering a workspace uses of the host (and what every lifecycle task that registers one passes on). */
export interface RegistrationParts {
  /** The authority for a record's tools and mounts. */
  readonly manifest: Manifest;
  readonly platform: HostPlatform;
  readonly store: StateStore;
  /** What the gate reads. */
  readonly registry: Registry;
  readonly views: OpenViews;
  /** The lower folders of `copy` workspaces (disk host over a git repository); absent: served from git objects. */
  readonly lowers?: LowerFolders;
  /** What agents' commands run with (absent: the command tools answer `BACKEND_UNAVAILABLE`). */
  readonly commands?: {
    readonly sandbox: Sandbox;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly runs: CommandRuns;
    readonly ids: IdSource;
    /**
     * Takes a snapshot of `conversation`'s workspace labelled `label` (reason `exec`) and answers
     * its id: called before each `exec` command of a role with `exec: { checkpoint: true }`.
     */
    readonly checkpoint?: (conversation: string, label: string) => Promise<string>;
  };
  /** The diff, commit and submit service of the `worktree` workspace of `conversation` pinned at `pinnedSha` (src/host/work/work-service.ts). */
  workFor(conversation: string, pinnedSha: string): WorkRequests;
  /** The `checkpoint` and `rollback` port of `conversation` (src/host/snapshots/); absent: those tools answer `BACKEND_UNAVAILABLE`. */
  snapshotsFor?(conversation: string): SnapshotRequests;
  /** The `handoff` and `end` port of `conversation` (src/host/artifacts/); absent: those tools answer `BACKEND_UNAVAILABLE`. */
  handoffsFor?(conversation: string): HandoffRequests;
  /** The `attach`, `detach` and `switch` port of `conversation` (src/host/agents/); absent: those tools answer `BACKEND_UNAVAILABLE`. */
  bindingsFor?(conversation: string): BindingRequests;
  /** The execution snapshot of `conversation`, for `whereami` (src/host/agents/); absent: that tool answers `BACKEND_UNAVAILABLE`. */
  describeFor?(conversation: string): DescribeRequest;
  /**
   * Writes the seed inventory of the `shared` receiver `conversation` into its inventory folder
   * (which exists), atomically (src/host/artifacts/); absent: the folder is shown without one.
   */
  writeInventory?(conversation: string): void;
}

/** The identity of the workspace folder each open view was opened over (null: the platform has none). */
const viewFolders = new WeakMap<WorkspaceView, HostIdentity | null>();
/** The routed handoffs each open view was opened with (src/host/lifecycle/routed-artifacts.ts). */
const viewRouting = new WeakMap<WorkspaceView, Routing>();
/** The bindings version each open view was opened at (src/host/lifecycle/binding-view.ts). */
const viewBindings = new WeakMap<WorkspaceView, number | null>();

/** The registry entry for a record in a state without a namespace. */
export function registrationOf(record: WorkspaceRecord, state: 'preparing' | 'released'): Registration {
  return { conversation: record.conversation, state, role: record.role, tools: new Set(workspaceData(record).tools) };
}

/**
 * Opens the record's view and registers it `ready` (closing any view it replaces; with
 * `keepReplaced`, the replaced view is left open: the caller closes it once the calls in flight
 * over it have finished). A `shared` receiver's seed inventory is written first. Throws what
 * `openWorkspaceView` throws (`PREPARATION_FAILED` for a missing folder), `PREPARATION_FAILED`
 * (reason `BAD_CONVERSATION_ID`) for a record whose id is not one, and `ManifestError`
 * `UNKNOWN_ROLE` when the manifest no longer has the record's role; nothing is registered then.
 */
export function registerReady(parts: RegistrationParts, record: WorkspaceRecord, options: { keepReplaced?: boolean } = {}): Registration {
  const { platform, views, lowers: hostLowers } = parts;
  const role = findRole(parts.manifest, record.role);
  const checkoutPath = checkoutOf(platform, record.conversation, record.backend);
  if (record.backend !== 'shared') refuseLinkedFolder(platform, record.conversation, checkoutPath);
  const objects = record.pinnedSha ? platform.git.objects : null;
  const disclosure = attachDisclosure({ store: parts.store, git: platform.git }, { ...record, checkoutPath });
  const lowers = record.backend === 'copy' ? hostLowers : undefined;
  const lowerFolder = lowers?.readyFolder(record) ?? null;
  const routing = routingOf(parts, record.conversation, record.backend);
  const bound = bindingViewOf(parts, record);
  if (routing?.inventoryFolder) {
    platform.makeFolder(routing.inventoryFolder);
    parts.writeInventory?.(record.conversation);
  }
  const opened = openWorkspaceView(platform, objects, {
    ...(disclosure ? { wrapRoot: disclosure.wrapRoot } : {}),
    ...(lowers && !lowerFolder ? { onLowerUse: () => lowers.request(record.conversation) } : {}),
    conversation: record.conversation,
    backend: record.backend,
    checkoutPath,
    pinnedSha: record.pinnedSha,
    mounts: role.workspace.mounts,
    shares: record.backend === 'shared' ? [] : role.share,
    home: homeFolderReady(platform, agentOfRecord(parts.store, record)).folder,
    ...(routing ? { artifactMounts: routedMounts(routing) } : {}),
    attached: bound.attached,
    released: bound.released,
    own: bound.own,
    active: bound.active.anchor,
  });
  const replaced = views.get(record.conversation);
  const view = opened;
  viewFolders.set(view, record.backend === 'shared' ? null : platform.identityOf(checkoutPath));
  if (routing) viewRouting.set(view, routing);
  viewBindings.set(view, bound.version);
  if (!options.keepReplaced) replaced?.close();
  views.set(record.conversation, view);
  if (lowerFolder) lowers?.upgrade(record.conversation);
  const service = disclosure?.service();
  const registration: Registration = {
    conversation: record.conversation,
    state: 'ready',
    role: record.role,
    tools: new Set(role.tools),
    namespace: view.namespace,
    ...(service ? { disclosure: service } : {}),
    ...(record.backend === 'worktree' && record.pinnedSha ? { work: parts.workFor(record.conversation, record.pinnedSha) } : {}),
    ...(record.backend === 'empty' ? { work: emptyWork(record.conversation) } : {}),
    ...(record.backend !== 'shared' && parts.snapshotsFor ? { snapshots: parts.snapshotsFor(record.conversation) } : {}),
    ...(parts.handoffsFor && role.tools.some((t) => t === 'handoff' || t === 'end')
      ? { handoffs: parts.handoffsFor(record.conversation) }
      : {}),
    ...(parts.bindingsFor ? { bindings: parts.bindingsFor(record.conversation) } : {}),
    ...(parts.describeFor ? { describe: parts.describeFor(record.conversation) } : {}),
    ...commandsOf(parts, record, role, checkoutPath, view),
  };
  parts.registry.set(registration);
  return registration;
}

/** `STATE_UNTRUSTED` (data.reason `LINK_IN_STATE_DIR`) when the workspace folder at `checkoutPath` is a symbolic link. */
function refuseLinkedFolder(platform: HostPlatform, conversation: string, checkoutPath: string): void {
  if (platform.folderState(checkoutPath) !== 'link') return;
  throw new WorkspaceError(
    'STATE_UNTRUSTED',
    `the workspace folder '${checkoutPath}' is a symbolic link: gatefs did not make it, and never serves through it`,
    {
      conversation,
      reason: 'LINK_IN_STATE_DIR',
      hint: 'remove the link after checking what it points to, then prepare the conversation again',
    },
  );
}

/**
 * True when this process's open view of `record` is over the workspace folder that is at its
 * derived path now: false when another process released the workspace and prepared it again
 * (a new folder; the view still holds the removed one) or removed it. Always true for `shared`
 * and on a platform without folder identities (the memory host is one process).
 */
export function viewIsCurrent(parts: Pick<RegistrationParts, 'views' | 'platform'>, record: WorkspaceRecord): boolean {
  const view = parts.views.get(record.conversation);
  if (!view) return false;
  const then = viewFolders.get(view) ?? null;
  if (then === null) return true;
  const now = parts.platform.identityOf(checkoutOf(parts.platform, record.conversation, record.backend));
  return now !== null && sameIdentity(now, then);
}

/** The view's artifact mounts for a routing: the routed folders, or a `shared` receiver's inventory folder at `/artifacts`. */
function routedMounts(routing: Routing | undefined): { path: string; folder: string }[] {
  if (!routing) return [];
  if (routing.inventoryFolder) return [{ path: INVENTORY_AT, folder: routing.inventoryFolder }];
  return [...routing.artifactMounts];
}

/**
 * True while this process's open view of `conversation` shows the handoffs routed to it now (or
 * it has none, or is in no run): one indexed read per call (src/host/lifecycle/routed-artifacts.ts).
 * When a handoff to a `shared` receiver arrived, its seed inventory is written again here and
 * the answer is true; false when an isolated receiver's view must be opened again to show a new
 * routed folder.
 */
export function followRouting(
  parts: Pick<RegistrationParts, 'views' | 'platform' | 'store' | 'writeInventory'>,
  conversation: string,
): boolean {
  const view = parts.views.get(conversation);
  const seen = view ? viewRouting.get(view) : undefined;
  if (!view || !seen) return true;
  const backend = seen.shared ? 'shared' : 'worktree';
  if (routingHolds(parts, conversation, backend, seen)) return true;
  if (!seen.shared) return false;
  const now = routingOf(parts, conversation, 'shared');
  if (now) viewRouting.set(view, now);
  parts.writeInventory?.(conversation);
  return true;
}

/**
 * True while this process's open view of `conversation` shows its bindings as the store has them
 * now (or no view is open): one indexed read per call (`store.bindings.stateOf`). False when an
 * attach, detach, switch or release here or in another process moved its version: the view is
 * opened again (src/host/lifecycle/registry-refresh.ts).
 */
export function followBindings(parts: Pick<RegistrationParts, 'views' | 'store'>, conversation: string): boolean {
  const view = parts.views.get(conversation);
  if (!view) return true;
  const seen = viewBindings.get(view);
  if (seen === undefined) return true;
  return (parts.store.bindings.stateOf(conversation)?.version ?? null) === seen;
}

/**
 * `followRouting` and `followBindings` in one read (`store.viewStamps`: the run's newest handoff
 * id and the bindings version in one statement): what every call of a ready conversation asks
 * (src/host/lifecycle/synced-registry.ts `isStale`). False when the bindings version moved;
 * when the run has a newer handoff, `followRouting` answers (it reads the routing again).
 */
export function followView(
  parts: Pick<RegistrationParts, 'views' | 'platform' | 'store' | 'writeInventory'>,
  conversation: string,
): boolean {
  const view = parts.views.get(conversation);
  if (!view) return true;
  const routing = viewRouting.get(view);
  const bindings = viewBindings.get(view);
  if (!routing || bindings === undefined) return followRouting(parts, conversation) && followBindings(parts, conversation);
  const stamp = parts.store.viewStamps.of(routing.run, conversation);
  if (stamp.bindingsVersion !== bindings) return false;
  return stamp.lastHandoff === routing.lastId || followRouting(parts, conversation);
}

/** Closes the conversation's view, if one is open. */
export function closeView(views: OpenViews, conversation: string): void {
  views.get(conversation)?.close();
  views.delete(conversation);
}

/** The tools that run commands: a registration whose role declares one gets a command service. */
const COMMAND_TOOL_NAMES: ReadonlySet<string> = new Set(['exec', 'exec_output', 'exec_kill', 'check']);

/** The command service of a workspace whose role declares a command tool (`Registration.commands`), as a spreadable field. */
function commandsOf(
  parts: RegistrationParts,
  record: WorkspaceRecord,
  role: Role,
  checkoutPath: string,
  view: WorkspaceView,
): { commands?: CommandService } {
  const commands = parts.commands;
  if (!commands || !role.tools.some((t) => COMMAND_TOOL_NAMES.has(t))) return {};
  const { platform } = parts;
  const env: Record<string, string> = {};
  for (const name of role.exec.env) {
    const value = commands.env[name];
    if (value !== undefined) env[name] = value;
  }
  const root = `/worktrees/${record.conversation}`;
  // Read from the store when each command starts (src/host/commands/binding-facts.ts).
  const bound = () => bindingFactsOf(parts, record.conversation, record.role);
  const facts = (copy?: CopyFacts): PlanFacts => ({
    conversation: record.conversation,
    backend: record.backend,
    checkoutPath,
    repo: platform.repo,
    stateDir: platform.stateDir,
    mounts: role.workspace.mounts,
    share: role.share,
    authorityFiles: platform.authorityFiles ?? [],
    network: role.exec.network,
    env,
    ...(copy ? { copy } : {}),
    bindings: bound(),
    artifacts: routedMounts(routingOf(parts, record.conversation, record.backend)).map((m) => ({
      at: m.path.startsWith('/') ? m.path : `${root}/${m.path}`,
      host: m.folder,
    })),
    folderState: (path) => platform.folderState(path),
    join: (path, tail) => platform.join(path, tail),
    relativeInside: (from, path) => platform.relativeInside(from, path),
  });
  const isCopy = record.backend === 'copy';
  // The mount points bwrap will make in the workspace folder for routed folders (a copy's are made in its per-command overlay).
  const made = new WeakMap<SandboxPlan, string[]>();
  const planned = (plan: SandboxPlan): SandboxPlan => {
    if (isCopy || record.backend === 'shared') return plan;
    const points = [
      ARTIFACTS_AT,
      ...plan.binds.filter((b) => b.at.startsWith(`${root}/${ARTIFACTS_AT}/`)).map((b) => b.at.slice(root.length + 1)),
    ];
    if (points.length > 1)
      made.set(
        plan,
        points.filter((rel) => platform.folderState(platform.join(checkoutPath, rel)) === 'missing'),
      );
    return plan;
  };
  const keeper = isCopy ? new OverlayChangeKeeper(() => parts.views.get(record.conversation)?.namespace) : undefined;
  const service = new CommandService(
    { sandbox: commands.sandbox, store: parts.store, ids: commands.ids, runs: commands.runs, checks: parts.manifest.checks },
    {
      conversation: record.conversation,
      exec: role.exec,
      plan: (cwd) =>
        isCopy ? copyFactsOf(parts, record).then((copy) => sandboxPlan(facts(copy), cwd)) : planned(sandboxPlan(facts(), cwd)),
      defaultCwd: () => bound().defaultCwd,
      settle: (plan) => removeMadePoints(parts.views.get(record.conversation), root, made.get(plan) ?? []),
      ...(keeper ? { keepChanges: (changes) => keeper.keep(changes) } : {}),
      ...(commands.checkpoint ? { checkpoint: checkpointBefore(commands.checkpoint, record.conversation) } : {}),
      reachable: (path) => {
        try {
          view.namespace.resolve(path);
          return true;
        } catch {
          return false;
        }
      },
    },
  );
  return { commands: service };
}

/**
 * Removes the empty folders `points` (workspace-relative, parents first) that the sandbox made as
 * mount points, deepest first, through the view's workspace root (the confined walk: no link
 * followed). One that is not empty (the agent wrote there meanwhile), not a folder or gone is
 * left as it is.
 */
async function removeMadePoints(view: WorkspaceView | undefined, root: string, points: readonly string[]): Promise<void> {
  if (!view || points.length === 0) return;
  const layer = view.namespace.resolve(root).mount.layer as Partial<WritableLayer>;
  for (const rel of [...points].reverse()) {
    try {
      await layer.remove?.(rel);
    } catch {
      // Not empty, not a folder, or gone: not ours to take.
    }
  }
}

/**
 * The snapshot before a command of `conversation` (`CommandTarget.checkpoint`): a refusal the host
 * throws (a `WorkspaceError` with a tool error code: `BUSY`, `OCCUPIED`, `BACKEND_UNAVAILABLE`) is
 * answered to the agent as that code with a message of its own (a host message may name host
 * paths); anything else is thrown as it is.
 */
function checkpointBefore(take: (conversation: string, label: string) => Promise<string>, conversation: string) {
  return async (label: string): Promise<string> => {
    try {
      return await take(conversation, label);
    } catch (e) {
      if (e instanceof ToolFailure) throw e;
      if (e instanceof WorkspaceError && isToolErrorCode(e.code)) {
        throw new ToolFailure(e.code, `no snapshot could be taken before the command (${e.code}), so it did not run; retry it`);
      }
      throw e;
    }
  };
}

/** How long a command in a copy workspace waits for its lower folder being made elsewhere (100 ms steps). */
const LOWER_WAITS = 600;

/**
 * What a `copy` workspace's overlay is made of for a command: its whiteouts as the open view has
 * them, and its lower tree — the plain folder, or the pinned commit's lower folder, made first if
 * need be (src/host/lower/: requested, waited for, and the view switched to it). Throws
 * `ToolFailure` `BACKEND_UNAVAILABLE` when the commit cannot be checked out here, `BUSY` when
 * another process is still making it after a minute.
 */
async function copyFactsOf(parts: RegistrationParts, record: WorkspaceRecord): Promise<CopyFacts> {
  const { platform } = parts;
  const scratch = platform.join(platform.stateDir, `exec/${record.conversation}`);
  const root = parts.views.get(record.conversation)?.namespace.resolve(`/worktrees/${record.conversation}`).mount.layer as
    | { whiteouts?: () => Promise<string[]> }
    | undefined;
  if (!root?.whiteouts) throw new Error(`the view of '${record.conversation}' is not a copy's overlay`);
  const whiteouts = await root.whiteouts();
  if (!record.pinnedSha) return { lower: platform.repo, whiteouts, scratch };
  // The memory host makes no lower folders; its scripted sandbox reads no folder.
  if (!parts.lowers) return { lower: platform.join(platform.stateDir, `lowers/${record.conversation}/tree`), whiteouts, scratch };
  return { lower: await readyLower(parts, parts.lowers, record.conversation), whiteouts, scratch };
}

/** The host path of `conversation`'s finished lower folder, asking for it and waiting while it is made (see `copyFactsOf`). */
async function readyLower(parts: RegistrationParts, lowers: LowerFolders, conversation: string): Promise<string> {
  for (let wait = 0; ; wait++) {
    const record = parts.store.workspaces.get(conversation);
    const ready = record ? lowers.readyFolder(record) : null;
    if (ready) {
      lowers.upgrade(conversation);
      return ready;
    }
    const lower = (record?.data as { lower?: { state?: unknown; sha?: unknown; reason?: unknown } } | undefined)?.lower;
    if (lower?.state === 'unavailable' && lower.sha === record?.pinnedSha) {
      throw new ToolFailure(
        'BACKEND_UNAVAILABLE',
        `commands in this copy workspace run over its pinned commit checked out as a folder, which cannot be made here (${String(lower.reason)}); nothing ran. Use a worktree workspace to run commands`,
      );
    }
    if (wait >= LOWER_WAITS)
      throw new ToolFailure('BUSY', 'the files of this copy workspace are still being checked out for commands; retry in a moment');
    lowers.request(conversation);
    await lowers.settled(conversation);
    const now = parts.store.workspaces.get(conversation);
    if (!now || !lowers.readyFolder(now)) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
