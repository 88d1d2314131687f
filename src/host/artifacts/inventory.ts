/**
 * The seed inventory of a receiver (docs/ARCHITECTURE.md § Runs, handoffs and artifacts): every
 * declared file of the handoffs routed to its role in its run, oldest handoff first, in declared
 * order. Only files the host collected are `available` (a `shared` receiver gets each one's host
 * path in the store, `storePath`; an isolated one its place in its workspace, `workspacePath`,
 * where its read-only mount shows it); the declared files the host rejected are `unavailable`,
 * with the rejection's code and reason. Built from the store's records only, never from what an
 * agent wrote.
 *
 * `writeInventory` writes a `shared` receiver's inventory as `inventory.json` into its inventory
 * folder (`<stateDir>/artifacts/<run>/inventory/<conversation>`, shown read-only at
 * `/artifacts`), atomically; the registration writes it when the receiver is registered and
 * again on the first call after a handoff to its role arrives (src/host/lifecycle/registration.ts
 * `followRouting`).
 */
import type { StateStore } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import type { HostPlatform } from '../platform/index.js';
import { artifactFolderOf } from '../platform/index.js';

/** Who handed a file over: the emitting conversation, its role and visit. */
export interface InventorySource {
  role: string;
  visit: number;
  conversation: string;
}

/** A collected file routed to the receiver. */
export interface AvailableArtifact {
  from: InventorySource;
  /** The handoff's id. */
  handoff: number;
  /** Workspace-relative path in the emitting workspace (as declared). */
  path: string;
  sha256: string;
  bytes: number;
  /** `shared` receivers: the file's host path, `<stateDir>/artifacts/<run>/<role>-v<visit>/<path>`. */
  storePath?: string;
  /** Isolated receivers: where its workspace shows it, `artifacts/<role>-v<visit>/<path>`. */
  workspacePath?: string;
}

/** A declared file the host rejected (its code from `ARTIFACT_REJECTION_DOCS`). */
export interface UnavailableArtifact {
  from: InventorySource;
  handoff: number;
  path: string;
  code: string;
  reason: string;
}

/** What `host.inventory(conversation)` answers, and what a `shared` receiver's `inventory.json` holds. */
export interface SeedInventory {
  run: string;
  conversation: string;
  role: string;
  visit: number;
  available: AvailableArtifact[];
  unavailable: UnavailableArtifact[];
}

/** What the inventory reads of the host. */
export interface InventoryParts {
  readonly platform: HostPlatform;
  readonly store: Pick<StateStore, 'runs' | 'workspaces'>;
}

/**
 * The seed inventory of `conversation` (see the file comment). Throws `WorkspaceError`
 * `UNKNOWN_CONVERSATION` when the conversation was never prepared in a run.
 */
export function inventoryOf(parts: InventoryParts, conversation: string): SeedInventory {
  const visit = parts.store.runs.visitOf(conversation);
  if (!visit) {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no conversation '${String(conversation).slice(0, 80)}' was prepared in a run`, {
      conversation: String(conversation).slice(0, 80),
    });
  }
  const shared = parts.store.workspaces.get(conversation)?.backend === 'shared';
  const available: AvailableArtifact[] = [];
  const unavailable: UnavailableArtifact[] = [];
  for (const h of parts.store.runs.handoffsTo(visit.run, visit.role)) {
    const from = { role: h.role, visit: h.visit, conversation: h.conversation };
    const folder = h.folder === null ? null : artifactFolderOf(parts.platform, visit.run, h.folder);
    for (const a of h.artifacts) {
      if (a.record === 'artifact_rejected') {
        unavailable.push({ from, handoff: h.id, path: a.path, code: a.code, reason: a.reason });
      } else if (folder !== null && h.folder !== null) {
        const place = shared ? { storePath: parts.platform.join(folder, a.path) } : { workspacePath: `artifacts/${h.folder}/${a.path}` };
        available.push({ from, handoff: h.id, path: a.path, sha256: a.sha256, bytes: a.bytes, ...place });
      }
    }
  }
  return { run: visit.run, conversation, role: visit.role, visit: visit.visit, available, unavailable };
}

/**
 * Writes `conversation`'s seed inventory as `inventory.json` into its inventory folder
 * (made when missing), atomically: a reader sees the old or the new file. Throws what
 * `inventoryOf` throws and the file system's error.
 */
export function writeInventory(parts: InventoryParts, conversation: string): void {
  const inventory = inventoryOf(parts, conversation);
  const bytes = new TextEncoder().encode(`${JSON.stringify(inventory, null, 2)}\n`);
  parts.platform.artifactStore.writeInventory(inventory.run, conversation, bytes);
}

/**
 * Writes again the seed inventory of every ready `shared` receiver of `role` in `run` (after a
 * handoff to it was recorded here; another process's receivers are written on their next call).
 * A receiver whose inventory cannot be written keeps its old one until then; never throws.
 */
export function writeReceiverInventories(parts: InventoryParts, run: string, role: string): void {
  for (const visit of parts.store.runs.visits(run)) {
    if (visit.role !== role) continue;
    const record = parts.store.workspaces.get(visit.conversation);
    if (record?.state !== 'ready' || record.backend !== 'shared') continue;
    try {
      writeInventory(parts, visit.conversation);
    } catch {
      // Written on the receiver's next call (src/host/lifecycle/registration.ts `followRouting`).
    }
  }
}
