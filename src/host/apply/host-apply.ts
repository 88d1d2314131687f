/**
 * `hostApply`: `host.apply(conversation, options)` over a host's parts: finds the conversation's
 * `copy` workspace and its overlay, holds its write door shut (so no gated write, in any process,
 * lands while the source and the overlay change), runs `applyCopy`, and reopens the workspace's
 * view afterwards (the overlay's whiteouts changed behind the open one). A dry run only reads and
 * holds nothing.
 *
 * `recordBaseAfterPrepare` takes a plain-folder copy's base record right after its preparation
 * (record-base.ts).
 *
 * Throws `WorkspaceError` `UNKNOWN_CONVERSATION` (none, not ready, released),
 * `BACKEND_UNAVAILABLE` (not a `copy` workspace: a worktree's work goes home with commit and
 * submit), `BUSY` (writes still running after the door's wait).
 */
import { workspaceRoot } from '../../../vfs/index.js';
import type { WriteDoors } from '../../ports/index.js';
import type { StateStore, WorkspaceRecord } from '../../state/index.js';
import { WorkspaceError } from '../../workspace-error.js';
import { refreshRegistration, type OpenViews } from '../lifecycle/index.js';
import type { HostPlatform } from '../platform/index.js';
import { applyCopy } from './apply-copy.js';
import { isCopyOverlay, type ApplyOptions, type ApplyReport, type CopyOverlay } from './apply-types.js';
import { readBase, readJournal, readWhiteouts, removeBase } from './apply-records.js';
import { upperEntries } from './copy-plan.js';
import { recordApplyBase } from './record-base.js';

/** What an apply takes of the host's parts. */
export type HostApplyParts = Parameters<typeof refreshRegistration>[0] & {
  readonly platform: HostPlatform;
  readonly store: StateStore;
  readonly views: OpenViews;
  readonly doors?: WriteDoors;
  drain(conversation: string): Promise<void>;
};

/** See the file comment. */
export async function hostApply(parts: HostApplyParts, conversation: string, options: ApplyOptions = {}): Promise<ApplyReport> {
  const record = parts.store.workspaces.get(conversation);
  if (record?.state !== 'ready' || parts.registry.lookup(conversation)?.state !== 'ready') {
    throw new WorkspaceError('UNKNOWN_CONVERSATION', `no ready workspace is recorded for '${conversation}'`, { conversation });
  }
  if (record.backend !== 'copy') {
    throw new WorkspaceError(
      'BACKEND_UNAVAILABLE',
      `the workspace of '${conversation}' is a ${record.backend} workspace: apply brings a copy workspace home`,
      { conversation, hint: `bring its work home with: gatefs commit ${conversation} -m MESSAGE, then gatefs submit ${conversation}` },
    );
  }
  const overlay = overlayOf(parts, conversation);
  const apply = () =>
    applyCopy({ conversation, platform: parts.platform, overlay, pinned: record.pinnedSha !== null, runLog: parts.store.runLog }, options);
  if (options.dryRun) return apply();
  await parts.drain(conversation);
  const door = parts.doors ? await parts.doors.shut(conversation) : null;
  if (parts.doors && !door) {
    throw new WorkspaceError('BUSY', `writes to '${conversation}' were still running: nothing was applied`, {
      conversation,
      hint: `retry once those writes are done: gatefs apply ${conversation}`,
    });
  }
  try {
    return await apply();
  } finally {
    try {
      refreshRegistration(parts, conversation, undefined, () => false);
    } finally {
      door?.open();
    }
  }
}

/** Takes the base record of a plain-folder copy just prepared (`record`); anything else is left alone. */
export async function recordBaseAfterPrepare(parts: Pick<HostApplyParts, 'views'>, record: WorkspaceRecord): Promise<void> {
  if (record.backend !== 'copy' || record.pinnedSha !== null || record.state !== 'ready') return;
  const layer = parts.views.get(record.conversation)?.namespace.resolve(workspaceRoot(record.conversation)).mount.layer;
  if (isCopyOverlay(layer)) await recordApplyBase(layer);
}

/**
 * Before a release: the base record of an untouched plain-folder copy (an upper holding nothing
 * else, no journal) is set aside, since a release without `discard` removes only an empty copy
 * folder and the record is no work. Result: an undo that takes the record again, for a release
 * that was refused; taking it again is exact while the copy is untouched (nothing has been copied
 * up from the source yet). A copy holding work keeps its record (the release refuses it anyway,
 * or, with `discard`, removes everything).
 */
export async function setBaseAside(parts: Pick<HostApplyParts, 'views' | 'store'>, conversation: string): Promise<() => Promise<void>> {
  const record = parts.store.workspaces.get(conversation);
  const nothing = async () => undefined;
  if (record?.backend !== 'copy' || record.pinnedSha !== null || record.state !== 'ready') return nothing;
  const layer = parts.views.get(conversation)?.namespace.resolve(workspaceRoot(conversation)).mount.layer;
  if (!isCopyOverlay(layer) || (await readBase(layer.upper)) === undefined || (await readJournal(layer.upper)) !== undefined)
    return nothing;
  if ((await upperEntries(layer)).size > 0 || (await readWhiteouts(layer.upper)).length > 0) return nothing;
  await removeBase(layer.upper);
  return async () => {
    await recordApplyBase(layer);
  };
}

function overlayOf(parts: Pick<HostApplyParts, 'views'>, conversation: string): CopyOverlay {
  const layer = parts.views.get(conversation)?.namespace.resolve(workspaceRoot(conversation)).mount.layer;
  if (!isCopyOverlay(layer)) throw new Error(`the view of '${conversation}' is not a copy's overlay`);
  return layer;
}
