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
import type { WorkspaceRecord } from '../../state/workspace-table.js';
import { lockOwner, type HostContext } from './host-context.js';
import { registerReady, registrationOf } from './registration.js';
import { pendingReleaseOf } from './release-record.js';
import { recoverRelease } from './recover-release.js';
import { rollbackPreparation } from './rollback-preparation.js';

/** Registers what the store holds and rolls back interrupted preparations (see the file comment). */
export async function recoverWorkspaces(ctx: HostContext): Promise<void> {
  for (const record of ctx.store.workspaces.list()) {
    if (record.state === 'ready' && pendingReleaseOf(record)) await recoverInterruptedRelease(ctx, record.conversation);
    else if (record.state === 'ready') registerOrReport(ctx, record);
    else if (record.state === 'released') ctx.registry.set(registrationOf(record, 'released'));
    else if (record.state === 'preparing') await recoverInterrupted(ctx, record);
  }
}

function registerOrReport(ctx: HostContext, record: WorkspaceRecord): void {
  try {
    registerReady(ctx, record);
  } catch (e) {
    ctx.store.runLog.append({ type: 'recover.unavailable', conversation: record.conversation, data: { message: (e as Error).message } });
  }
}

/**
 * Finishes or undoes the interrupted release of `conversation` under its preparation lock;
 * when a live process holds the lock (its release is running), the workspace is registered as
 * the store has it. Never throws for a removal problem (see `recoverRelease`).
 */
export async function recoverInterruptedRelease(ctx: HostContext, conversation: string): Promise<void> {
  const token = ctx.ids.next('recover');
  if (!ctx.store.preparationLocks.tryLock(conversation, lockOwner(ctx, token))) {
    const record = ctx.store.workspaces.get(conversation);
    if (record?.state === 'ready' && !ctx.releasing.has(conversation) && !ctx.views.has(conversation)) registerOrReport(ctx, record);
    return;
  }
  try {
    const record = ctx.store.workspaces.get(conversation);
    if (record && pendingReleaseOf(record)) await recoverRelease(ctx, record, { tag: 'recover', chain: [conversation] });
    else if (record?.state === 'ready' && !ctx.views.has(conversation)) registerOrReport(ctx, record);
  } finally {
    ctx.store.preparationLocks.unlock(conversation, token);
  }
}

async function recoverInterrupted(ctx: HostContext, record: WorkspaceRecord): Promise<void> {
  const { conversation } = record;
  const token = ctx.ids.next('recover');
  if (!ctx.store.preparationLocks.tryLock(conversation, lockOwner(ctx, token))) {
    ctx.registry.set(registrationOf(record, 'preparing'));
    return;
  }
  try {
    const current = ctx.store.workspaces.get(conversation);
    if (current?.state !== 'preparing') {
      if (current?.state === 'ready') registerOrReport(ctx, current);
      return;
    }
    const report = await rollbackPreparation(ctx, current, { tag: 'recover', chain: [conversation] });
    ctx.store.workspaces.delete(conversation);
    ctx.registry.delete(conversation);
    ctx.store.runLog.append({ type: 'prepare.rolled_back', conversation, data: { ...report, interrupted: true } });
  } finally {
    ctx.store.preparationLocks.unlock(conversation, token);
  }
}
