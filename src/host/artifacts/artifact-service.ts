/**
 * `ArtifactService`: a host's handoffs and ends (docs/ARCHITECTURE.md § Runs, handoffs and
 * artifacts) — the `handoff` and `end` tools' port (`requestsFor`), `host.runs`, and the recovery
 * of what a crash left in the artifact store.
 *
 * A handoff, in order, holding the visit's lock (one operation per conversation in this process,
 * the store's lock table across processes):
 * 1. the visit (made in run `default` for a conversation prepared before runs existed) must not
 *    have ended, nor its run (`VISIT_ENDED`);
 * 2. a folder of the visit no record names (a crash between rename and record) is removed;
 * 3. the declared files are collected (collect-artifacts.ts) as objects, and the store flushed:
 *    save point `artifacts.stored`;
 * 4. the collected files are linked into `<run>/.staging-<role>-v<visit>`, renamed to
 *    `<run>/<role>-v<visit>`: save point `artifacts.renamed`;
 * 5. the auto-patch of a worktree role with `auto_patch` (auto-patch.ts);
 * 6. one transaction records the handoff, its artifact records and the visit's end (`end`: the
 *    run's too): save point `artifacts.recorded`; then the run log, and the seed inventories of
 *    the `shared` receivers of its role (inventory.ts).
 * A failure before 6 removes the folder it made; objects stay (content-addressed, named by no
 * record until one needs them). So a record never names a missing object or folder, and a
 * folder without a record is removed by the next collection of that visit or the next host start.
 */
import type { EndValue, HandoffRequests, HandoffValue, PatchSummary } from '../../../tools/index.js';
import { ToolFailure } from '../../../tools/index.js';
import { findRole, isManifestError, ManifestError } from '../../manifest/index.js';
import type { ArtifactRecord, HandoffRow, PatchRow, VisitRow, WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { asTool, TurnLocks } from '../occupancy/index.js';
import type { ArtifactParts, HandoffRequest, RunArtifact, RunStatus } from './artifact-types.js';
import { collectArtifacts } from './collect-artifacts.js';
import { writeReceiverInventories } from './inventory.js';
import { removeRecordlessFolders } from './recover-artifacts.js';

/** The run a conversation prepared before runs existed joins at its first handoff. */
const DEFAULT_RUN = 'default';
/** A conversation's handoffs and ends take turns across processes (src/host/occupancy/turn-locks.ts). */
const HANDOFF_TURNS = {
  name: 'handoff',
  keyOf: (conversation: string) => handoffLockOf(conversation),
  // How long a handoff waits for another process's handoff of the same conversation.
  waitMs: 60_000,
  busyMessage: (conversation: string) => `another process is handing off '${conversation}'`,
};

/** See the file comment. */
export class ArtifactService {
  private readonly turns: TurnLocks;

  constructor(private readonly parts: ArtifactParts) {
    this.turns = new TurnLocks(parts, HANDOFF_TURNS);
  }

  /**
   * Ends `conversation`'s visit handing `files` to role `to` (see the file comment). Throws
   * `ManifestError` `UNKNOWN_ROLE` (`to` names no role), `WorkspaceError` `VISIT_ENDED`,
   * `UNKNOWN_CONVERSATION` (no ready workspace), `BUSY`; what the store throws (a full disk).
   */
  handoff(conversation: string, request: HandoffRequest): Promise<HandoffValue> {
    return this.inTurn(conversation, async () => {
      const roles = this.parts.manifest.roles.map((r) => r.name);
      if (!roles.includes(request.to)) {
        throw new ManifestError(
          'UNKNOWN_ROLE',
          'to',
          `'${String(request.to).slice(0, 80)}' is no role of the manifest (roles: ${roles.join(', ')})`,
        );
      }
      const { row, patch } = await this.finish(conversation, 'handoff', request);
      const collected = row.artifacts.flatMap((a) =>
        a.record === 'artifact_collected' ? [{ path: a.path, sha256: a.sha256, bytes: a.bytes }] : [],
      );
      const rejected = row.artifacts.flatMap((a) =>
        a.record === 'artifact_rejected' ? [{ path: a.path, code: a.code, reason: a.reason }] : [],
      );
      return { handoffId: row.id, run: row.run, visit: row.visit, to: request.to, collected, rejected, patch };
    });
  }

  /** Ends `conversation`'s visit and its run. */
  end(conversation: string, request: { message?: string } = {}): Promise<EndValue> {
    return this.inTurn(conversation, async () => {
      const { row, patch } = await this.finish(conversation, 'end', request);
      return { handoffId: row.id, run: row.run, visit: row.visit, patch };
    });
  }

  /** Every run, oldest first. */
  list() {
    return this.parts.store.runs.runs();
  }

  /** A run's row, visits, handoffs and patches. Throws `WorkspaceError` `UNKNOWN_RUN`. */
  status(run: string): RunStatus {
    const runs = this.parts.store.runs;
    return { run: this.runRow(run), visits: runs.visits(run), handoffs: runs.handoffs(run), patches: runs.patchesOfRun(run) };
  }

  /** Every declared file of a run's handoffs, in handoff then declared order. Throws `WorkspaceError` `UNKNOWN_RUN`. */
  artifacts(run: string): RunArtifact[] {
    this.runRow(run);
    const store = this.parts.platform.artifactStore;
    return this.parts.store.runs.handoffs(run).flatMap((h) =>
      h.artifacts.map((a) => ({
        handoff: h.id,
        conversation: h.conversation,
        role: h.role,
        visit: h.visit,
        to: h.to,
        path: a.path,
        record: a.record,
        sha256: a.record === 'artifact_collected' ? a.sha256 : null,
        bytes: a.record === 'artifact_collected' ? a.bytes : null,
        code: a.record === 'artifact_rejected' ? a.code : null,
        reason: a.record === 'artifact_rejected' ? a.reason : null,
        storePath: a.record === 'artifact_collected' && h.folder ? `${store.folderPath(h.run, h.folder)}/${a.path}` : null,
      })),
    );
  }

  /** Removes what crashed handoffs left: temp objects of dead writers, run folders no record names (at host start). */
  recover(): void {
    removeRecordlessFolders(this.parts, { temps: true });
  }

  /** The port the `handoff` and `end` tools of `conversation` call: host refusals become tool failures. */
  requestsFor(conversation: string): HandoffRequests {
    const refuseOccupied = (holder: string | undefined) => {
      const blocking = this.parts.blockingHolder(conversation, holder);
      if (blocking)
        throw new ToolFailure('OCCUPIED', `another session holds this workspace (${blocking})`, undefined, { holder: blocking });
    };
    return {
      handoff: async (request, holder) => {
        refuseOccupied(holder);
        return handoffAsTool(() => this.handoff(conversation, request));
      },
      end: async (request, holder) => {
        refuseOccupied(holder);
        return handoffAsTool(() => this.end(conversation, request));
      },
    };
  }

  /** Steps 1 to 6 of the file comment for a handoff or an end. */
  private async finish(
    conversation: string,
    kind: 'handoff' | 'end',
    request: { to?: string; files?: readonly string[]; message?: string },
  ): Promise<{ row: HandoffRow; patch: PatchSummary | null }> {
    const { store, platform } = this.parts;
    const record = this.readyRecord(conversation);
    const visit = this.visitOf(record);
    this.refuseEnded(visit);
    const folder = `${visit.role}-v${visit.visit}`;
    const files = kind === 'handoff' ? (request.files ?? []) : [];
    let records: ArtifactRecord[] = [];
    let published = false;
    try {
      removeRecordlessFolders(this.parts, { only: { run: visit.run, folder } });
      if (files.length > 0) {
        const namespace = this.parts.registry.lookup(conversation)?.namespace;
        if (!namespace)
          throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is registered for '${conversation}'`, { conversation });
        const role = findRole(this.parts.manifest, record.role);
        const collection = await collectArtifacts(namespace, platform.artifactStore, files, role.artifacts, record.backend !== 'shared');
        records = collection.records;
        await platform.artifactStore.flush();
        this.parts.savePoint?.('artifacts.stored');
        if (collection.files.length > 0) {
          await platform.artifactStore.publishFolder(visit.run, folder, collection.files);
          published = true;
          this.parts.savePoint?.('artifacts.renamed');
        }
      }
      const patch = await this.patchOf(record, kind);
      const row = store.runs.recordHandoff({
        run: visit.run,
        conversation,
        role: visit.role,
        visit: visit.visit,
        kind,
        to: kind === 'handoff' ? (request.to ?? null) : null,
        message: request.message ?? null,
        folder: published ? folder : null,
        artifacts: records,
      });
      if (!row) throw visitEnded(visit, 'its visit ended while the files were collected');
      published = false;
      this.parts.savePoint?.('artifacts.recorded');
      this.logHandoff(row);
      if (row.to !== null) writeReceiverInventories(this.parts, row.run, row.to);
      return { row, patch };
    } finally {
      if (published) platform.artifactStore.removeFolder(visit.run, folder);
    }
  }

  /** The auto-patch of a worktree role that keeps them, or null; a patch that cannot be made is logged, not fatal. */
  private async patchOf(record: WorkspaceRecord, reason: 'handoff' | 'end'): Promise<PatchSummary | null> {
    const role = findRole(this.parts.manifest, record.role);
    if (record.backend !== 'worktree' || !role.artifacts.autoPatch || !this.parts.autoPatch) return null;
    let row: PatchRow | null;
    try {
      row = await this.parts.autoPatch(record.conversation, reason);
    } catch (e) {
      this.parts.store.runLog.append({
        type: 'recover.failed',
        conversation: record.conversation,
        data: { message: `auto-patch not kept: ${(e as Error)?.message ?? String(e)}` },
      });
      return null;
    }
    return row ? { n: row.n, sha256: row.sha256, bytes: row.bytes, files: row.files } : null;
  }

  private logHandoff(row: HandoffRow): void {
    const { runLog } = this.parts.store;
    const conversation = row.conversation;
    if (row.kind === 'handoff') {
      const collected = row.artifacts.filter((a) => a.record === 'artifact_collected').length;
      runLog.append({
        type: 'handoff.accepted',
        conversation,
        data: { handoff: row.id, run: row.run, visit: row.visit, to: row.to ?? '', collected, rejected: row.artifacts.length - collected },
      });
    }
    for (const a of row.artifacts) {
      if (a.record === 'artifact_collected')
        runLog.append({
          type: 'artifact.collected',
          conversation,
          data: { handoff: row.id, path: a.path, sha256: a.sha256, bytes: a.bytes },
        });
      else runLog.append({ type: 'artifact.rejected', conversation, data: { handoff: row.id, path: a.path, code: a.code } });
    }
    if (row.kind === 'end') runLog.append({ type: 'run.ended', conversation, data: { run: row.run, handoff: row.id } });
  }

  private readyRecord(conversation: string): WorkspaceRecord {
    const record = this.parts.store.workspaces.get(conversation);
    if (record?.state !== 'ready') {
      throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
    }
    return record;
  }

  /** The conversation's visit; one in run `default` for a conversation prepared before runs existed. */
  private visitOf(record: WorkspaceRecord): VisitRow {
    const runs = this.parts.store.runs;
    const existing = runs.visitOf(record.conversation);
    if (existing) return existing;
    const made = runs.startVisit(record.conversation, DEFAULT_RUN, record.role, () => true)!;
    this.parts.store.runLog.append({
      type: 'run.visit',
      conversation: record.conversation,
      data: { run: made.run, role: made.role, visit: made.visit },
    });
    return made;
  }

  /** `VISIT_ENDED` when the visit or its run has ended. */
  private refuseEnded(visit: VisitRow): void {
    if (visit.endedAt !== null) throw visitEnded(visit, `this visit already ended with ${visit.ending === 'end' ? 'an end' : 'a handoff'}`);
    const run = this.parts.store.runs.run(visit.run);
    if (run?.endedAt != null) throw visitEnded(visit, `run '${visit.run}' was ended${run.endedBy ? ` by '${run.endedBy}'` : ''}`);
  }

  private runRow(run: string) {
    const row = this.parts.store.runs.run(run);
    if (!row)
      throw new WorkspaceError('UNKNOWN_RUN', `no run named '${String(run).slice(0, 80)}' is recorded`, { run: String(run).slice(0, 80) });
    return row;
  }

  /** Runs `task` after every earlier one of `conversation` in this process, holding its handoff lock across processes (`TurnLocks`). */
  private inTurn<T>(conversation: string, task: () => Promise<T>): Promise<T> {
    return this.turns.inTurn(conversation, task);
  }
}

/** The lock-table key of a conversation's handoffs (also taken by the recovery before it removes a folder of its visit). */
export function handoffLockOf(conversation: string): string {
  return `handoff:${conversation}`;
}

function visitEnded(visit: VisitRow, why: string): WorkspaceError {
  return new WorkspaceError('VISIT_ENDED', `'${visit.conversation}' cannot hand off or end: ${why}; nothing was collected`, {
    conversation: visit.conversation,
    run: visit.run,
    visit: visit.visit,
  });
}

/**
 * Runs a host operation for a tool: a `WorkspaceError` with a tool code becomes a `ToolFailure` of
 * that code, an unknown `to` (`ManifestError` `UNKNOWN_ROLE`) `INVALID_INPUT` naming the roles.
 */
async function handoffAsTool<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await asTool(run);
  } catch (e) {
    if (isManifestError(e, 'UNKNOWN_ROLE')) throw new ToolFailure('INVALID_INPUT', e.message, undefined, { field: 'to' });
    throw e;
  }
}
