/**
 * `WorkspaceHost`: the `Host` both factories return. It owns the registry the gate reads, the
 * preparation queue (p-queue; one task per conversation at a time in this process, the store's
 * lock across processes), release, occupancy, status and the run log. Everything that touches
 * disk or git goes through the `HostPlatform`; the gate never does. The tasks themselves live
 * in the rooms of src/host (lifecycle/, subagents/, work/, …), each given only the parts of
 * the host it uses (host-parts.ts).
 *
 * Occupancy records name the holder's process (pid + start time, from the liveness port); a
 * holder whose process is gone is ended by the next `acquire` or gated write
 * (`OccupancyGuard`). The gate is wrapped in a `CallTracker`, so a release can wait for the
 * calls in flight after it has taken the workspace out of service.
 */
import PQueue from 'p-queue';
import { type AgentHome, cleanAgentTmp, listAgentHomes } from '../platform/index.js';
import type { ToolDescriptor } from '../../../tools/index.js';
import type { ExecutionSnapshot } from '../../../tools/index.js';
import { describeConversation, describeProbed } from '../agents/index.js';
import { attachWorkspace, canonicalWriterBlocking, detachWorkspace, switchWorkspace } from '../agents/index.js';
import { type FileReference, type ResolveReferenceOptions, resolveReference } from '../agents/index.js';
import type { BindingResult, DetachResult, SwitchResult } from '../agents/index.js';
import type { BindingMode } from '../../state/index.js';
import type { WorkRequests } from '../../../tools/index.js';
import { ToolGate } from '../../gate/index.js';
import type { ToolGateApi } from '../../gate/index.js';
import type { EventFilter, RunEvent } from '../../state/index.js';
import type { MessageRecord } from '../../state/index.js';
import type { OccupancyMode, OccupancyRecord } from '../../state/index.js';
import type { BindingRecord } from '../../state/index.js';
import { isWorkspaceError, WorkspaceError } from '../../workspace-error.js';
import { hostApply, recordBaseAfterPrepare, setBaseAside, type ApplyOptions, type ApplyReport } from '../apply/index.js';
import { prepareWorkspace } from '../lifecycle/index.js';
import { recoverInterruptedRelease, recoverWorkspaces } from '../lifecycle/index.js';
import { followView, refreshRegistration } from '../lifecycle/index.js';
import { inventoryOf, type SeedInventory } from '../artifacts/index.js';
import { releaseWorkspace } from '../lifecycle/index.js';
import { SyncedRegistry } from '../lifecycle/index.js';
import { statusRowOf } from '../lifecycle/index.js';
import { claimAutoConversation, type AutoConversation, type AutoConversationRequest } from '../occupancy/index.js';
import { CallTracker } from '../occupancy/index.js';
import { discardSubagent, refuseUnlanded } from '../subagents/index.js';
import { landSubagent } from '../subagents/index.js';
import { startSubagent } from '../subagents/index.js';
import type { SubagentParts } from '../subagents/index.js';
import { landerStatus, runLander } from '../work/index.js';
import { operatorWork } from '../work/index.js';
import { declaredToolsOf, GATE_TOOLS } from './gate-tools.js';
import type { RestoreResult, SnapshotInfo, SnapshotOptions } from '../snapshots/index.js';
import type { Host, HostLander, HostRuns, HostSubagents, PrepareOptions, ReleaseOptions, ReleaseResult, WorkspaceStatus } from './host.js';
import { assembleParts, type HostParts, type WorkspaceHostOptions } from './host-parts.js';

/** The `Host` both factories return (see `Host`). */
export class WorkspaceHost implements Host {
  readonly gate: ToolGateApi;
  readonly lander: HostLander;
  readonly subagents: HostSubagents;
  readonly runs: HostRuns;
  private readonly parts: HostParts;
  private readonly queue: PQueue;
  private readonly inFlight = new Map<string, Promise<WorkspaceStatus>>();
  private readonly recovering = new Set<string>();
  private readonly calls: CallTracker;
  private closed = false;

  private constructor(private readonly options: WorkspaceHostOptions) {
    const registry = new SyncedRegistry(options.clock);
    const parts = assembleParts(options, registry, {
      drain: (conversation) => this.calls.drain(conversation),
      recoverLater: (conversation) => this.recoverLater(conversation),
    });
    this.parts = parts;
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    const busy = (conversation: string) => this.closed || this.inFlight.has(conversation);
    registry.syncWith(
      (conversation, current) => refreshRegistration(parts, conversation, current, busy),
      // A handoff routed to the conversation, or a binding attached, detached, switched or released,
      // since its view opened: one read per call answers both (src/host/lifecycle/registration.ts `followView`).
      (registration) => !followView(parts, registration.conversation),
    );
    this.calls = new CallTracker(
      new ToolGate({
        registry,
        runLog: { append: (event) => parts.store.runLog.appendSoon(event) },
        clock: options.clock,
        occupancy: {
          // A shared conversation's writes wait while another conversation holds canonical exclusive-write (src/host/agents/).
          blockingHolder: (conversation, holder) =>
            parts.occupancy.blockingHolder(conversation, holder) ?? canonicalWriterBlocking(parts.store, conversation),
        },
        tools: GATE_TOOLS,
        ...(options.crossProcessLocks ? { crossProcessLocks: options.crossProcessLocks } : {}),
        ...(options.writeDoors ? { writeDoor: options.writeDoors } : {}),
      }),
    );
    this.gate = this.calls;
    this.lander = this.landerOf(options);
    this.subagents = this.subagentsOf(parts);
    this.runs = this.runsOf(parts);
  }

  /**
   * Builds a host and recovers the state already in the store (registrations, interrupted
   * preparations). A quiet host (`options.quiet`) does neither recover nor record its start:
   * its registry is filled from the store on lookup.
   */
  static async start(options: WorkspaceHostOptions): Promise<WorkspaceHost> {
    const host = new WorkspaceHost(options);
    if (options.quiet) return host;
    await recoverWorkspaces(host.parts);
    // A restore a crash interrupted is finished before anything is served.
    await host.parts.snapshots.recover();
    // Artifact folders a crash left without their handoff record, temp objects of dead writers.
    host.parts.artifacts.recover();
    options.store.runLog.append({
      type: 'host.start',
      conversation: null,
      data: { confinement: options.platform.confinement, workspaces: options.store.workspaces.list().length },
    });
    return host;
  }

  /**
   * Prepares (or reuses) a conversation's workspace; see `prepareWorkspace`. Concurrent calls
   * for one conversation in this process share one task.
   */
  prepare(options: PrepareOptions): Promise<WorkspaceStatus> {
    this.checkOpen();
    const running = this.inFlight.get(options.conversation);
    if (running) return running;
    const task = this.queue
      .add(async () => {
        const record = await prepareWorkspace(this.parts, options, options.chain ?? []);
        // A plain-folder copy's base for `apply`; without it, apply refuses the paths it cannot check.
        await recordBaseAfterPrepare(this.parts, record).catch(() => undefined);
        return statusRowOf(this.parts, record);
      })
      .finally(() => this.inFlight.delete(options.conversation));
    this.inFlight.set(options.conversation, task);
    return task;
  }

  status(): WorkspaceStatus[] {
    this.checkOpen();
    const landed = this.parts.store.submissions.landedPerRoot();
    return this.parts.store.workspaces
      .list()
      .filter((r) => r.state !== 'failed')
      .map((r) => statusRowOf(this.parts, r, landed));
  }

  bindingHistory(options: { last?: number } = {}): BindingRecord[] {
    this.checkOpen();
    return this.parts.store.bindings.recent(options.last ?? 100);
  }

  events(filter?: EventFilter): RunEvent[] {
    this.checkOpen();
    return this.parts.store.runLog.read(filter);
  }

  /** Empties an agent home's `tmp/` (src/host/platform/agent-home.ts `cleanAgentTmp`) and logs `home.tmp_cleaned`. */
  async cleanHomeTmp(agent: string): Promise<number> {
    this.checkOpen();
    const entries = await cleanAgentTmp(this.parts.platform, agent);
    this.parts.store.runLog.append({ type: 'home.tmp_cleaned', conversation: null, data: { agent, entries } });
    return entries;
  }

  /** Every agent home (src/host/platform/agent-home.ts `listAgentHomes`). */
  homes(): Promise<AgentHome[]> {
    this.checkOpen();
    return listAgentHomes(this.parts.platform);
  }

  /**
   * Releases a workspace; see `releaseWorkspace` (keeps work unless `discard`, refuses a live
   * holder unless `force`, leaves the workspace serving when refused or failed) and, for a
   * subagent, `refuseUnlanded`.
   */
  release(conversation: string, options: ReleaseOptions = {}): Promise<ReleaseResult> {
    return this.queuedRelease(conversation, async () => {
      const chain = options.chain ?? this.parts.store.lineage.of(conversation).chain;
      await refuseUnlanded(this.parts, conversation, chain);
      // An untouched plain-folder copy's apply base is no work (src/host/apply/host-apply.ts).
      const restoreBase = await setBaseAside(this.parts, conversation);
      let result: ReleaseResult;
      try {
        result = await releaseWorkspace(this.parts, conversation, options, chain);
      } catch (e) {
        await restoreBase().catch(() => undefined);
        throw e;
      }
      return this.afterRelease(conversation, result, options);
    });
  }

  /** Takes a snapshot of a conversation's workspace; see `SnapshotService` (src/host/snapshots/). */
  snapshot(conversation: string, options: SnapshotOptions = {}): Promise<SnapshotInfo> {
    this.checkOpen();
    if (this.inFlight.has(conversation)) return Promise.reject(this.beingPrepared(conversation));
    return this.parts.snapshots.snapshot(conversation, options);
  }

  /** Restores a snapshot; see `restoreSnapshot` (src/host/snapshots/restore-snapshot.ts). */
  restore(conversation: string, snapshotId: string): Promise<RestoreResult> {
    this.checkOpen();
    if (this.inFlight.has(conversation)) return Promise.reject(this.beingPrepared(conversation));
    return this.parts.snapshots.restore(conversation, snapshotId);
  }

  snapshots(conversation: string): SnapshotInfo[] {
    this.checkOpen();
    return this.parts.snapshots.list(conversation);
  }

  inventory(conversation: string): SeedInventory {
    this.checkOpen();
    return inventoryOf(this.parts, conversation);
  }

  /** After a release: the snapshots go with the workspace unless kept (`keepSnapshots`). */
  private async afterRelease(conversation: string, result: ReleaseResult, options: ReleaseOptions): Promise<ReleaseResult> {
    if (options.keepSnapshots) return result;
    const backend = this.parts.store.workspaces.get(conversation)?.backend ?? 'worktree';
    const dropped = await this.parts.snapshots.drop(conversation, backend).catch((e: unknown) => {
      this.parts.store.runLog.append({
        type: 'recover.failed',
        conversation,
        data: { message: `snapshots not removed: ${(e as Error)?.message ?? String(e)}` },
      });
      return 0;
    });
    return dropped > 0 ? { ...result, snapshotsDropped: dropped } : result;
  }

  private beingPrepared(conversation: string): WorkspaceError {
    return new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation });
  }

  /** See `Host.work` and `operatorWork`. */
  work(conversation: string): WorkRequests {
    this.checkOpen();
    return operatorWork(this.parts.registry, conversation);
  }

  /**
   * Writes a `copy` workspace's changes back to its source folder; see `hostApply`
   * (src/host/apply/). Runs in the task queue; `BUSY` while the conversation is being prepared.
   */
  apply(conversation: string, options: ApplyOptions = {}): Promise<ApplyReport> {
    this.checkOpen();
    if (this.inFlight.has(conversation)) {
      return Promise.reject(new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation }));
    }
    return this.queue.add(() => hostApply(this.parts, conversation, options));
  }

  /** The messages port: what the lander delivered to `conversation` (every message when omitted), oldest first. */
  messages(conversation?: string): MessageRecord[] {
    this.checkOpen();
    return this.parts.store.messages.list(conversation);
  }

  /**
   * Occupies a conversation's workspace for `holder` as this process (default mode
   * `exclusive-write`: other holders' writes are then refused by the gate with `OCCUPIED`).
   * Holders whose process is gone are ended first (`occupancy.holder_gone`). `client` names
   * whom the holder serves (an MCP client's `clientInfo.name`; shown as the holder by `status`
   * and the status page). Throws `WorkspaceError` `UNKNOWN_CONVERSATION`, or `OCCUPIED` naming
   * the current live holder.
   */
  acquire(conversation: string, holder: string, mode: OccupancyMode = 'exclusive-write', client?: string): OccupancyRecord {
    this.checkOpen();
    if (!this.parts.store.workspaces.get(conversation)) {
      throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
    }
    const record = this.parts.occupancy.acquire(conversation, holder, mode, client);
    this.parts.store.runLog.append({ type: 'occupancy.acquire', conversation, data: { holder, mode } });
    return record;
  }

  /** See `Host.declaredTools` and `declaredToolsOf`. */
  declaredTools(conversation: string, role?: string): ToolDescriptor[] {
    this.checkOpen();
    return declaredToolsOf(this.parts, conversation, role);
  }

  /**
   * The conversation id of a client window in a working folder (`serve --conversation auto`);
   * see `claimAutoConversation`. No workspace is prepared here.
   */
  autoConversation(request: AutoConversationRequest): AutoConversation {
    this.checkOpen();
    return claimAutoConversation(this.parts.store, this.parts.liveness, request);
  }

  /** See `Host.describe` and `describeConversation` (src/host/agents/). */
  describe(conversation: string): ExecutionSnapshot {
    this.checkOpen();
    return describeConversation(this.describeParts(), conversation);
  }

  /** See `Host.describeProbed`. */
  describeProbed(conversation: string): Promise<ExecutionSnapshot> {
    this.checkOpen();
    return describeProbed(this.describeParts(), conversation);
  }

  /** See `Host.resolveReference` and `resolveReference` (src/host/agents/resolve-reference.ts). */
  resolveReference(reference: string, options: ResolveReferenceOptions = {}): Promise<FileReference> {
    this.checkOpen();
    return resolveReference(this.parts, reference, options);
  }

  private describeParts() {
    return { manifest: this.parts.manifest, store: this.parts.store, sandbox: this.options.sandbox };
  }

  /** Ends `holder`'s occupancy. Result: true when it held one. */
  /** See `Host.attach` and `attachWorkspace` (src/host/agents/). */
  attach(conversation: string, workspace: string, mode: BindingMode = 'shared-read'): BindingResult {
    this.checkOpen();
    return attachWorkspace(this.parts, conversation, workspace, mode);
  }

  /** See `Host.detach` and `detachWorkspace`. */
  detach(conversation: string, workspace: string): DetachResult {
    this.checkOpen();
    return detachWorkspace(this.parts, conversation, workspace);
  }

  /** See `Host.switch` and `switchWorkspace`. */
  switch(conversation: string, workspace: string): SwitchResult {
    this.checkOpen();
    return switchWorkspace(this.parts, conversation, workspace);
  }

  releaseOccupancy(conversation: string, holder: string): boolean {
    this.checkOpen();
    const released = this.parts.store.occupancy.release(conversation, holder);
    if (released) this.parts.store.runLog.append({ type: 'occupancy.release', conversation, data: { holder } });
    return released;
  }

  /** Ends every agent command, waits for running preparations, closes every folder handle and the store. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.parts.commandRuns.stopAll();
    await this.parts.lowers?.close();
    await this.queue.onIdle();
    for (const view of this.parts.views.values()) view.close();
    this.parts.views.clear();
    this.parts.store.close();
    this.options.onClose?.();
  }

  /** The lander over this host's parts, with the hooks of `options` (see `runLander`). */
  private landerOf(options: WorkspaceHostOptions): HostLander {
    const hooks = {
      checks: options.checks,
      ...(options.savePoint ? { savePoint: options.savePoint } : {}),
      ...(options.wait ? { wait: options.wait } : {}),
    };
    return {
      run: (run = {}) => {
        this.checkOpen();
        return runLander(this.parts, hooks, run.target);
      },
      status: () => {
        this.checkOpen();
        return landerStatus(this.parts.store);
      },
    };
  }

  /** Runs over this host's parts (src/host/artifacts/); a handoff or end waits for no queue but its conversation's own turn. */
  private runsOf(parts: HostParts): HostRuns {
    const open = <T>(conversation: string, task: () => Promise<T>): Promise<T> => {
      this.checkOpen();
      if (this.inFlight.has(conversation)) return Promise.reject(this.beingPrepared(conversation));
      return task();
    };
    return {
      list: () => {
        this.checkOpen();
        return parts.artifacts.list();
      },
      status: (run) => {
        this.checkOpen();
        return parts.artifacts.status(run);
      },
      artifacts: (run) => {
        this.checkOpen();
        return parts.artifacts.artifacts(run);
      },
      handoff: (conversation, request) => open(conversation, () => parts.artifacts.handoff(conversation, request)),
      end: (conversation, request = {}) => open(conversation, () => parts.artifacts.end(conversation, request)),
    };
  }

  /** Subagents over this host's parts, preparing and releasing through its queue (src/host/subagents/). */
  private subagentsOf(hostParts: HostParts): HostSubagents {
    const parts: SubagentParts = {
      manifest: hostParts.manifest,
      store: hostParts.store,
      platform: hostParts.platform,
      prepare: (options) => this.prepare(options),
      releaseChecked: (conversation, options) =>
        this.queuedRelease(conversation, async () => {
          const release = (discard: boolean) => releaseWorkspace(hostParts, conversation, { ...options, discard }, options.chain);
          const result = await release(false).catch(async (e: unknown) => {
            // A child started from working state holds its parent's untracked and ignored files: unchanged, they are not its work.
            const parent = hostParts.store.lineage.of(conversation).parent;
            const files = isWorkspaceError(e, 'DIRTY_WORKTREE') ? ((e.data as { files?: string[] }).files ?? []) : [];
            if (parent && files.length > 0 && (await hostParts.snapshots.untouchedSinceFork(conversation, parent, files)))
              return release(true);
            throw e;
          });
          return this.afterRelease(conversation, result, options);
        }),
    };
    return {
      start: async (options) => {
        const started = await startSubagent(parts, options);
        if (options.from !== 'working') return started;
        const taken = await hostParts.snapshots.fork(options.parent, options.child);
        hostParts.store.runLog.append({
          type: 'subagent.start',
          conversation: options.child,
          data: { parent: options.parent, base: started.pinnedSha ?? '', from: 'working', snapshot: Number(taken.snapshotId) },
        });
        return started;
      },
      land: (child) => landSubagent(parts, child),
      discard: (child) => discardSubagent(parts, child),
    };
  }

  /** Runs a release of `conversation` through the task queue; `BUSY` while it is being prepared here. */
  private queuedRelease(conversation: string, release: () => Promise<ReleaseResult>): Promise<ReleaseResult> {
    this.checkOpen();
    if (this.inFlight.has(conversation)) {
      return Promise.reject(new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation }));
    }
    return this.queue.add(release);
  }

  /**
   * Finishes or undoes, through the task queue, a release whose process died while it held
   * `conversation` (asked by the occupancy guard; once at a time per conversation).
   */
  private recoverLater(conversation: string): void {
    if (this.closed || this.recovering.has(conversation) || this.parts.releasing.has(conversation)) return;
    this.recovering.add(conversation);
    void this.queue
      .add(() => recoverInterruptedRelease(this.parts, conversation))
      .catch((e: unknown) => {
        if (!this.closed)
          this.parts.store.runLog.append({ type: 'recover.failed', conversation, data: { message: (e as Error)?.message ?? String(e) } });
      })
      .finally(() => this.recovering.delete(conversation));
  }

  private checkOpen(): void {
    if (this.closed) throw new WorkspaceError('BUSY', 'the host is closed', { reason: 'CLOSED' });
  }
}
