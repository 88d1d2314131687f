/**
 * `recoverWorkspaces`: what a host does on start over an existing state directory. Every
 * `ready` workspace is registered with its namespace at once (tools work without a new
 * preparation), every `released` one as a tombstone, and every `preparing` one whose preparer
 * is gone (its preparation lock is free or held by a dead process) is rolled back: what it
 * created is removed and the record deleted, so the conversation can be prepared again.
 * A `ready` workspace whose release a crash interrupted is finished or undone
 * (`recoverRelease`). A preparation or release still running in another live process is left
 * alone.
 */
import type { IdSource } from '../../ports/index.js';
import type { ProcessLiveness } from '../../ports/index.js';
import type { WorkspaceRecord } from '../../state/index.js';
import { registerReady, registrationOf, type RegistrationParts } from './registration.js';
import { pendingReleaseOf } from './release-record.js';
import { recoverRelease } from './recover-release.js';
import { rollbackPreparation } from './rollback-preparation.js';

/** What recovery uses of the host: what registering uses, ids and this process for the preparation lock, and the releases running here. */
export interface RecoveryParts extends RegistrationParts {
  readonly ids: IdSource;
  /** This process (pid + start time), the owner of the preparation lock. */
  readonly liveness: Pick<ProcessLiveness, 'self'>;
  /** Conversations a release of this process is taking down (left alone here). */
  readonly releasing: ReadonlySet<string>;
}

/** Registers what the store holds and rolls back interrupted preparations (see the file comment). */
export async function recoverWorkspaces(parts: RecoveryParts): Promise<void> {
  for (const record of parts.store.workspaces.list()) {
    if (record.state === 'ready' && pendingReleaseOf(record)) await recoverInterruptedRelease(parts, record.conversation);
    else if (record.state === 'ready') registerOrReport(parts, record);
    else if (record.state === 'released') parts.registry.set(registrationOf(record, 'released'));
    else if (record.state === 'preparing') await recoverInterrupted(parts, record);
  }
}

function registerOrReport(parts: RegistrationParts, record: WorkspaceRecord): void {
  try {
    registerReady(parts, record);
  } catch (e) {
    parts.store.runLog.append({ type: 'recover.unavailable', conversation: record.conversation, data: { message: (e as Error).message } });
  }
}

/**
 * Finishes or undoes the interrupted release of `conversation` under its preparation lock;
 * when a live process holds the lock (its release is running), the workspace is registered as
 * the store has it. Never throws for a removal problem (see `recoverRelease`).
 */
export async function recoverInterruptedRelease(parts: RecoveryParts, conversation: string): Promise<void> {
  const token = parts.ids.next('recover');
  if (!parts.store.preparationLocks.tryLock(conversation, { ...parts.liveness.self, token })) {
    const record = parts.store.workspaces.get(conversation);
    if (record?.state === 'ready' && !parts.releasing.has(conversation) && !parts.views.has(conversation)) registerOrReport(parts, record);
    return;
  }
  try {
    const record = parts.store.workspaces.get(conversation);
    if (record && pendingReleaseOf(record)) await recoverRelease(parts, record, { tag: 'recover', chain: [conversation] });
    else if (record?.state === 'ready' && !parts.views.has(conversation)) registerOrReport(parts, record);
  } finally {
    parts.store.preparationLocks.unlock(conversation, token);
  }
}

async function recoverInterrupted(parts: RecoveryParts, record: WorkspaceRecord): Promise<void> {
  const { conversation } = record;
  const token = parts.ids.next('recover');
  if (!parts.store.preparationLocks.tryLock(conversation, { ...parts.liveness.self, token })) {
    parts.registry.set(registrationOf(record, 'preparing'));
    return;
  }
  try {
    const current = parts.store.workspaces.get(conversation);
    if (current?.state !== 'preparing') {
      if (current?.state === 'ready') registerOrReport(parts, current);
      return;
    }
    const report = await rollbackPreparation(parts, current, { tag: 'recover', chain: [conversation] });
    parts.store.workspaces.delete(conversation);
    parts.registry.delete(conversation);
    parts.store.runLog.append({ type: 'prepare.rolled_back', conversation, data: { ...report, interrupted: true } });
  } finally {
    parts.store.preparationLocks.unlock(conversation, token);
  }
}
