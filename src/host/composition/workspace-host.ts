/**
 * `WorkspaceHost`: the `Host` both factories return. It owns the registry the gate reads, the
 * preparation queue (p-queue; one task per conversation at a time in this process, the store's
 * lock across processes), release, occupancy, status and the run log. Everything that touches
 * disk or git goes through the `HostPlatform`; the gate never does.
 *
 * Occupancy records name the holder's process (pid + start time, from the liveness port); a
 * holder whose process is gone is ended by the next `acquire` or gated write
 * (`OccupancyGuard`). The gate is wrapped in a `CallTracker`, so a release can wait for the
 * calls in flight after it has taken the workspace out of service.
 */
import PQueue from 'p-queue';
import { ToolGate } from '../../gate/tool-gate.js';
import type { CrossProcessLocks } from '../../ports/cross-process-locks.js';
import type { WriteDoors } from '../../ports/write-door.js';
import { FILE_TOOLS } from '../../../tools/file-tools.js';
import { WORK_TOOLS } from '../../../tools/work-tools.js';
import type { LanderSettings } from '../../manifest/settings.js';
import type { CheckRunner } from '../../ports/check-runner.js';
import type { DrainReport } from '../../lander/lander.js';
import type { SavePointHook } from '../../lander/save-points.js';
import type { MessageRecord } from '../../state/message-table.js';
import type { WorkRequests } from '../../../tools/work-requests.js';
import { landerStatus, runLander, type SubmissionStatus } from '../work/host-lander.js';
import {
  discardSubagent,
  landSubagent,
  refuseUnlanded,
  startSubagent,
  type LandSubagentResult,
  type StartSubagentOptions,
  type SubagentHost,
} from '../subagents/subagents.js';
import { requestFilesTool } from '../../../tools/request-files.js';
import type { Manifest } from '../../manifest/types.js';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { OccupancyMode, OccupancyRecord } from '../../state/occupancy-table.js';
import type { WorkspaceRecord } from '../../state/workspace-table.js';
import type { ProcessLiveness } from '../../ports/process-liveness.js';
import { CallTracker } from '../occupancy/call-tracker.js';
import { findRole } from '../../manifest/find-role.js';
import type { ToolDescriptor } from '../../../tools/result.js';
import { claimAutoConversation, type AutoConversation, type AutoConversationRequest } from '../occupancy/auto-conversation.js';
import { OccupancyGuard } from '../occupancy/occupancy-guard.js';
import { recoverInterruptedRelease } from '../lifecycle/recover-workspaces.js';
import type { StateStore } from '../../state/store.js';
import type { Registration } from '../../gate/registry.js';
import { isConversationId } from '../../../vfs/workspace-root.js';
import { WorkspaceError, isWorkspaceError } from '../../workspace-error.js';
import { codeOf, isCodedError } from '../../../vfs/coded-error.js';
import type { Host, HostLander, HostSubagents, PrepareOptions, ReleaseOptions, ReleaseResult, WorkspaceStatus } from './host.js';
import type { ToolGateApi } from '../../gate/tool-gate-api.js';
import type { EventFilter, RunEvent } from '../../state/event-log.js';
import type { HostContext } from '../lifecycle/host-context.js';
import type { HostPlatform } from '../platform/platform.js';
import type { TreeCheckout } from '../../git/tree-checkout.js';
import { LowerFolders } from '../lower/lower-folders.js';
import { prepareWorkspace } from '../lifecycle/prepare-workspace.js';
import { recoverWorkspaces } from '../lifecycle/recover-workspaces.js';
import { closeView, registerReady, registrationOf, viewIsCurrent } from '../lifecycle/registration.js';
import { releaseWorkspace } from '../lifecycle/release-workspace.js';
import { SyncedRegistry } from '../lifecycle/synced-registry.js';
import { statusOf } from '../lifecycle/workspace-status.js';

/** Every tool the gate runs, in the order clients list them. */
const GATE_TOOLS = [...FILE_TOOLS, requestFilesTool, ...WORK_TOOLS];

export interface WorkspaceHostOptions {
  platform: HostPlatform;
  store: StateStore;
  manifest: Manifest;
  clock: Clock;
  ids: IdSource;
  /** Who this process is and whether recorded processes still run (locks, occupancy). */
  liveness: ProcessLiveness;
  /** Preparations run at once in this process (default 2). */
  concurrency?: number;
  /** Called once by `close()` after the store is closed (e.g. to drop a temp folder). */
  onClose?: () => void;
  /** Cross-process locks for the gate's compare-and-swap calls (disk host); absent: in-process only. */
  crossProcessLocks?: CrossProcessLocks;
  /** The workspaces' write doors across processes (disk host); absent: a release drains this process's calls only. */
  writeDoors?: WriteDoors;
  /** The lander's settings: checks, push remote, target branch. */
  settings: LanderSettings;
  /** Runs the lander's checks (host exec on disk; scripted in memory). */
  checks: CheckRunner;
  /** Called at each lander save point (the crash test kills the process there). */
  savePoint?: SavePointHook;
  /** Waits between push tries (default: a real timer). */
  wait?: (ms: number) => Promise<void>;
  /**
   * Checks pinned commits out into the lower folders of `copy` workspaces (src/host/lower/lower-folders.ts);
   * absent (the memory host): a copy's pinned tree is always served from git objects.
   */
  treeCheckout?: TreeCheckout;
}

/** The `Host` both factories return (see `Host`). */
export class WorkspaceHost implements Host {
  readonly gate: ToolGateApi;
  private readonly ctx: HostContext;
  private readonly registry: SyncedRegistry;
  private readonly queue: PQueue;
  private readonly inFlight = new Map<string, Promise<WorkspaceStatus>>();
  private readonly recovering = new Set<string>();
  private readonly calls: CallTracker;
  private closed = false;

  private constructor(private readonly options: WorkspaceHostOptions) {
    const { store, liveness } = options;
    this.registry = new SyncedRegistry(options.clock);
    const occupancy = new OccupancyGuard(store, liveness, (conversation) => this.recoverLater(conversation));
    this.ctx = {
      platform: options.platform,
      store,
      registry: this.registry,
      manifest: options.manifest,
      ids: options.ids,
      clock: options.clock,
      landing: options.platform.landing,
      settings: options.settings,
      pid: liveness.self.pid,
      liveness,
      occupancy,
      views: new Map(),
      releasing: new Set(),
      drain: (conversation) => this.calls.drain(conversation),
      ...(options.writeDoors ? { doors: options.writeDoors } : {}),
    };
    if (options.treeCheckout) this.ctx.lowers = new LowerFolders(this.ctx, options.treeCheckout);
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    this.registry.syncWith((conversation, current) => this.refresh(conversation, current));
    this.calls = new CallTracker(
      new ToolGate({
        registry: this.registry,
        runLog: { append: (event) => store.appendEventSoon(event) },
        clock: options.clock,
        occupancy: { blockingHolder: (conversation, holder) => occupancy.blockingHolder(conversation, holder) },
        tools: GATE_TOOLS,
        ...(options.crossProcessLocks ? { crossProcessLocks: options.crossProcessLocks } : {}),
        ...(options.writeDoors ? { writeDoor: options.writeDoors } : {}),
      }),
    );
    this.gate = this.calls;
  }

  /** Builds a host and recovers the state already in the store (registrations, interrupted preparations). */
  static async start(options: WorkspaceHostOptions): Promise<WorkspaceHost> {
    const host = new WorkspaceHost(options);
    await recoverWorkspaces(host.ctx);
    options.store.appendEvent({
      type: 'host.start',
      conversation: null,
      data: { confinement: options.platform.confinement, workspaces: options.store.listWorkspaces().length },
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
      .add(async () => this.statusRow(await prepareWorkspace(this.ctx, options, options.chain ?? [])))
      .finally(() => this.inFlight.delete(options.conversation));
    this.inFlight.set(options.conversation, task);
    return task;
  }

  status(): WorkspaceStatus[] {
    this.checkOpen();
    const landed = this.ctx.store.landedPerRoot();
    return this.ctx.store
      .listWorkspaces()
      .filter((r) => r.state !== 'failed')
      .map((r) => this.statusRow(r, landed));
  }

  events(filter?: EventFilter): RunEvent[] {
    this.checkOpen();
    return this.ctx.store.events(filter);
  }

  /**
   * Releases a workspace; see `releaseWorkspace` (keeps work unless `discard`, refuses a live
   * holder unless `force`, leaves the workspace serving when refused or failed).
   */
  release(conversation: string, options: ReleaseOptions = {}): Promise<ReleaseResult> {
    this.checkOpen();
    if (this.inFlight.has(conversation)) {
      return Promise.reject(new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation }));
    }
    return this.queue.add(async () => {
      const chain = options.chain ?? this.ctx.store.lineageOf(conversation).chain;
      await refuseUnlanded(this.ctx, conversation, chain);
      return releaseWorkspace(this.ctx, conversation, options, chain);
    });
  }

  /**
   * The lander: `run({ target? })` lands every pending submission (of one target branch, or
   * all) and returns what it did; `status()` lists every submission, oldest first.
   */
  readonly lander: HostLander = {
    run: (options: { target?: string } = {}): Promise<DrainReport> => {
      this.checkOpen();
      const hooks = {
        checks: this.options.checks,
        ...(this.options.savePoint ? { savePoint: this.options.savePoint } : {}),
        ...(this.options.wait ? { wait: this.options.wait } : {}),
      };
      return runLander(this.ctx, hooks, options.target);
    },
    status: (): SubmissionStatus[] => {
      this.checkOpen();
      return landerStatus(this.ctx);
    },
  };

  /**
   * Diff, commit and submit for a conversation's workspace as an operator (the CLI's `gatefs
   * diff|commit|submit`): the same service the tools call, whatever tools the role declares.
   * Throws `WorkspaceError` `UNKNOWN_CONVERSATION` (none, not ready, released) or
   * `BACKEND_UNAVAILABLE` (not a git worktree).
   */
  work(conversation: string): WorkRequests {
    this.checkOpen();
    const registration = isConversationId(conversation) ? this.registry.lookup(conversation) : undefined;
    if (registration?.state !== 'ready') {
      throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
    }
    if (!registration.work) {
      throw new WorkspaceError(
        'BACKEND_UNAVAILABLE',
        `the workspace of '${conversation}' is not a git worktree: it has no branch to diff, commit or submit`,
        {
          conversation,
        },
      );
    }
    return registration.work;
  }

  /** The messages port: what the lander delivered to `conversation` (every message when omitted), oldest first. */
  messages(conversation?: string): MessageRecord[] {
    this.checkOpen();
    return this.ctx.store.messages(conversation);
  }

  /** Subagents: start a child from its parent's branch, land it onto the parent, or discard it (src/host/subagents/subagents.ts). */
  readonly subagents: HostSubagents = {
    start: (options: StartSubagentOptions): Promise<WorkspaceStatus> => startSubagent(this.ctx, this.subagentHost, options),
    land: (child: string): Promise<LandSubagentResult> => landSubagent(this.ctx, this.subagentHost, child),
    discard: (child: string): Promise<ReleaseResult> => discardSubagent(this.ctx, this.subagentHost, child),
  };

  private readonly subagentHost: SubagentHost = {
    prepare: (options) => this.prepare(options),
    releaseChecked: (conversation, options) => {
      this.checkOpen();
      if (this.inFlight.has(conversation)) {
        return Promise.reject(new WorkspaceError('BUSY', `conversation '${conversation}' is being prepared`, { conversation }));
      }
      return this.queue.add(() => releaseWorkspace(this.ctx, conversation, { ...options }, options.chain));
    },
  };

  /**
   * Occupies a conversation's workspace for `holder` as this process (default mode
   * `exclusive-write`: other holders' writes are then refused by the gate with `OCCUPIED`).
   * Holders whose process is gone are ended first (`occupancy.holder_gone`). Throws
   * `WorkspaceError` `UNKNOWN_CONVERSATION`, or `OCCUPIED` naming the current live holder.
   */
  acquire(conversation: string, holder: string, mode: OccupancyMode = 'exclusive-write'): OccupancyRecord {
    this.checkOpen();
    if (!this.ctx.store.getWorkspace(conversation)) {
      throw new WorkspaceError('UNKNOWN_CONVERSATION', `no workspace is recorded for '${conversation}'`, { conversation });
    }
    const record = this.ctx.occupancy.acquire(conversation, holder, mode);
    this.ctx.store.appendEvent({ type: 'occupancy.acquire', conversation, data: { holder, mode } });
    return record;
  }

  /**
   * The tools `conversation` will offer once its workspace is ready, as `gate.tools` lists
   * them, before it is: its recorded role's (a workspace exists), else `role`'s, else the
   * manifest's first role's (`serve` lists them while preparing in the background). Throws
   * `ManifestError` `UNKNOWN_ROLE`.
   */
  declaredTools(conversation: string, role?: string): ToolDescriptor[] {
    this.checkOpen();
    const recorded = this.ctx.store.getWorkspace(conversation);
    const name = recorded && recorded.state !== 'failed' ? recorded.role : role;
    const declared: ReadonlySet<string> = new Set(findRole(this.ctx.manifest, name).tools);
    return GATE_TOOLS.filter((t) => declared.has(t.name)).map((t) => t.descriptor);
  }

  /**
   * The conversation id of a client window in a working folder (`serve --conversation auto`):
   * its own earlier id, else a closed window's, else a new one; recorded at once, so two windows
   * never get the same id (see `claimAutoConversation`). No workspace is prepared here.
   */
  autoConversation(request: AutoConversationRequest): AutoConversation {
    this.checkOpen();
    return claimAutoConversation(this.ctx.store, this.ctx.liveness, request);
  }

  /** Ends `holder`'s occupancy. Result: true when it held one. */
  releaseOccupancy(conversation: string, holder: string): boolean {
    this.checkOpen();
    const released = this.ctx.store.releaseOccupancy(conversation, holder);
    if (released) this.ctx.store.appendEvent({ type: 'occupancy.release', conversation, data: { holder } });
    return released;
  }

  /** Waits for running preparations, closes every folder handle and the store. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ctx.lowers?.close();
    await this.queue.onIdle();
    for (const view of this.ctx.views.values()) view.close();
    this.ctx.views.clear();
    this.ctx.store.close();
    this.options.onClose?.();
  }

  /**
   * Finishes or undoes, through the task queue, a release whose process died while it held
   * `conversation` (asked by the occupancy guard; once at a time per conversation).
   */
  private recoverLater(conversation: string): void {
    if (this.closed || this.recovering.has(conversation) || this.ctx.releasing.has(conversation)) return;
    this.recovering.add(conversation);
    void this.queue
      .add(() => recoverInterruptedRelease(this.ctx, conversation))
      .catch((e: unknown) => {
        if (!this.closed)
          this.ctx.store.appendEvent({ type: 'recover.failed', conversation, data: { message: (e as Error)?.message ?? String(e) } });
      })
      .finally(() => this.recovering.delete(conversation));
  }

  private statusRow(record: WorkspaceRecord, landed?: Map<string, number>): WorkspaceStatus {
    const row = statusOf(record, this.ctx.store, this.ctx.platform.confinement, (holder) => this.ctx.occupancy.isShown(holder));
    const lineage = this.ctx.store.lineageOf(record.conversation);
    if (lineage.parent !== null) return { ...row, parent: lineage.parent };
    return { ...row, parent: null, landed: (landed ?? this.ctx.store.landedPerRoot()).get(record.conversation) ?? 0 };
  }

  /**
   * Brings one registry entry in line with the store (see `SyncedRegistry`). A ready record
   * whose view cannot open is unregistered with a `registry.unavailable` event; result
   * undefined when its folder is gone, else the error is thrown to the lookup's caller.
   */
  private refresh(conversation: string, current: Registration | undefined): Registration | undefined {
    if (this.closed || !isConversationId(conversation) || this.inFlight.has(conversation) || this.ctx.releasing.has(conversation))
      return current;
    const record = this.ctx.store.getWorkspace(conversation);
    // Another process may have released the workspace and prepared it again in between: a view
    // over the folder it replaced is opened anew.
    if (current?.state === 'ready' && record?.state === 'ready' && viewIsCurrent(this.ctx, record)) {
      // Another process may have finished the copy's lower folder meanwhile.
      this.ctx.lowers?.upgrade(conversation);
      return current;
    }
    if (current?.state === 'ready') closeView(this.ctx, conversation);
    if (!record || record.state === 'failed') {
      this.registry.delete(conversation);
      return undefined;
    }
    if (record.state === 'released') return this.setAndReturn(registrationOf(record, 'released'));
    if (record.state === 'preparing') return this.setAndReturn(registrationOf(record, 'preparing'));
    try {
      return registerReady(this.ctx, record);
    } catch (e) {
      // No view can open: nothing stays registered over a closed one, and the run log says why.
      this.registry.delete(conversation);
      this.ctx.store.appendEvent({ type: 'registry.unavailable', conversation, data: failureData(e) });
      // Only a workspace folder that is gone means "no workspace here". Anything else (a link
      // where the folder was, the role gone from the manifest, no descriptors left) is an error
      // the caller must see (the gate answers INTERNAL or BUSY), not an unknown conversation.
      if (isWorkspaceError(e, 'PREPARATION_FAILED') && e.data.reason === 'MISSING_FOLDER') return undefined;
      throw e;
    }
  }

  private setAndReturn(registration: Registration): Registration {
    this.registry.set(registration);
    return registration;
  }

  private checkOpen(): void {
    if (this.closed) throw new WorkspaceError('BUSY', 'the host is closed', { reason: 'CLOSED' });
  }
}

/** What the run log keeps of a failure: its code, `data.reason` when it has one, its message. */
function failureData(e: unknown): Record<string, unknown> {
  const reason = isCodedError(e) ? e.data.reason : undefined;
  return {
    code: codeOf(e) ?? 'ERROR',
    ...(typeof reason === 'string' ? { reason } : {}),
    message: e instanceof Error ? e.message : String(e),
  };
}
